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
"""

from __future__ import annotations

import contextlib
import contextvars
import hashlib
import itertools
import json
import math
import operator
import os
import sys
import threading
import time
import uuid
import warnings
from pathlib import Path
from typing import Any, Iterable, Iterator, Mapping, Optional, Union

from gatewaykit.costs import rows as _rows
from gatewaykit.costs.journal import Journal, LedgerWarning
from gatewaykit.costs.location import USER_LEDGER, is_journal, user_ledger_path
from gatewaykit.costs.pricing import PriceTable
from gatewaykit.costs.records import CostRecord
from gatewaykit.costs.rows import JOB_KINDS, TERMINAL_STATES, LedgerRow, row_from_record
from gatewaykit.errors import BudgetExceededError

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
        self._uid_prefix = uuid.uuid4().hex
        self._uid_numbers = itertools.count()
        self._batch_depth = 0
        self._batched: list[tuple[str, Any]] = []
        self._lazy = path is USER_LEDGER  # the per-user database, opened on first use
        self._offline_in_memory = self._lazy  # the default ledger keeps offline rows out of files
        self._closed: Optional[Path] = None  # a database close() closed: reopened on next use
        self._journal: Optional[Journal] = None
        self._db: Any = None
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
        self._jobs: dict[str, LedgerRow] = {}
        self._early_updates: dict[str, dict[str, Any]] = {}
        self._committed: dict[str, float] = {}
        self._spent = 0.0

    def _new_uid(self) -> str:
        return f"{self._uid_prefix}-{next(self._uid_numbers)}"

    def _replay(self) -> None:
        assert self._journal is not None
        with self._lock:
            kept = self._memory_rows()
            self._reset()
            self._load_journal(self._journal, stored=True)
            for uid, row, base_url in kept:
                self._take_row(uid, row, base_url, stored=False)
        self._maybe_warn()

    def _load_journal(self, journal: Journal, *, stored: bool) -> None:
        """Apply every event of a JSONL journal (under the lock)."""
        seen: dict[str, int] = {}
        for event in journal.read():
            if event.get("event") == "row":
                try:
                    row = LedgerRow.from_json(event)
                except TypeError:
                    warnings.warn(
                        f"ledger file {journal.path}: skipped a malformed row",
                        LedgerWarning,
                        stacklevel=4,
                    )
                    continue
                uid = event.get("uid")
                if not isinstance(uid, str):  # a file written before rows had ids: a stable one
                    digest = hashlib.sha1(json.dumps(event, sort_keys=True).encode()).hexdigest()
                    seen[digest] = seen.get(digest, -1) + 1
                    uid = f"{digest}-{seen[digest]}"
                self._take_row(uid, row, event.get("base_url"), stored=stored)
            elif isinstance(event.get("id"), str):
                self._apply_update(
                    event["id"],
                    str(event.get("status")),
                    event.get("seconds"),
                    event.get("error_message"),
                    float(event.get("time") or 0.0) or None,
                )

    def _take_row(self, uid: str, row: LedgerRow, base_url: Optional[str], *, stored: bool) -> bool:
        """Add a row from a file, a database or another ledger unless it is already here."""
        if uid in self._by_uid:
            return False
        if row.kind in JOB_KINDS and row.id is not None and row.id in self._jobs:
            self._by_uid[uid] = self._jobs[row.id]  # the same job under another id
            return False
        self._add_row(row, uid)
        if base_url and row.id is not None:
            self._base_urls[row.id] = base_url
        if not stored:
            self._forget_on_disk(uid, row)
        return True

    def _forget_on_disk(self, uid: str, row: LedgerRow) -> None:
        self._memory_uids.add(uid)
        if row.kind in JOB_KINDS and row.id is not None:
            self._local_jobs.add(row.id)

    def _memory_rows(self) -> list[tuple[str, LedgerRow, Optional[str]]]:
        return [
            (uid, row, self._base_urls.get(row.id) if row.id is not None else None)
            for uid, row in zip(self._uids, self._rows)
            if uid in self._memory_uids
        ]

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
        return user_ledger_path() if self._lazy else None

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
        uid = self._new_uid()
        with self._lock:
            stored = self._stores(row)
            if row.kind in JOB_KINDS and row.id is not None and row.id in self._jobs:
                return  # the same job recorded twice: keep the first
            self._take_row(uid, row, base_url, stored=stored)
            if stored:
                self._write("row", (uid, row, base_url))
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
            self._sync()
            changed = self._apply_update(job_id, status, seconds, error_message, now)
            if changed and job_id not in self._local_jobs:
                self._write("update", _update_event(job_id, status, seconds, error_message, now))
        self._maybe_warn()

    def pending_jobs(self, base_url: Optional[str] = None) -> list[dict[str, Any]]:
        """Jobs whose end this ledger has not seen (oldest first): what a restart resumes.

        Each is ``{"id", "kind", "model", "base_url", "status", "time", "offline"}``
        (``base_url`` is None when the client did not say); ``base_url=`` keeps
        the jobs started on that gateway.
        """
        wanted = base_url.rstrip("/") if base_url else None
        with self._lock:
            self._sync()
            out = [
                {
                    "id": job_id,
                    "kind": row.kind,
                    "model": row.model,
                    "base_url": self._base_urls.get(job_id),
                    "status": row.status,
                    "time": row.time,
                    "offline": row.offline,
                }
                for job_id, row in self._jobs.items()
                if row.status not in TERMINAL_STATES
            ]
        if wanted is not None:
            out = [job for job in out if (job["base_url"] or "").rstrip("/") == wanted]
        return sorted(out, key=lambda job: job["time"])

    @contextlib.contextmanager
    def batch(self) -> Iterator["Ledger"]:
        """Write every row recorded inside the block in one transaction, at its end."""
        with self._lock:
            self._batch_depth += 1
        try:
            yield self
        finally:
            with self._lock:
                self._batch_depth -= 1
                if self._batch_depth == 0:
                    self._flush()

    def close(self) -> None:
        """Close the database connection (a later use reopens it)."""
        with self._lock:
            self._flush()
            if self._db is not None:
                self._db.close()
                self._closed, self._db = self._db.path, None

    # -------------------------------------------------------------- storage

    def _stores(self, row: LedgerRow) -> bool:
        """Whether ``row`` goes to a file: the default ledger keeps offline rows in memory."""
        if self._offline_in_memory and row.offline:
            return False
        self._reopen()
        if self._lazy and self._db is None:
            self._attach(create=True)
        return self._db is not None or self._journal is not None

    def _reopen(self) -> None:
        if self._closed is not None and self._db is None:
            path, self._closed = self._closed, None
            self._open_database(path)

    def _open_database(self, path: Any) -> None:
        from gatewaykit.costs.database import LedgerDatabase

        self._db = LedgerDatabase(path, fsync=bool(self._fsync))
        if self._budget_given:
            self._db.set_budget(self._budget)
        self._sync(force=True)

    def _attach(self, *, create: bool) -> None:
        """Open the per-user database (under the lock); on failure stay in memory, once warned."""
        path = user_ledger_path()
        if path is None:
            self._lazy = False
            return
        if not create and not path.exists():
            return
        try:
            self._open_database(path)
        except Exception as exc:  # noqa: BLE001 - a broken ledger file never stops a request
            self._db, self._lazy = None, False
            warnings.warn(
                f"{exc}; this kernel's ledger stays in memory "
                f"(set Ledger(path=...) or the GATEWAYKIT_LEDGER_PATH environment variable)",
                LedgerWarning,
                stacklevel=4,
            )

    def _sync(self, *, force: bool = False) -> None:
        """Apply what other processes committed to the database since the last read (under the lock)."""
        self._reopen()
        if self._lazy and self._db is None:
            self._attach(create=False)
        db = self._db
        if db is None:
            return
        from gatewaykit.costs.database import LedgerDatabaseError

        if db.backlog and not self._batch_depth:
            with contextlib.suppress(Exception):
                db.write()
        try:
            changes = db.poll(force=force)
        except LedgerDatabaseError as exc:
            warnings.warn(f"{exc}; showing the rows read so far", LedgerWarning, stacklevel=4)
            return
        if changes is None:
            return
        rows, updates = changes
        for uid, row, base_url in rows:
            self._take_row(uid, row, base_url, stored=True)
        for event in updates:
            status = _STATUS_ALIASES.get(event["status"], event["status"])
            self._apply_update(event["id"], status, event["seconds"], event["error_message"], event["time"])
        self._budget = db.budget

    def _write(self, what: str, item: Any) -> None:
        """Send one row or update to the file (under the lock); batched inside ``batch()``."""
        self._batched.append((what, item))
        if not self._batch_depth:
            self._flush()

    def _flush(self) -> None:
        batched, self._batched = self._batched, []
        if not batched:
            return
        if self._journal is not None:
            self._persist([_journal_event(what, item) for what, item in batched])
        elif self._db is not None:
            rows = [item for what, item in batched if what == "row"]
            updates = [item for what, item in batched if what == "update"]
            try:
                self._db.write(rows, updates)
            except Exception as exc:  # noqa: BLE001 - never lose the user's result over the ledger file
                warnings.warn(
                    f"could not write to the ledger database {self._db.path}: {exc}; "
                    f"{self._db.backlog} change(s) kept and retried with the next write",
                    LedgerWarning,
                    stacklevel=5,
                )

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

    # -------------------------------------------------------------- internals

    def _settle(self, row: LedgerRow) -> None:
        """Decide ``cost_source``, ``charged`` and ``total_cost`` from the row's status."""
        if row.cost_source == _rows.REPLAYED:  # from a cassette: never charged, whatever its status
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
        if self._prices and row.id is not None and row.cost_source != _rows.REPLAYED:
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
        if status not in TERMINAL_STATES:
            if row.status not in TERMINAL_STATES and row.status != status:
                row.status = sys.intern(str(status))
            return False
        if row.status in TERMINAL_STATES:
            if row.status == status:
                if status == "completed" and row.seconds is None and seconds is not None:
                    return self._finish(row, status, seconds, error_message, when)
                return False
            conflict = f"later reported {status}; kept the first state, {row.status}"
            if row.note != conflict:
                row.note = conflict
                return True
            return False
        return self._finish(row, status, seconds, error_message, when)

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

    def reload(self) -> None:
        """Re-read the file or database from the start (JSONL: to see other kernels' rows)."""
        if self._journal is not None:
            self._replay()
            return
        self._reopen()
        if self._db is None and not self._lazy:
            raise ValueError("this ledger has no path= to reload from")
        with self._lock:
            kept = self._memory_rows()
            self._reset()
            for uid, row, base_url in kept:
                self._take_row(uid, row, base_url, stored=False)
            if self._db is not None:
                self._db.rewind()
            self._sync(force=True)
        self._maybe_warn()

    # --------------------------------------------------- sharing between processes

    def _snapshot(self) -> list[tuple[str, LedgerRow, Optional[str]]]:
        """Copies of every row with its id and base URL (after a live read)."""
        with self._lock:
            self._sync()
            return [
                (uid, LedgerRow.from_json(row.to_json()), self._base_urls.get(row.id) if row.id else None)
                for uid, row in zip(self._uids, self._rows)
            ]

    def merge(self, *others: "Ledger") -> "Ledger":
        """Add the rows of other ledgers (say, from worker processes) that this one lacks.

        A row already here (same id) is skipped; a job another ledger saw end is
        ended here too. Returns this ledger.
        """
        for other in others:
            if other is self:
                continue
            items = other._snapshot()
            with self._lock:
                self._sync()
                for uid, row, base_url in items:
                    self._merge_row(uid, row, base_url)
                self._flush()
        self._maybe_warn()
        return self

    def _merge_row(self, uid: str, row: LedgerRow, base_url: Optional[str]) -> None:
        mine = self._by_uid.get(uid)
        if mine is None and row.kind in JOB_KINDS and row.id is not None:
            mine = self._jobs.get(row.id)
        if mine is None:
            stored = self._stores(row)
            if self._take_row(uid, row, base_url, stored=stored) and stored:
                self._write("row", (uid, row, base_url))
            return
        if mine.kind in JOB_KINDS and mine.id is not None and row.status in TERMINAL_STATES:
            when = row.finished_time
            if self._apply_update(mine.id, row.status, row.seconds, row.error_message, when):
                if mine.id not in self._local_jobs:
                    self._write("update", _update_event(mine.id, row.status, row.seconds, row.error_message, when))

    @classmethod
    def merged(cls, ledgers: Iterable["Ledger"], **options: Any) -> "Ledger":
        """A new ledger (in memory unless ``path=`` is given) holding the rows of all ``ledgers``."""
        options.setdefault("path", None)
        return cls(**options).merge(*ledgers)

    def to_jsonl(self, path: Union[str, os.PathLike]) -> None:
        """Export every row (current state, with its id) as JSON Lines; ``from_jsonl`` reads it back."""
        target = Path(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        partial = target.with_name(target.name + ".partial")
        with partial.open("w", encoding="utf-8") as file:
            for item in self._snapshot():
                file.write(json.dumps(_journal_event("row", item), separators=(",", ":")) + "\n")
        os.replace(partial, target)

    @classmethod
    def from_jsonl(cls, path: Union[str, os.PathLike], **options: Any) -> "Ledger":
        """A ledger (in memory unless ``path=`` is given) holding the rows of a JSONL file."""
        if not Path(path).exists():
            raise FileNotFoundError(f"no ledger file at {path}")
        options.setdefault("path", None)
        ledger = cls(**options)
        with ledger._lock:
            ledger._load_journal(Journal(path, fsync=False), stored=False)
        return ledger._store_all()

    def _store_all(self) -> "Ledger":
        """Write the in-memory rows to this ledger's file (after ``from_jsonl(..., path=...)``)."""
        with self._lock:
            for uid, row, base_url in self._memory_rows():
                if self._stores(row):
                    self._memory_uids.discard(uid)
                    self._local_jobs.discard(row.id)
                    self._write("row", (uid, row, base_url))
            self._flush()
        return self

    def __reduce__(self):
        with self._lock:
            self._sync()
            self._reopen()
            if self._db is not None:
                where: Any = str(self._db.path)
            elif self._journal is not None:
                where = str(self._journal.path)
            else:
                where = USER_LEDGER if self._lazy else None
            state = {
                "path": where,
                "prices": dict(self._prices._prices),
                "fsync": self._fsync,
                "offline_in_memory": self._offline_in_memory,
                "budget": self._budget if self._db is None else None,
                "rows": [(uid, row.to_json(), base_url) for uid, row, base_url in self._memory_rows()],
            }
        return (_unpickle_ledger, (state,))

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
        count, total = len(self), self.total_cost
        budget = "" if self._budget is None else f", budget ${self._budget:.2f}"
        return f"<Ledger {count} rows, ${total:.6f}{budget}>"

    def _repr_mimebundle_(self, include=None, exclude=None) -> dict[str, str]:
        from gatewaykit.costs.display import render_ledger

        text = repr(self)
        try:
            text, html = render_ledger(self._columns(), budget=self._budget)
        except Exception:  # a display bug must never break the user's cell
            return {"text/plain": text}
        return {"text/plain": text, "text/html": html}

    def _repr_html_(self) -> str:
        return self._repr_mimebundle_().get("text/html", "")


def _update_event(job_id: str, status: str, seconds: Any, error_message: Optional[str], when: Any) -> dict:
    event = {"id": job_id, "status": status, "time": when}
    if seconds is not None:
        event["seconds"] = seconds
    if error_message is not None:
        event["error_message"] = error_message
    return event


def _journal_event(what: str, item: Any) -> dict[str, Any]:
    if what == "update":
        return {"event": "update", **item}
    uid, row, base_url = item
    event = {"event": "row", "uid": uid, **row.to_json()}
    if base_url:
        event["base_url"] = base_url
    return event


def _unpickle_ledger(state: dict[str, Any]) -> "Ledger":
    """A pickled ledger: the same database or file, plus the rows it kept in memory."""
    ledger = Ledger(path=state["path"], prices=state["prices"], fsync=state["fsync"], budget=state["budget"])
    with ledger._lock:
        ledger._offline_in_memory = state["offline_in_memory"]
        for uid, data, base_url in state["rows"]:
            ledger._take_row(uid, LedgerRow.from_json(data), base_url, stored=False)
    return ledger


_COLUMN_GETTERS = tuple((name, operator.attrgetter(name)) for name in _rows.COLUMNS)
