"""The settlement rules: what a row's status and prices make of its cost.

Pure functions of one row and a price source: they decide ``charged``, ``cost_source`` and
``total_cost``; the row book applies them, the ledger never does it by hand.
Details: ``docs/internals.md``.
"""

from __future__ import annotations

import sys
import time
from typing import Any, Mapping, Optional, Protocol

from gatewaykit.costs import rows as _rows
from gatewaykit.costs.rows import LedgerRow, valid_amount
from gatewaykit.money import format_usd
from gatewaykit.types.replayed import cached_note

__all__ = ["PriceSource", "contribution", "finish", "pending_estimate", "settle", "valid_amount"]

_NOT_CHARGED_STATES = frozenset({"error", "failed", "cancelled"})
PENDING_NOTE = "pending: billed on completion"


class PriceSource(Protocol):
    """What ``Ledger(prices=...)`` accepts besides a price-table mapping (see :mod:`gatewaykit.costs.pricing`)."""

    def estimate(
        self,
        kind: str,
        model: Optional[str],
        *,
        params: Optional[Mapping[str, Any]] = None,
        images: Optional[int] = None,
        seconds: Optional[float] = None,
        prompt_tokens: Optional[int] = None,
        completion_tokens: Optional[int] = None,
    ) -> Optional[float]: ...

    def estimate_request(self, kind: str, model: Optional[str], request: Mapping[str, Any]) -> Optional[float]: ...


def contribution(row: LedgerRow) -> float:
    """What ``row`` adds to the totals: its amount when charged, else 0."""
    return row.total_cost if row.charged and row.total_cost is not None else 0.0


def _estimate(prices: Optional[PriceSource], row: LedgerRow) -> Optional[float]:
    if not prices:
        return None
    try:
        amount = prices.estimate(
            row.kind,
            row.model,
            params=row.pricing,
            images=row.images,
            seconds=row.seconds,
            prompt_tokens=row.prompt_tokens,
            completion_tokens=row.completion_tokens,
        )
    except (TypeError, ValueError, ArithmeticError):  # a price source that cannot price this row
        return None
    return valid_amount(amount)


def settle(row: LedgerRow, prices: Optional[PriceSource]) -> None:
    """Decide ``cost_source``, ``charged`` and ``total_cost`` from the row's status."""
    if row.cost_source in _rows.NOT_SENT_SOURCES:  # a cassette or the cache: never charged, whatever its status
        row.charged, row.total_cost = False, 0.0
        if row.note is None:  # a job's row, its note cleared when it finished: its source's note again
            row.note = cached_note(row.saved_cost) if row.cost_source == _rows.CACHED else _rows.REPLAYED_NOTE
        return
    if row.cost_source == _rows.REPORTED and valid_amount(row.total_cost) is None:  # a stored NaN
        row.note = _rows.invalid_amount_note(row.total_cost)
        row.cost_source, row.total_cost = _rows.NOT_REPORTED, None
    status = row.status
    if status in ("ok", "completed"):
        row.charged = True
        if row.cost_source == _rows.REPORTED and row.total_cost is not None:
            return
        estimate = _estimate(prices, row)
        if estimate is not None:
            row.cost_source, row.total_cost = _rows.ESTIMATED, estimate
        else:
            row.cost_source, row.total_cost = _rows.NOT_REPORTED, None
        return
    if status == "interrupted":
        reported = row.total_cost if row.cost_source == _rows.REPORTED else None
        if reported is not None:  # the usage arrived before the end: what the gateway said it charged
            row.charged = True
            row.note = "stream ended early; the gateway had reported its cost"
            return
        estimate = _estimate(prices, row) if row.prompt_tokens is not None or row.completion_tokens is not None else None
        if estimate is not None:  # counted: forty stopped answers are real spending
            row.charged, row.cost_source, row.total_cost = True, _rows.ESTIMATED, estimate
            row.note = "stream ended early: ≈ estimated from its tokens (the gateway reported no cost)"
            return
        row.charged, row.cost_source, row.total_cost = None, _rows.UNKNOWN, None
        row.note = "stream ended early: whether the gateway charged it is unknown (not counted)"
        return
    row.charged = False
    row.cost_source = _rows.NONE
    if status in _NOT_CHARGED_STATES:
        row.total_cost = 0.0
        if row.note is None:
            row.note = "not charged"
    else:  # queued, in_progress: a job billed later
        row.total_cost = None
        row.note = PENDING_NOTE


def pending_estimate(row: LedgerRow, prices: Optional[PriceSource]) -> Optional[float]:
    """What a pending job will probably cost (counted towards the budget until it ends)."""
    if not prices or row.id is None or row.cost_source in _rows.NOT_SENT_SOURCES:
        return None
    try:
        return valid_amount(prices.estimate(row.kind, row.model, params=row.pricing))
    except (TypeError, ValueError, ArithmeticError):
        return None


def finish(
    row: LedgerRow,
    status: str,
    seconds: Any,
    error_message: Optional[str],
    when: Optional[float],
    prices: Optional[PriceSource],
) -> None:
    """A job reached a terminal ``status``: record when and how, then settle its cost."""
    row.status = sys.intern(str(status))
    row.finished_time = when if when is not None else time.time()
    number = _rows._number(seconds)
    if number is not None:
        row.seconds = number
    if error_message is not None:
        row.error_message = error_message
    row.note = None
    settle(row, prices)
    if status == "cancelled":
        row.note = "cancelled: never charged"
    elif status == "failed":
        row.note = "failed: never charged"
