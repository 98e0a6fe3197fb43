"""The Ledger: every request's cost, recorded by the client, viewed with pandas.

A client hands each outcome to its ledger (the sink protocol in
:mod:`gatewaykit.costs.records`); the ledger keeps one plain row per request
or job and builds DataFrames only when asked. Every method is thread-safe (one
``threading.Lock``, never held across I/O other than the optional file append)
and safe from asyncio code (nothing awaits).

Behaviours worth knowing:

- A job gets one row when created (pending, not charged) that later turns
  ``completed`` (charged), ``failed`` or ``cancelled`` (not charged; a DELETE
  answered ``deleted`` or ``canceled`` counts as ``cancelled``). The first
  terminal state wins: a later, different one (say ``completed`` after
  ``cancelled``) leaves the row as it was and says so in ``note``. A terminal
  update for a job the ledger has not seen yet is held until its row arrives.
- A second ``record`` for a job id already in the ledger is ignored.
- The budget counts reported and estimated costs (and estimates of pending
  jobs). ``check_budget`` raises :class:`BudgetExceededError` when that total
  has reached the budget, or when a price-table estimate of the request would
  take it past the budget. A :class:`BudgetWarning` is issued once, when the
  total first reaches 80 % of the budget.
- ``with ledger.tag("x"):`` tags every row recorded in that context (nested
  tags accumulate). Tags live in a ``contextvars.ContextVar``: asyncio tasks
  inherit them; a new thread starts untagged unless run in a copied context.
- With ``path=``, rows are reloaded on start and every change is appended to
  the file (see :mod:`gatewaykit.costs.journal`). ``clear()`` forgets the rows
  in memory only, unless ``clear(persisted=True)``.
"""

from __future__ import annotations

import contextlib
import contextvars
import math
import operator
import os
import sys
import threading
import time
import warnings
from typing import Any, Iterator, Mapping, Optional, Union

from gatewaykit.costs import rows as _rows
from gatewaykit.costs.journal import Journal, LedgerWarning
from gatewaykit.costs.pricing import PriceTable
from gatewaykit.costs.records import CostRecord
from gatewaykit.costs.rows import JOB_KINDS, TERMINAL_STATES, LedgerRow, job_transition, row_from_record
from gatewaykit.errors import BudgetExceededError
from gatewaykit.presentation import rich_bundle

__all__ = ["BudgetWarning", "Ledger"]

_NOT_CHARGED_STATES = frozenset({"error", "failed", "cancelled"})
_PENDING_NOTE = "pending: billed on completion"
# DELETE of an unfinished video answers "cancelled or deleted" (spec); both mean never charged.
_STATUS_ALIASES = {"canceled": "cancelled", "deleted": "cancelled"}


class BudgetWarning(UserWarning):
    """The ledger's spend has reached 80 % of its budget."""


def _contribution(row: LedgerRow) -> float:
    return row.total_cost if row.charged and row.total_cost is not None else 0.0


