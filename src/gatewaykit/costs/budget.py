"""The ledger's budget: its limit, the requests in flight, and what it says.

Plain state and arithmetic, held by the :class:`~gatewaykit.costs.ledger.Ledger` under its lock. A
request may be sent while what is spent, plus the running jobs' estimates, plus what the requests in
flight reserved (``client.map`` sends many at once) stays below the limit and its own estimate fits in
what is left. Each request reserves its estimate (a chat its worst case: its length is unknown until it
is answered) until it is recorded or fails. Details: ``docs/internals.md``.
"""

from __future__ import annotations

import itertools
import math
import weakref
from typing import Any, Optional

from gatewaykit.errors import BudgetExceededError
from gatewaykit.money import format_usd, plural

__all__ = ["Budget", "Reservation", "valid_budget"]


def valid_budget(budget: Any) -> Optional[float]:
    """``budget`` as USD, or a ValueError naming it (NaN, infinity and negatives are refused)."""
    if budget is None:
        return None
    try:
        value = float(budget)
    except (TypeError, ValueError):
        raise ValueError(f"budget must be a non-negative number of USD, not {budget!r}") from None
    if not math.isfinite(value) or value < 0:
        raise ValueError(f"budget must be a non-negative number of USD, not {budget!r}")
    return value


class Reservation:
    """What ``check_budget`` returns: keep it until the request is recorded (dropping it releases it)."""

    __slots__ = ("number", "kind", "model", "__weakref__")

    def __init__(self, number: int, kind: str, model: Optional[str]) -> None:
        self.number, self.kind, self.model = number, kind, model


class Budget:
    """A USD limit and the estimates reserved by requests in flight (no lock: the ledger's)."""

    warn_fraction = 0.8

    def __init__(self, limit: Optional[float]) -> None:
        self.limit = limit
        self.warned = False
        self._reserved: dict[int, tuple[str, Optional[str], float]] = {}
        self._numbers = itertools.count()
        self._largest: dict[tuple[str, Optional[str]], float] = {}  # (kind, model) -> most one request cost

    @property
    def reserved(self) -> float:
        return math.fsum(amount for _, _, amount in self._reserved.values())

    def saw(self, kind: str, model: Optional[str], cost: Optional[float]) -> None:
        """A request of ``kind`` to ``model`` cost ``cost``: the next ones are expected to cost up to that."""
        if cost is not None and cost > self._largest.get((kind, model), 0.0):
            self._largest[(kind, model)] = cost

    def expected(
        self, kind: str, model: Optional[str], estimate: Optional[float], worst_case: Optional[float] = None
    ) -> float:
        """What to reserve for a request: the price source's estimate, else the most seen, else 0.

        A chat reserves the most of its estimate, its ``worst_case`` (prompt plus ``max_tokens``)
        and the most seen: its answer's length is unknown until it arrives.
        """
        largest = self._largest.get((kind, model), 0.0)
        if kind.startswith("chat"):
            return max(amount for amount in (estimate, worst_case, largest) if amount is not None)
        if estimate is not None:
            return estimate
        return largest

    def refusal(
        self, kind: str, model: Optional[str], spent: float, estimate: Optional[float], counted: str
    ) -> Optional[str]:
        """Why a request may not be sent, or None. ``counted`` says which rows ``spent`` covers.

        Refused when the budget is reached, when the requests in flight will reach it,
        or when the price source's ``estimate`` of this one would pass it.
        """
        limit = self.limit
        if limit is None:
            return None
        in_flight = len(self._reserved)
        reserved = self.reserved
        held = f", {format_usd(reserved)} reserved for {plural(in_flight, 'request')} in flight" if in_flight else ""
        where = f"{format_usd(spent)} spent by {counted}{held}"
        if spent >= limit:
            return f"budget of {format_usd(limit)} reached ({where}); the {kind} request to {model} was not sent"
        if reserved and spent + reserved >= limit:
            return (
                f"the requests in flight will reach the budget of {format_usd(limit)} ({where}); "
                f"the {kind} request to {model} was not sent"
            )
        if estimate is not None and spent + reserved + estimate > limit:
            return (
                f"the {kind} request to {model} (about {format_usd(estimate)}) would pass the budget of "
                f"{format_usd(limit)} ({where}); it was not sent"
            )
        return None

    def reserve(self, kind: str, model: Optional[str], amount: float) -> Reservation:
        token = Reservation(next(self._numbers), kind, model)
        self._reserved[token.number] = (kind, model, amount)
        weakref.finalize(token, self._reserved.pop, token.number, None)
        return token

    def release(self, token: Any) -> None:
        if isinstance(token, Reservation):
            self._reserved.pop(token.number, None)

    def error(self, message: str, spent: float) -> BudgetExceededError:
        return BudgetExceededError(message, budget=self.limit, spent=spent)

    def warning(self, spent: float, counted: str) -> Optional[str]:
        """The 80 % warning's text, once per limit (None when not due)."""
        limit = self.limit
        if limit is None or self.warned or spent < self.warn_fraction * limit:
            return None
        self.warned = True
        if not limit:
            return f"the ledger's budget is $0.00 and {format_usd(spent)} is spent by {counted}"
        return (
            f"the ledger has recorded {format_usd(spent)}, {spent / limit:.0%} of its {format_usd(limit)} budget "
            f"(spent by {counted})"
        )
