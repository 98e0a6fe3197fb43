"""The ledger's messages read like money ("$2.00", never "$2.000000") and say "not sent" once."""

from __future__ import annotations

import re

import pytest

from gatewaykit.costs import BudgetWarning, CostRecord, Ledger
from gatewaykit.errors import BudgetExceededError

SIX_DECIMALS = re.compile(r"\$\d+\.\d{5,}")


def _chat(cost: float) -> CostRecord:
    return CostRecord("chat", "chat-mini", "ok", usage={"cost": {"total_cost": cost}})


def test_a_reached_budget_reads_like_money():
    """'budget of $2.00 reached ($2.10 spent by this ledger); the chat request to chat-mini was not sent'."""
    ledger = Ledger(path=None, budget=2.0)
    with pytest.warns(BudgetWarning, match=r"recorded \$2.10, 105% of its \$2.00 budget"):
        ledger.record(_chat(2.1))
    with pytest.raises(BudgetExceededError) as info:
        ledger.check_budget("chat", "chat-mini", {})
    message = str(info.value)
    assert message == "budget of $2.00 reached ($2.10 spent by this ledger); the chat request to chat-mini was not sent"
    assert not SIX_DECIMALS.search(message)


def test_a_request_that_would_pass_the_budget_reads_like_money():
    """An estimate past the budget names the amounts in dollars and cents, and "not sent" once."""
    ledger = Ledger(path=None, budget=1.0, prices={"video-tiers": {"per_second": 0.25}})
    ledger.record(_chat(0.1))
    with pytest.raises(BudgetExceededError) as info:
        ledger.check_budget("video", "video-tiers", {"duration": 8})
    message = str(info.value)
    assert "(about $2.00) would pass the budget of $1.00 ($0.10 spent by this ledger)" in message
    assert message.count("not sent") == 1 and not SIX_DECIMALS.search(message)


def test_a_replayed_row_notes_its_recorded_cost_like_money():
    """A cassette row says "(recorded cost $0.0013)", not "$0.001300"."""
    ledger = Ledger(path=None)
    ledger.record(CostRecord("chat", "chat-mini", "ok", usage={"cost": {"total_cost": 0.0013}}, replayed=True))
    assert ledger.rows[0]["note"].endswith("(recorded cost $0.0013)")


class _FlatPrices:
    """A price source that is not a PriceTable: every request $0.50."""

    def estimate(self, kind, model, *, params=None, images=None, seconds=None, prompt_tokens=None, completion_tokens=None):
        return 0.5

    def estimate_request(self, kind, model, request):
        return 0.5


def test_any_object_with_the_price_table_methods_is_a_price_source():
    """Ledger(prices=obj) with estimate() and estimate_request() prices jobs and checks the budget."""
    ledger = Ledger(path=None, budget=1.0, prices=_FlatPrices())
    ledger.record(CostRecord("video", "video-tiers", "queued", id="video_1"))
    ledger.update_job("video_1", status="completed", seconds=4)
    assert ledger.rows[0]["cost_source"] == "estimated" and ledger.total_cost == 0.5
    with pytest.raises(BudgetExceededError, match=r"about \$0.50\) would pass the budget of \$1.00"):
        with pytest.warns(BudgetWarning):
            ledger.record(_chat(0.35))
        ledger.check_budget("chat", "chat-mini", {})


def test_a_price_source_of_the_wrong_type_is_refused():
    """prices=42 raises a TypeError naming what prices= takes."""
    with pytest.raises(TypeError, match="prices= takes a price table"):
        Ledger(path=None, prices=42)