class Ledger:
    """Records what every request cost; ``to_pandas()``, ``summary()``, ``plot()`` show it."""

    warn_fraction = 0.8

    def __init__(
        self,
        *,
        budget: Optional[float] = None,
        path: Union[str, os.PathLike, None] = None,
        prices: Optional[Mapping[str, Mapping[str, Any]]] = None,
        fsync: bool = True,
    ) -> None:
        self._lock = threading.Lock()
        self._tags: contextvars.ContextVar[tuple] = contextvars.ContextVar(
            f"gatewaykit_ledger_tags_{id(self):x}", default=()
        )
        self._prices = PriceTable(prices)
        self._budget = self._valid_budget(budget)
        self._warned = False
        self._journal = Journal(path, fsync=fsync) if path is not None else None
        self._reset()
        if self._journal is not None:
            self._replay()

    # ------------------------------------------------------------------ state

    def _reset(self) -> None:
        self._rows: list[LedgerRow] = []
        self._jobs: dict[str, LedgerRow] = {}
        self._early_updates: dict[str, dict[str, Any]] = {}
        self._committed: dict[str, float] = {}
        self._spent = 0.0

    def _replay(self) -> None:
        assert self._journal is not None
        with self._lock:
            self._reset()
            for event in self._journal.read():
                if event.get("event") == "row":
                    try:
                        row = LedgerRow.from_json(event)
                    except TypeError:
                        warnings.warn(
                            f"ledger file {self._journal.path}: skipped a malformed row",
                            LedgerWarning,
                            stacklevel=3,
                        )
                        continue
                    self._add_row(row)
                elif isinstance(event.get("id"), str):
                    self._apply_update(
                        event["id"],
                        str(event.get("status")),
                        event.get("seconds"),
                        event.get("error_message"),
                        float(event.get("time") or 0.0) or None,
                    )
        self._maybe_warn()

    @staticmethod
    def _valid_budget(budget: Optional[float]) -> Optional[float]:
        if budget is None:
            return None
        budget = float(budget)
        if not math.isfinite(budget) or budget < 0:
            raise ValueError(f"budget must be a non-negative number of USD, not {budget!r}")
        return budget

    @property
    def budget(self) -> Optional[float]:
        """USD limit, or None for no limit. Settable; setting it re-arms the 80 % warning."""
        return self._budget

    @budget.setter
    def budget(self, value: Optional[float]) -> None:
        self._budget = self._valid_budget(value)
        self._warned = False

    @property
    def prices(self) -> PriceTable:
        return self._prices

    @property
    def path(self) -> Optional[os.PathLike]:
        return self._journal.path if self._journal is not None else None

    # ---------------------------------------------------------- sink protocol

    def check_budget(self, kind: str, model: Optional[str], request: Optional[Mapping[str, Any]] = None) -> None:
        """Raise :class:`BudgetExceededError` if this request may not be sent."""
        budget = self._budget
        if budget is None:
            return
        with self._lock:
            spent = self._spent + math.fsum(self._committed.values())
        estimate = self._prices.estimate_request(kind, model, request or {}) if self._prices else None
        if spent >= budget:
            raise BudgetExceededError(
                f"budget of ${budget:.2f} reached (${spent:.6f} recorded); "
                f"the {kind} request to {model} was not sent",
                budget=budget,
                spent=spent,
            )
        if estimate is not None and spent + estimate > budget:
            raise BudgetExceededError(
                f"the {kind} request to {model} (estimated ${estimate:.6f}) would pass the budget "
                f"of ${budget:.2f} (${spent:.6f} recorded); it was not sent",
                budget=budget,
                spent=spent,
            )
        self._maybe_warn()

    def record(self, record: CostRecord) -> None:
        """Add one request's or job's outcome (called once per request by the client)."""
        row = row_from_record(record, self._tags.get())
        with self._lock:
            if row.kind in JOB_KINDS and row.id is not None and row.id in self._jobs:
                return  # the same job recorded twice: keep the first
            self._add_row(row)
            if self._journal is not None:
                self._persist([{"event": "row", **row.to_json()}])
        self._maybe_warn()

    def update_job(
        self,
        job_id: str,
        *,
        status: str,
        seconds: Optional[float] = None,
        error_message: Optional[str] = None,
    ) -> None:
        """A job reached ``status``. Idempotent; the first terminal state wins."""
        now = time.time()
        status = _STATUS_ALIASES.get(status, status)
        with self._lock:
            changed = self._apply_update(job_id, status, seconds, error_message, now)
            if changed:
                event = {"event": "update", "id": job_id, "status": status, "time": now}
                if seconds is not None:
                    event["seconds"] = seconds
                if error_message is not None:
                    event["error_message"] = error_message
                self._persist([event])
        self._maybe_warn()

    # -------------------------------------------------------------- internals

    def _persist(self, events: list[dict[str, Any]]) -> None:
        if self._journal is None:
            return
        try:
            self._journal.append(events)
        except OSError as exc:  # never lose the user's result over the ledger file
            warnings.warn(
                f"could not write the ledger file {self._journal.path}: {exc}",
                LedgerWarning,
                stacklevel=4,
            )

    def _settle(self, row: LedgerRow) -> None:
        """Decide ``cost_source``, ``charged`` and ``total_cost`` from the row's status."""
        status = row.status
        if status in ("ok", "completed"):
            row.charged = True
            if row.cost_source == _rows.REPORTED and row.total_cost is not None:
                return
            estimate = None
            if self._prices:
                estimate = self._prices.estimate(
                    row.kind,
                    row.model,
                    params=row.pricing,
                    images=row.images,
                    seconds=row.seconds,
                    prompt_tokens=row.prompt_tokens,
                    completion_tokens=row.completion_tokens,
                )
            if estimate is not None:
                row.cost_source, row.total_cost = _rows.ESTIMATED, estimate
            else:
                row.cost_source, row.total_cost = _rows.NOT_REPORTED, None
            return
        row.charged = False
        row.cost_source = _rows.NONE
        if status in _NOT_CHARGED_STATES:
            row.total_cost = 0.0
            if row.note is None:
                row.note = "not charged"
        elif status == "interrupted":
            row.total_cost = None
            row.note = "stream interrupted before its usage arrived; cost unknown, not counted"
        else:  # queued, in_progress: a job billed later
            row.total_cost = None
            row.note = _PENDING_NOTE

    def _add_row(self, row: LedgerRow) -> None:
        self._settle(row)
        self._rows.append(row)
        self._spent += _contribution(row)
        if row.kind in JOB_KINDS and row.id is not None:
            self._jobs.setdefault(row.id, row)
            early = self._early_updates.pop(row.id, None)
            if early is not None:
                self._apply_update(row.id, **early)
            elif row.status not in TERMINAL_STATES and row.status != "ok":
                self._commit(row)

    def _commit(self, row: LedgerRow) -> None:
        # A pending job's estimated price counts towards the budget until it ends.
        if self._prices and row.id is not None:
            estimate = self._prices.estimate(row.kind, row.model, params=row.pricing)
            if estimate is not None:
                self._committed[row.id] = estimate

    def _apply_update(
        self,
        job_id: str,
        status: str,
        seconds: Any,
        error_message: Optional[str],
        when: Optional[float],
    ) -> bool:
        """Apply a job update under the lock; True when something changed."""
        row = self._jobs.get(job_id)
        if row is None:
            if status in TERMINAL_STATES and job_id not in self._early_updates:
                self._early_updates[job_id] = {
                    "status": status,
                    "seconds": seconds,
                    "error_message": error_message,
                    "when": when,
                }
                return True
            return False
        transition = job_transition(row.status, status, missing_seconds=row.seconds is None and seconds is not None)
        if transition == "advance":
            row.status = sys.intern(str(status))
            return False
        if transition == "conflict":
            conflict = f"later reported {status}; kept the first state, {row.status}"
            if row.note != conflict:
                row.note = conflict
                return True
            return False
        if transition == "finish":
            return self._finish(row, status, seconds, error_message, when)
        return False

    def _finish(self, row, status, seconds, error_message, when) -> bool:
        self._spent -= _contribution(row)
        self._committed.pop(row.id, None)
        row.status = sys.intern(str(status))
        row.finished_time = when if when is not None else time.time()
        number = _rows._number(seconds)
        if number is not None:
            row.seconds = number
        if error_message is not None:
            row.error_message = error_message
        row.note = None
        self._settle(row)
        if status == "cancelled":
            row.note = "cancelled: never charged"
        elif status == "failed":
            row.note = "failed: never charged"
        self._spent += _contribution(row)
        return True

    def _maybe_warn(self) -> None:
        budget = self._budget
        if budget is None or self._warned:
            return
        with self._lock:
            spent = self._spent
            if spent < self.warn_fraction * budget or self._warned:
                return
            self._warned = True
        warnings.warn(
            f"the ledger has recorded ${spent:.6f}, {spent / budget:.0%} of its ${budget:.2f} budget"
            if budget
            else f"the ledger's budget is $0.00 and ${spent:.6f} is recorded",
            BudgetWarning,
            stacklevel=3,
        )

    # ------------------------------------------------------------------- tags

    @contextlib.contextmanager
    def tag(self, *names: str) -> Iterator["Ledger"]:
        """Tag every row recorded inside the ``with`` block (nested blocks add tags)."""
        for name in names:
            if not isinstance(name, str) or not name:
                raise ValueError(f"a tag is a non-empty string, not {name!r}")
        current = self._tags.get()
        token = self._tags.set(current + tuple(n for n in dict.fromkeys(names) if n not in current))
        try:
            yield self
        finally:
            self._tags.reset(token)

    @property
    def current_tags(self) -> tuple:
        """The tags a row recorded now would get."""
        return self._tags.get()

    # ------------------------------------------------------------ plain views

    def __len__(self) -> int:
        return len(self._rows)

    @property
    def rows(self) -> list[dict[str, Any]]:
        """Every row as a fresh dict (changing them does not change the ledger)."""
        with self._lock:
            return [row.as_dict() for row in self._rows]

    def _columns(self) -> dict[str, list]:
        """A consistent copy of every column (name -> values), taken under the lock."""
        with self._lock:
            return {name: list(map(getter, self._rows)) for name, getter in _COLUMN_GETTERS}

    @property
    def total_cost(self) -> float:
        """USD recorded: reported plus estimated (pending and not-reported jobs count 0)."""
        with self._lock:
            return math.fsum(_contribution(r) for r in self._rows)

    @property
    def reported_cost(self) -> float:
        """USD the gateway reported (exactly what it deducted for these rows)."""
        with self._lock:
            return math.fsum(_contribution(r) for r in self._rows if r.cost_source == _rows.REPORTED)

    @property
    def estimated_cost(self) -> float:
        """USD estimated from the price table (jobs billed with no amount reported)."""
        with self._lock:
            return math.fsum(_contribution(r) for r in self._rows if r.cost_source == _rows.ESTIMATED)

    def clear(self, *, persisted: bool = False) -> None:
        """Forget every row (and empty the file too when ``persisted=True``)."""
        with self._lock:
            self._reset()
            if persisted and self._journal is not None:
                self._journal.truncate()
        self._warned = False

    def reload(self) -> None:
        """Re-read the file (to see rows another kernel appended since this one started)."""
        if self._journal is None:
            raise ValueError("this ledger has no path= to reload from")
        self._replay()

    # ---------------------------------------------------------- pandas views

    def to_pandas(self):
        """One row per request or job; ``time`` and ``finished_time`` as UTC datetimes."""
        from gatewaykit.costs.frames import rows_to_frame

        return rows_to_frame(self._columns())

    def summary(self, by: Union[str, tuple, list] = ("model", "kind")):
        """Per model and kind (or ``by=``, which may include ``"tag"`` and ``"day"``): counts, tokens, cost."""
        from gatewaykit.costs.frames import summary_frame

        return summary_frame(self._columns(), by)

    def daily(self):
        """Per UTC day and model: requests, tokens and cost."""
        return self.summary(by=("day", "model"))

    def plot(self, ax=None):
        """Cumulative cost over time, one line per model (matplotlib); returns the Axes."""
        from gatewaykit.costs.plotting import plot_cumulative

        return plot_cumulative(self._columns(), ax=ax)

    def to_csv(self, path, **kwargs: Any) -> None:
        """Write ``to_pandas()`` as CSV (tags joined with ``;``)."""
        frame = self.to_pandas()
        frame["tags"] = frame["tags"].map(lambda tags: ";".join(tags))
        frame.to_csv(path, index=False, **kwargs)

    def to_parquet(self, path, **kwargs: Any) -> None:
        """Write ``to_pandas()`` as Parquet (tags as a list column)."""
        frame = self.to_pandas()
        frame["tags"] = frame["tags"].map(list)
        frame.to_parquet(path, index=False, **kwargs)

    # ---------------------------------------------------------------- display

    def __repr__(self) -> str:
        budget = "" if self._budget is None else f", budget ${self._budget:.2f}"
        return f"<Ledger {len(self._rows)} rows, ${self.total_cost:.6f}{budget}>"

    def _repr_mimebundle_(self, include=None, exclude=None) -> dict[str, Any]:
        # The table and chart come from the registered presentation layer (the notebook package).
        return rich_bundle(self)

    def _repr_html_(self) -> str:
        return self._repr_mimebundle_().get("text/html", "")


_COLUMN_GETTERS = tuple((name, operator.attrgetter(name)) for name in _rows.COLUMNS)
