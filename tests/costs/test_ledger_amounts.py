"""Costs that are not amounts (NaN, infinity, negative) count as unknown and never switch the budget off."""

from __future__ import annotations

import math
import sqlite3

import pytest

from gatewaykit.costs import CostRecord, Ledger, LedgerWarning
from gatewaykit.errors import BudgetExceededError


def _chat(cost, **kwargs) -> CostRecord:
    return CostRecord("chat", "chat-mini", "ok", usage={"cost": {"total_cost": cost, "input_tokens_cost": cost}}, **kwargs)


@pytest.mark.parametrize("cost", [math.nan, math.inf, -0.5, "nan"])
def test_a_cost_that_is_not_an_amount_is_unknown(cost):
    """The row is charged with no amount, says why, and adds nothing to the total."""
    ledger = Ledger(path=None)
    ledger.record(_chat(0.25))
    ledger.record(_chat(cost))
    row = ledger.rows[1]
    assert row["cost_source"] == "not reported" and row["total_cost"] is None
    assert row["input_tokens_cost"] is None and "not a finite amount" in row["note"]
    assert ledger.total_cost == 0.25 and math.isfinite(ledger.summary().total_cost.sum())


def test_a_nan_cost_does_not_switch_the_budget_off():
    """After a NaN cost the budget still refuses once the real spend reaches it."""
    ledger = Ledger(path=None, budget=1.0)
    ledger.record(_chat(math.nan))
    with pytest.warns(UserWarning):
        ledger.record(_chat(1.0))
    with pytest.raises(BudgetExceededError, match="budget of \\$1.00 reached"):
        ledger.check_budget("chat", "chat-mini", {})


def test_a_nan_cost_stored_by_another_process_is_unknown(tmp_path):
    """A NaN total in the database (an older writer) is read as unknown and the budget still holds."""
    path = tmp_path / "ledger.sqlite"
    Ledger(path=path).record(_chat(0.5, id="first"))
    Ledger(path=path).flush()
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE rows SET total_cost = 'NaN' WHERE id = 'first'")
        conn.execute("INSERT INTO settings (name, value) VALUES ('budget', '1.0')")
    ledger = Ledger(path=path)
    with pytest.warns(UserWarning):
        ledger.record(_chat(1.0))
    assert ledger.total_cost == 1.0
    with pytest.raises(BudgetExceededError):
        ledger.check_budget("chat", "chat-mini", {})


def test_a_nan_budget_stored_in_the_database_is_ignored(tmp_path):
    """A stored budget of NaN keeps the ledger's own (with a warning), never "no limit"."""
    path = tmp_path / "ledger.sqlite"
    ledger = Ledger(path=path, budget=1.0)
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE settings SET value = 'nan' WHERE name = 'budget'")
    with pytest.warns(LedgerWarning, match="invalid budget"):
        assert ledger.budget == 1.0
    with pytest.warns(UserWarning):
        ledger.record(_chat(1.0))
    with pytest.raises(BudgetExceededError):
        ledger.check_budget("chat", "chat-mini", {})


@pytest.mark.parametrize("budget", [math.nan, math.inf, -1.0, "lots"])
def test_a_budget_that_is_not_an_amount_is_refused(budget):
    """Ledger(budget=nan) and ledger.budget = nan raise ValueError naming the value."""
    with pytest.raises(ValueError, match="budget must be a non-negative number"):
        Ledger(path=None, budget=budget)
    ledger = Ledger(path=None, budget=1.0)
    with pytest.raises(ValueError, match="budget must be a non-negative number"):
        ledger.budget = budget
    assert ledger.budget == 1.0
