"""The budget: a warning at 80 %, and no request sent once it would be passed."""

from __future__ import annotations

import warnings

import pytest

from gatewaykit import BudgetExceededError
from gatewaykit.costs import BudgetWarning, Ledger
from ledger_records import records  # noqa: F401  (fixture)


def test_no_budget_never_blocks(records):
    """Without a budget check_budget always lets the request through."""
    ledger = Ledger()
    ledger.record(records.chat_ok(cost=1000.0))
    ledger.check_budget("chat", "chat-mini", {})


def test_under_budget_passes(records):
    """Spend below the budget and below 80 % passes silently."""
    ledger = Ledger(budget=2.0)
    ledger.record(records.chat_ok(cost=0.5))
    ledger.check_budget("chat", "chat-mini", {})


def test_warns_once_at_80_percent(records):
    """Crossing 80 % of the budget issues exactly one BudgetWarning."""
    ledger = Ledger(budget=1.0)
    ledger.record(records.chat_ok(cost=0.75))
    with pytest.warns(BudgetWarning, match="85% of its \\$1.00 budget"):
        ledger.record(records.chat_ok(cost=0.1))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ledger.record(records.chat_ok(cost=0.05))
        ledger.check_budget("chat", "chat-mini", {})


def test_blocks_when_spend_reached_budget(records):
    """Once recorded spend reaches the budget, check_budget raises BudgetExceededError."""
    ledger = Ledger(budget=1.0)
    with pytest.warns(BudgetWarning):
        ledger.record(records.chat_ok(cost=1.0))
    with pytest.raises(BudgetExceededError) as info:
        ledger.check_budget("chat", "chat-mini", {})
    assert info.value.budget == 1.0 and info.value.spent == 1.0
    assert "not sent" in str(info.value)


def test_blocks_when_estimate_would_pass_budget(records):
    """A price-table estimate that would take spend past the budget blocks the request."""
    ledger = Ledger(budget=1.0, prices={"video-tiers": {"per_second": 0.1}})
    ledger.record(records.chat_ok(cost=0.5))
    ledger.check_budget("video", "video-tiers", {"duration": 4})
    with pytest.raises(BudgetExceededError, match="would pass"):
        ledger.check_budget("video", "video-tiers", {"duration": 6})


def test_pending_job_estimates_count_towards_budget(records):
    """A pending job's estimated price is committed spend for the budget."""
    ledger = Ledger(budget=1.0, prices={"video-tiers": {"per_second": 0.2}})
    ledger.record(records.video_created(request={"duration": 4}))
    with pytest.raises(BudgetExceededError):
        ledger.check_budget("video", "video-tiers", {"duration": 2})


def test_cancelled_job_releases_its_commitment(records):
    """A cancelled job's estimate no longer counts towards the budget."""
    ledger = Ledger(budget=1.0, prices={"video-tiers": {"per_second": 0.2}})
    ledger.record(records.video_created(request={"duration": 4}))
    ledger.update_job("video_1", status="cancelled")
    ledger.check_budget("video", "video-tiers", {"duration": 2})


def test_estimated_costs_count_towards_budget(records):
    """Estimated job costs are spend: a completed estimated video can exhaust the budget."""
    ledger = Ledger(budget=0.5, prices={"video-tiers": {"per_second": 0.1}})
    ledger.record(records.video_created(request={}))
    with pytest.warns(BudgetWarning):
        ledger.update_job("video_1", status="completed", seconds=5)
    with pytest.raises(BudgetExceededError):
        ledger.check_budget("music", "music-song", {})


def test_not_charged_rows_do_not_count(records):
    """429s and failed jobs add nothing to the budget's spend."""
    ledger = Ledger(budget=0.01)
    for _ in range(10):
        ledger.record(records.http_error())
    ledger.check_budget("chat", "chat-mini", {})


def test_setting_budget_rearms_the_warning(records):
    """Changing the budget lets the 80 % warning fire again for the new limit."""
    ledger = Ledger(budget=1.0)
    with pytest.warns(BudgetWarning):
        ledger.record(records.chat_ok(cost=0.9))
    ledger.budget = 2.0
    with pytest.warns(BudgetWarning):
        ledger.record(records.chat_ok(cost=0.8))


def test_negative_budget_is_refused():
    """A negative budget is a ValueError."""
    with pytest.raises(ValueError):
        Ledger(budget=-1)
