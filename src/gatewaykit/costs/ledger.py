"""The Ledger: every request's cost, recorded by the client, viewed with pandas.

A client hands each outcome to its ledger (the sink protocol in
:mod:`gatewaykit.costs.records`); the ledger keeps one plain row per request
or job and builds DataFrames only when asked. Every method is thread-safe (one
``threading.Lock``, held across no I/O but the ledger's own file: a JSONL
append, or a SQLite read or commit, tens of microseconds unless another
process holds the database's lock) and safe from asyncio code (nothing awaits).

Behaviours worth knowing:

- A job gets one row when created (pending, not charged) that later turns
  ``completed`` (charged), ``failed`` or ``cancelled`` (not charged; a DELETE
  answered ``deleted`` or ``canceled`` counts as ``cancelled``, except that the
  client reports a deleted job that had completed as ``completed``: it was charged). The first
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
- Where rows are kept (:mod:`gatewaykit.costs.location`): by default the
  per-user SQLite database (:mod:`gatewaykit.costs.database`), opened lazily;
  rows from the offline gateway stay in memory unless a path is given.
  ``path="x.sqlite"`` keeps everything in that database, ``path="x.jsonl"``
  in a JSON Lines journal (:mod:`gatewaykit.costs.journal`, re-read with
  ``reload()``), ``path=None`` in memory only. With a database, every read
  (``len``, ``rows``, ``to_pandas()``, ``total_cost``, ``check_budget``...)
  first applies the rows and job updates other processes committed, and the
  budget is stored in the database, so it applies to every kernel sharing it.
- Every row has a stable unique id, so ``merge`` never duplicates a row; a
  ledger pickles as its path (plus its in-memory rows). ``clear()`` forgets
  the rows seen so far (the file keeps them) unless ``clear(persisted=True)``.
- ``pending_jobs()`` lists the jobs whose end was never seen (id, kind, model,
  base URL: what a restarted kernel needs to resume them; never the key).
- ``with ledger.batch():`` writes the rows recorded inside in one transaction.
"""

from __future__ import annotations

import contextlib
import contextvars
import itertools
import math
import operator
import os
import sys
import threading
import time
import warnings
from pathlib import Path
from typing import Any, Iterator, Mapping, Optional, Union

from gatewaykit.costs import rows as _rows
from gatewaykit.costs.journal import Journal
from gatewaykit.costs.money import format_usd, plural
from gatewaykit.costs.location import USER_LEDGER, is_journal, user_ledger_path
from gatewaykit.costs.pricing import PriceTable
from gatewaykit.costs.records import CostRecord
from gatewaykit.costs.rows import JOB_KINDS, TERMINAL_STATES, LedgerRow, job_transition, row_from_record
from gatewaykit.costs.sharing import LedgerSharing
from gatewaykit.costs.storage import STATUS_ALIASES, update_event
from gatewaykit.errors import BudgetExceededError
from gatewaykit.presentation import rich_bundle

__all__ = ["BudgetWarning", "Ledger"]

_NOT_CHARGED_STATES = frozenset({"error", "failed", "cancelled"})
_PENDING_NOTE = "pending: billed on completion"


class BudgetWarning(UserWarning):
    """The ledger's spend has reached 80 % of its budget."""


def _contribution(row: LedgerRow) -> float:
    return row.total_cost if row.charged and row.total_cost is not None else 0.0


class Ledger(LedgerSharing):
    """Records what every request cost; ``to_pandas()``, ``summary()``, ``plot()`` show it.

    ``path``: where rows are kept (default: the per-user database, see
    :mod:`gatewaykit.costs.location`; ``None``: memory only). ``fsync``: a JSONL
    file is fsync-ed after every append unless ``False``; a database is synced
    by SQLite's WAL (safe when a kernel dies) and fsync-ed on every commit
    only with ``fsync=True`` (safe when the machine loses power).
    """

    warn_fraction = 0.8

    def __init__(
        self,
        *,
        budget: Optional[float] = None,
        path: Any = USER_LEDGER,
        prices: Optional[Mapping[str, Mapping[str, Any]]] = None,
        fsync: Optional[bool] = None,
    ) -> None:
        self._lock = threading.Lock()
        self._tags: contextvars.ContextVar[tuple] = contextvars.ContextVar(
            f"gatewaykit_ledger_tags_{id(self):x}", default=()
        )
        self._prices = PriceTable(prices)
        self._budget = self._valid_budget(budget)
        self._budget_given = budget is not None
        self._fsync = fsync
        self._warned = False
        self._uid_prefix = os.urandom(12).hex()  # 96 random bits: unique across processes
        self._uid_numbers = itertools.count()
        self._batch_depth = 0
        self._batched: list[tuple[str, Any]] = []
        self._lazy = path is USER_LEDGER  # the per-user database, opened on first use
        self._default_path: Any = USER_LEDGER  # its path, resolved at the first attach and then kept
        self._offline_in_memory = self._lazy  # the default ledger keeps offline rows out of files
        self._closed = None  # a database close() closed: reopened on next use
        self._journal = None
        self._db = None
        self._reset()
        if path is None or self._lazy:
            return
        if is_journal(path):
            self._journal = Journal(path, fsync=fsync is not False)
            self._replay()
        else:
            self._open_database(path)

    # ------------------------------------------------------------------ state

    def _reset(self) -> None:
        self._rows: list[LedgerRow] = []
        self._uids: list[str] = []  # parallel to _rows: each row's stable unique id
        self._by_uid: dict[str, LedgerRow] = {}
        self._memory_uids: set[str] = set()  # rows kept in memory only (in no file)
        self._local_jobs: set[str] = set()  # their job ids: updates stay in memory too
        self._base_urls: dict[str, str] = {}  # job id -> the gateway it runs on
        self._key_ids: dict[str, str] = {}  # job id -> the fingerprint of the key that started it
        self._jobs: dict[str, LedgerRow] = {}
        self._early_updates: dict[str, dict[str, Any]] = {}
        self._committed: dict[str, float] = {}
        self._spent = 0.0

    def _new_uid(self) -> str:
        return f"{self._uid_prefix}-{next(self._uid_numbers)}"

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
        """USD limit, or None for no limit. Settable; setting it re-arms the 80 % warning.

        With a database the budget is stored in it: every kernel sharing the file obeys it.
        """
        with self._lock:
            self._sync()
            return self._budget

    @budget.setter
    def budget(self, value: Optional[float]) -> None:
        value = self._valid_budget(value)
        with self._lock:
            self._sync()
            if self._db is not None:
                self._db.set_budget(value)
            self._budget, self._budget_given = value, True
        self._warned = False

    @property
    def prices(self) -> PriceTable:
        return self._prices

    @property
    def path(self) -> Optional[Path]:
        """The database or file rows are kept in (for the default ledger, where it would be)."""
        if self._db is not None or self._closed is not None:
            return self._db.path if self._db is not None else self._closed
        if self._journal is not None:
            return self._journal.path
        if not self._lazy:
            return None
        return user_ledger_path() if self._default_path is USER_LEDGER else self._default_path

    # ---------------------------------------------------------- sink protocol

    def check_budget(self, kind: str, model: Optional[str], request: Optional[Mapping[str, Any]] = None) -> None:
        """Raise :class:`BudgetExceededError` if this request may not be sent."""
        with self._lock:
            self._sync()
            budget = self._budget
            if budget is None:
                return
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
        base_url = getattr(record, "base_url", None)
        key_id = getattr(record, "key_id", None)
        uid = self._new_uid()
        with self._lock:
            stored = self._stores(row)
            if row.kind in JOB_KINDS and row.id is not None and row.id in self._jobs:
                return  # the same job recorded twice: keep the first
            self._take_row(uid, row, base_url, key_id, stored=stored)
            if stored:
                self._write("row", (uid, row, base_url, key_id))
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
        status = STATUS_ALIASES.get(status, status)
        with self._lock:
            self._sync()
            changed = self._apply_update(job_id, status, seconds, error_message, now)
            if changed and job_id not in self._local_jobs:
                self._write("update", update_event(job_id, status, seconds, error_message, now))
        self._maybe_warn()

    # -------------------------------------------------------------- internals

    def _settle(self, row: LedgerRow) -> None:
        """Decide ``cost_source``, ``charged`` and ``total_cost`` from the row's status."""
        if row.cost_source in _rows.NOT_SENT_SOURCES:  # a cassette or the cache: never charged, whatever its status
            row.charged, row.total_cost = False, 0.0
            if row.note is None:
                row.note = _rows.REPLAYED_NOTE
            return
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
        if status == "interrupted":
            reported = row.total_cost if row.cost_source == _rows.REPORTED else None
            row.charged, row.cost_source, row.total_cost = None, _rows.UNKNOWN, None
            row.note = "stream ended early: whether the gateway charged it is unknown (not counted)" + (
                f"; it had reported ${reported:.6f}" if reported is not None else ""
            )
            return
        row.charged = False
        row.cost_source = _rows.NONE
        if status in _NOT_CHARGED_STATES:
            row.total_cost = 0.0
            if row.note is None:
                row.note = "not charged"
        else:  # queued, in_progress: a job billed later
            row.total_cost = None
            row.note = _PENDING_NOTE

    def _add_row(self, row: LedgerRow, uid: str) -> None:
        self._settle(row)
        self._rows.append(row)
        self._uids.append(uid)
        self._by_uid[uid] = row
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
        if self._prices and row.id is not None and row.cost_source not in _rows.NOT_SENT_SOURCES:
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
        with self._lock:
            self._sync()
            return len(self._rows)

    @property
    def rows(self) -> list[dict[str, Any]]:
        """Every row as a fresh dict (changing them does not change the ledger)."""
        with self._lock:
            self._sync()
            return [row.as_dict() for row in self._rows]

    def _columns(self) -> dict[str, list]:
        """A consistent copy of every column (name -> values), taken under the lock."""
        with self._lock:
            self._sync()
            return {name: list(map(getter, self._rows)) for name, getter in _COLUMN_GETTERS}

    def _costs(self, source: Optional[str] = None) -> float:
        with self._lock:
            self._sync()
            return math.fsum(_contribution(r) for r in self._rows if source is None or r.cost_source == source)

    @property
    def total_cost(self) -> float:
        """USD recorded: reported plus estimated (pending and not-reported jobs count 0)."""
        return self._costs()

    @property
    def reported_cost(self) -> float:
        """USD the gateway reported (exactly what it deducted for these rows)."""
        return self._costs(_rows.REPORTED)

    @property
    def estimated_cost(self) -> float:
        """USD estimated from the price table (jobs billed with no amount reported)."""
        return self._costs(_rows.ESTIMATED)

    def clear(self, *, persisted: bool = False) -> None:
        """Forget every row seen so far (and empty the file too when ``persisted=True``)."""
        with self._lock:
            self._sync()
            self._reset()
            if persisted and self._journal is not None:
                self._journal.truncate()
            if persisted and self._db is not None:
                self._db.clear()
        self._warned = False

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

    def plot(self, ax: Any = None) -> Any:
        """Cumulative cost over time, one line per model (matplotlib): a Figure, shown once as a
        cell's last line; with ``ax=`` it draws on that Axes and returns None."""
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
        count, total = len(self), self.total_cost
        budget = "" if self._budget is None else f", budget {format_usd(self._budget)}"
        return f"<Ledger {plural(count, 'row')}, {format_usd(total)}{budget}>"

    def _repr_mimebundle_(self, include=None, exclude=None) -> dict[str, Any]:
        # The table and chart come from the registered presentation layer (the notebook package).
        return rich_bundle(self)

    def _repr_html_(self) -> str:
        return self._repr_mimebundle_().get("text/html", "")


_COLUMN_GETTERS = tuple((name, operator.attrgetter(name)) for name in _rows.COLUMNS)
