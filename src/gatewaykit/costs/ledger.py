"""The Ledger: every request's cost, recorded by the client, viewed with pandas.

:class:`Ledger` is a facade over a row book (rows, jobs, settlement), a store (memory, JSONL, SQLite,
the per-user database) and a budget; it owns the one lock, the tags and the views. A job has one row
that turns completed, failed or cancelled; the budget counts stored rows, running jobs and requests
in flight across kernels; the default ledger's views show this session's rows, ``history()`` all.
"""

from __future__ import annotations

import contextlib
import contextvars
import itertools
import math
import os
import threading
import time
import warnings
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Optional, Sequence, Union

from typing_extensions import Self

from gatewaykit.costs import sharing
from gatewaykit.costs.book import RowBook, StoredRow
from gatewaykit.costs.budget import Budget, Reservation, valid_budget
from gatewaykit.costs.job_refresh import PendingRefresh
from gatewaykit.costs.location import USER_LEDGER
from gatewaykit.costs.pricing import PriceTable
from gatewaykit.costs.records import CostRecord
from gatewaykit.costs.rows import (
    COLUMNS,
    ESTIMATED,
    JOB_KINDS,
    NOT_SENT_SOURCES,
    REPORTED,
    STATUS_ALIASES,
    TERMINAL_STATES,
    LedgerRow,
    row_from_record,
    valid_amount,
)
from gatewaykit.costs.session import SESSION_ID
from gatewaykit.costs.settlement import PriceSource, contribution
from gatewaykit.costs.stores import HOT_PATH_READ, NOT_STORED, Change, Changes, update_event
from gatewaykit.costs.user_store import open_store
from gatewaykit.costs.views import DisplayState, LedgerView

__all__ = ["BudgetWarning", "Ledger"]


class BudgetWarning(UserWarning):
    """The ledger's spend has reached 80 % of its budget."""


def _recorded_at(row: LedgerRow) -> float:
    return row.time


def _price_source(prices: Any) -> PriceSource:
    if prices is None or isinstance(prices, Mapping):
        return PriceTable(prices)
    if callable(getattr(prices, "estimate", None)) and callable(getattr(prices, "estimate_request", None)):
        return prices
    raise TypeError(
        "prices= takes a price table (a mapping of model to rates, see gatewaykit.costs.pricing) "
        f"or an object with estimate() and estimate_request(), not {type(prices).__name__}"
    )


class Ledger:
    """Records what every request cost; ``to_pandas()``, ``summary()``, ``plot()`` show it.

    ``path``: where rows are kept (default: the per-user database, see
    :mod:`gatewaykit.costs.location`; ``None``: memory only). ``prices``: a price
    table (see :mod:`gatewaykit.costs.pricing`) or any object with its
    ``estimate`` and ``estimate_request`` methods. ``fsync``: a JSONL file is
    fsync-ed after every append unless ``False``; a database is fsync-ed on every
    commit only with ``fsync=True`` (safe when the machine loses power).
    """

    warn_fraction = 0.8
    _history_call = "ledger.history()"  # the process-wide ledger says "gk.ledger.history()"

    def __init__(
        self,
        *,
        budget: Optional[float] = None,
        path: Any = USER_LEDGER,
        prices: Any = None,
        fsync: Optional[bool] = None,
    ) -> None:
        self._lock = threading.Lock()
        self._tags: contextvars.ContextVar[tuple] = contextvars.ContextVar(
            f"gatewaykit_ledger_tags_{id(self):x}", default=()
        )
        self._prices = _price_source(prices)
        self._fsync = fsync
        self._book = RowBook(self._prices)
        self._budget = Budget(valid_budget(budget))
        self._uid_prefix = os.urandom(12).hex()  # 96 random bits: unique across processes
        self._uid_numbers = itertools.count()
        self._uid_pid = os.getpid()  # a forked child draws a new prefix (two children never share uids)
        self._adopted: set[str] = set()  # rows merged or unpickled into this ledger: this session's
        self._batch_depth = 0
        self._batched: list[Change] = []
        self._store = open_store(path, fsync)
        if budget is not None:
            self._store.save_budget(self._budget.limit)
        if path is not USER_LEDGER:  # the default ledger opens its database on first use, never here
            with self._lock:
                self._sync(flush=False)
            self._warn_if_due()

    # -------------------------------------------------------------- internals

    def _sync(self, *, flush: bool, recent: float = 0.0) -> None:
        """Apply what the store has that the book lacks (under the lock); ``flush`` first writes ours.

        ``recent``: skip the read when the last one is younger (see ``stores.HOT_PATH_READ``).
        """
        if flush:
            self._store.flush()
        changes = self._store.read(recent=recent)
        if changes is not None:
            self._apply(changes)

    def _apply(self, changes: Changes) -> None:
        if changes.reset:
            kept = self._book.memory_items()
            self._book = RowBook(self._prices)
            for uid, row, base_url, key_id in kept:
                self._book.add(uid, row, base_url, key_id, in_memory=True)
        for uid, row, base_url, key_id in changes.rows:
            self._book.add(uid, row, base_url, key_id)
        for event in changes.updates:
            status = STATUS_ALIASES.get(event["status"], event["status"])
            self._book.update(event["id"], status, event.get("seconds"), event.get("error_message"), event.get("time"),
                              event.get("estimate"), event.get("cost"))  # fmt: skip
        if changes.budget is not NOT_STORED:
            self._budget.limit = changes.budget

    def _write(self, change: Change) -> None:
        if self._batch_depth:
            self._batched.append(change)
        else:
            self._store.write([change])

    def _write_now(self, change: Change) -> None:
        """Commit ``change`` (and anything batched before it) before returning: a job's creation."""
        changes, self._batched = self._batched + [change], []
        self._store.write(changes, durable=True)

    def _take(self, item: StoredRow, *, store: bool) -> bool:
        """Add a row from elsewhere (a merge, a file, a pickle) unless known; write it when ``store``."""
        uid, row, base_url, key_id = item
        book = self._book
        mine = book.get(uid)
        if mine is None and book.has_job(row):
            mine = book.jobs[row.id]  # type: ignore[index]
        if mine is None:
            kept = store and self._store.keeps(row)
            book.add(uid, row, base_url, key_id, in_memory=not kept and self._store.persistent)
            self._adopted.add(uid)
            if kept:
                self._write(("row", item))
            return True
        if mine.kind in JOB_KINDS and mine.id is not None and row.status in TERMINAL_STATES:
            cost = row.total_cost if row.cost_source == REPORTED else None
            if book.update(mine.id, row.status, row.seconds, row.error_message, row.finished_time, cost=cost):
                if store and mine.id not in book.memory_jobs:
                    event = update_event(mine.id, row.status, row.seconds, row.error_message, row.finished_time,
                                         cost=cost)
                    self._write(("update", event))
        return False

    def _warn_if_due(self) -> None:
        if self._budget.limit is None or self._budget.warned:  # the common case: no lock
            return
        with self._lock:
            text = self._budget.warning(self._book.spent, self._counted())
        if text:
            warnings.warn(text, BudgetWarning, stacklevel=3)

    def _counted(self) -> str:
        """Which rows the budget counts, for its messages."""
        path = self._store.path
        if path is None:
            return "this ledger"
        if self._store.scoped_to_session:
            return f"all sessions in {path.name}"
        return f"every row in {path.name}"

    # ---------------------------------------------------------------- budget

    @property
    def budget(self) -> Optional[float]:
        """USD limit, or None for no limit. Settable; setting it re-arms the 80 % warning.

        With a database the budget is stored in it: every kernel sharing the file obeys it.
        """
        with self._lock:
            self._sync(flush=False)
            return self._budget.limit

    @budget.setter
    def budget(self, value: Optional[float]) -> None:
        value = valid_budget(value)
        with self._lock:
            self._sync(flush=False)
            self._store.save_budget(value)
            self._budget.limit, self._budget.warned = value, False

    @property
    def has_budget(self) -> bool:
        """True when a budget applies, as last read (no I/O: for the client's hot path)."""
        return self._budget.limit is not None

    @property
    def prices(self) -> PriceSource:
        return self._prices

    @property
    def path(self) -> Optional[Path]:
        """The database or file rows are kept in (for the default ledger, where it would be)."""
        return self._store.path

    # ---------------------------------------------------------- sink protocol

    reserves_worst_case = True  # check_budget takes worst_case= (the client's quote of a chat)

    def check_budget(
        self,
        kind: str,
        model: Optional[str],
        request: Optional[Mapping[str, Any]] = None,
        *,
        worst_case: Optional[Callable[[], Optional[float]]] = None,
    ) -> Optional[Reservation]:
        """Raise :class:`BudgetExceededError` if this request may not be sent; else reserve its estimate.

        ``worst_case``: called (only when there is a budget) for the most the request may cost
        (a chat's prompt plus ``max_tokens``, priced by the client from the catalog).
        Returns the reservation (None without a budget): the client keeps it until the
        request is recorded; dropping it releases the reserved amount.
        """
        with self._lock:
            self._sync(flush=False, recent=HOT_PATH_READ)
            if self._budget.limit is None:
                return None
        estimate = None
        if self._prices:
            try:
                estimate = self._prices.estimate_request(kind, model, request or {})
            except (TypeError, ValueError, ArithmeticError):
                estimate = None
        most = None
        if worst_case is not None:
            try:
                most = valid_amount(worst_case())
            except (TypeError, ValueError, ArithmeticError):
                most = None
        with self._lock:
            budget = self._budget
            spent = self._book.spent + self._book.pending_total
            estimate = valid_amount(estimate)
            refusal = budget.refusal(kind, model, spent, estimate, self._counted())
            if refusal:
                raise budget.error(refusal, spent)
            token = budget.reserve(kind, model, budget.expected(kind, model, estimate, most))
        self._warn_if_due()
        return token

    def record(self, record: CostRecord) -> Optional[LedgerRow]:
        """Add one request's or job's outcome (called once per request by the client); its row."""
        row = row_from_record(record, self._tags.get(), SESSION_ID)
        if self._uid_pid != os.getpid():
            self._uid_prefix, self._uid_pid = os.urandom(12).hex(), os.getpid()
        uid = f"{self._uid_prefix}-{next(self._uid_numbers)}"
        with self._lock:
            if self._book.has_job(row) and row.cost_source not in NOT_SENT_SOURCES:
                return None  # the same job recorded twice: keep the first (a cached answer is a row of its own)
            stored = self._store.keeps(row)
            self._book.add(uid, row, record.base_url, record.key_id, in_memory=not stored and self._store.persistent)
            self._budget.saw(row.kind, row.model, row.total_cost if row.charged else None)
            if stored:
                change = ("row", (uid, row, record.base_url, record.key_id))
                if row.kind in JOB_KINDS and row.id is not None and row.status not in TERMINAL_STATES:
                    self._write_now(change)  # a paid job the next process must be able to resume
                else:
                    self._write(change)
        self._warn_if_due()
        return row

    def update_job(
        self,
        job_id: str,
        *,
        status: str,
        seconds: Optional[float] = None,
        error_message: Optional[str] = None,
        cost: Optional[float] = None,
    ) -> Optional[LedgerRow]:
        """A job reached ``status``. Idempotent; the first terminal state wins. The job's row, if known.

        ``cost``: the USD reported for a completed job (a ``usage.cost.total_cost`` on its view, which a
        classroom adds when it settles the job): the row is then ``reported`` at it, not estimated."""
        now = time.time()
        status = STATUS_ALIASES.get(status, status)
        with self._lock:
            self._sync(flush=False, recent=HOT_PATH_READ)
            changed = self._book.update(job_id, status, seconds, error_message, now, cost=cost)
            if changed and job_id not in self._book.memory_jobs:
                self._write(("update", update_event(job_id, status, seconds, error_message, now,
                                                    self._estimate_of(job_id), cost)))
            row = self._book.jobs.get(job_id)
        self._warn_if_due()
        return row

    def _estimate_of(self, job_id: str) -> Optional[float]:
        """The finished job's estimate, stored with its update so other processes count it too."""
        row = self._book.jobs.get(job_id)
        return row.total_cost if row is not None and row.cost_source == ESTIMATED else None

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

    # ------------------------------------------------------------------ views

    def _shown(self, everything: bool = False) -> list[LedgerRow]:
        """The rows the views show (under the lock, after a live read): this session's, or all."""
        self._sync(flush=True)
        book = self._book
        if not self._store.scoped_to_session:
            return list(book.rows)
        if everything:  # sessions interleave: in time order
            return sorted(book.rows, key=_recorded_at)
        adopted, in_memory = self._adopted, book.in_memory
        return [
            row
            for uid, row in zip(book.uids, book.rows)
            if row.session == SESSION_ID or uid in adopted or uid in in_memory
        ]

    def _display_state(self, *, everything: bool = False) -> DisplayState:
        """A consistent copy of the shown rows' columns, taken under the lock."""
        with self._lock:
            rows = self._shown(everything)
            columns = {name: [getattr(row, name) for row in rows] for name in COLUMNS}
            earlier = len(self._book.rows) - len(rows)
            limit = self._budget.limit
        if everything:
            return DisplayState(columns, limit, title="Ledger history")
        return DisplayState(columns, limit, earlier=earlier, history_call=self._history_call)

    def _cost(self, source: Optional[str] = None) -> float:
        self._refresh_pending()
        with self._lock:
            return math.fsum(contribution(r) for r in self._shown() if source is None or r.cost_source == source)

    def _columns(self) -> dict[str, list]:
        return self._display_state().columns

    def _view(self) -> LedgerView:
        self._refresh_pending()  # every view (rows, to_pandas, summary, print, display) reads pending jobs' ends
        return LedgerView(self._display_state)

    def history(self) -> LedgerView:
        """Every stored row (every session's, for the default ledger), with the same views as the ledger."""
        self._refresh_pending()
        return LedgerView(lambda: self._display_state(everything=True))

    def __len__(self) -> int:
        with self._lock:
            if not self._store.scoped_to_session:
                self._sync(flush=True)
                return len(self._book.rows)
            return len(self._shown())

    @property
    def rows(self) -> list[dict[str, Any]]:
        """Every shown row as a fresh dict (changing them does not change the ledger)."""
        return self._view().rows

    def rows_as_recorded(self, tag: Optional[str] = None) -> list[dict[str, Any]]:
        """:attr:`rows` without first asking the gateway about pending jobs: for the library's own reads
        (compare, evaluate, the playground settle their cells from rows they just wrote), which must not
        add status requests to a run. With ``tag``: only the rows carrying it, found without copying the
        others (a cell settled in a long session reads its own rows, not the whole ledger)."""
        if tag is None:
            return LedgerView(self._display_state).rows
        with self._lock:
            mine = [row for row in self._shown() if tag in row.tags]
            return [{name: getattr(row, name) for name in COLUMNS} for row in mine]

    @property
    def total_cost(self) -> float:
        """USD recorded: reported plus estimated (pending and not-reported jobs count 0)."""
        return self._cost()

    @property
    def reported_cost(self) -> float:
        """USD the gateway reported (exactly what it deducted for these rows)."""
        return self._cost(REPORTED)

    @property
    def estimated_cost(self) -> float:
        """USD estimated by the price source (jobs billed with no amount reported)."""
        return self._cost(ESTIMATED)

    def to_pandas(self):
        """One row per request or job; ``time`` and ``finished_time`` as UTC datetimes."""
        return self._view().to_pandas()

    def note_job_status(self, job_id: str, status: str) -> None:
        """A running job's state as last seen (``queued`` -> ``in_progress``): kept in memory for this
        process's views and ``pending_jobs()``; only a job's end is stored (:meth:`update_job`)."""
        if status in TERMINAL_STATES:
            self.update_job(job_id, status=status)
            return
        with self._lock:
            self._book.update(job_id, STATUS_ALIASES.get(status, status), None, None, None)

    def refresh_jobs_with(self, refresher: Any) -> None:
        """Register ``refresher(polled)`` (a client's): it polls this ledger's unfinished jobs once each (not those
        in ``polled``, the ids asked about in this round, which it adds to) and reports their state. Run before the ledger is shown, printed or read (``rows``, totals, ``to_pandas()``,
        ``history()``), at most every ``refresh_every`` seconds (see :mod:`gatewaykit.costs.job_refresh`)."""
        self._pending_refresh().add(refresher)

    @property
    def refresh_every(self) -> float:
        """Seconds between two refreshes of the pending jobs (default 10)."""
        return self._pending_refresh().every

    @refresh_every.setter
    def refresh_every(self, seconds: float) -> None:
        self._pending_refresh().every = float(seconds)

    def _pending_refresh(self) -> PendingRefresh:
        refresh = self.__dict__.get("_refresh")
        if refresh is None:
            refresh = self.__dict__.setdefault("_refresh", PendingRefresh())
        return refresh

    def _refresh_pending(self) -> None:
        refresh = self.__dict__.get("_refresh")
        if refresh is not None and refresh.due() and self._book.unfinished_jobs():
            refresh.run()

    def summary(self, by: Union[str, tuple, list] = ("model", "kind")):
        """Per model and kind (or ``by=``, which may include ``"tag"`` and ``"day"``): counts, tokens, cost."""
        return self._view().summary(by)

    def daily(self):
        """Per UTC day and model: requests, tokens and cost."""
        return self._view().daily()

    def plot(self, ax: Any = None) -> Any:
        """Cumulative cost over time, one line per model (matplotlib): a Figure, shown once as a
        cell's last line; with ``ax=`` it draws on that Axes and returns None."""
        return self._view().plot(ax=ax)

    def to_csv(self, path: Any, **kwargs: Any) -> None:
        """Write ``to_pandas()`` as CSV (tags joined with ``;``)."""
        self._view().to_csv(path, **kwargs)

    def to_parquet(self, path: Any, **kwargs: Any) -> None:
        """Write ``to_pandas()`` as Parquet (tags as a list column)."""
        self._view().to_parquet(path, **kwargs)

    def __repr__(self) -> str:
        return repr(self._view())

    def __str__(self) -> str:
        """``print(ledger)``: the last rows as a plain-text table, then the totals."""
        return str(self._view())

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        return self._view()._repr_mimebundle_(include, exclude)

    def _repr_html_(self) -> str:
        return self._view()._repr_html_()

    # ------------------------------------------------------------ the store

    def pending_jobs(self, base_url: Optional[str] = None, key_id: Optional[str] = None) -> list[dict[str, Any]]:
        """Jobs whose end this ledger has not seen (oldest first, every session's): what a restart resumes.

        Each is ``{"id", "kind", "model", "base_url", "key_id", "status", "time", "offline"}``.
        ``base_url=`` keeps the jobs started on that gateway; ``key_id=`` (a key's
        fingerprint) keeps the jobs that key started, plus those recorded before
        ledgers kept key ids (``key_id`` None), which may be any key's.
        """
        with self._lock:
            self._sync(flush=False)
            out = self._book.unfinished_jobs()
        if base_url:
            wanted = base_url.rstrip("/")
            out = [job for job in out if (job["base_url"] or "").rstrip("/") == wanted]
        if key_id is not None:
            out = [job for job in out if job["key_id"] in (None, key_id)]
        return sorted(out, key=lambda job: job["time"])

    @contextlib.contextmanager
    def batch(self) -> Iterator[Self]:
        """Write every row recorded inside the block together, at its end."""
        with self._lock:
            self._batch_depth += 1
        try:
            yield self
        finally:
            with self._lock:
                self._batch_depth -= 1
                if self._batch_depth == 0 and self._batched:
                    batched, self._batched = self._batched, []
                    self._store.write(batched)

    def flush(self) -> None:
        """Write what was recorded but is not on disk yet (a database is written behind the caller)."""
        with self._lock:
            self._store.flush()

    def close(self) -> None:
        """Write what is queued and close the database connection (a later use reopens it)."""
        with self._lock:
            self._store.close()

    def clear(self, *, persisted: bool = False) -> None:
        """Forget every row seen so far (and empty the file too when ``persisted=True``)."""
        with self._lock:
            self._sync(flush=True)
            self._book = RowBook(self._prices)
            self._adopted.clear()
            if persisted:
                self._store.clear()
            self._budget.warned = False

    def reload(self) -> None:
        """Re-read the file or database from the start (JSONL: to see other kernels' rows)."""
        with self._lock:
            self._store.flush()
            changes = self._store.read(rewind=True) or Changes(reset=True)
            changes.reset = True
            self._apply(changes)
        self._warn_if_due()

    # ------------------------------------------------------- sharing (see sharing.py)

    def snapshot(self, *, memory_only: bool = False) -> list[StoredRow]:
        """Copies of the rows (all, or those no store holds) with their uid, base URL and key id."""
        with self._lock:
            self._sync(flush=False)
            items = self._book.memory_items() if memory_only and self._store.persistent else list(self._book.items())
        return [(uid, LedgerRow.from_json(row.to_json()), base_url, key_id) for uid, row, base_url, key_id in items]

    def adopt(self, rows: Iterable[StoredRow], updates: Iterable[dict] = (), *, store: bool = True) -> Self:
        """Add rows (and job updates) from another ledger or a file that this one lacks; returns this ledger."""
        with self._lock:
            self._sync(flush=False)
            for item in rows:
                self._take(item, store=store)
            for event in updates:
                status = STATUS_ALIASES.get(event["status"], event["status"])
                changed = self._book.update(
                    event["id"], status, event.get("seconds"), event.get("error_message"), event.get("time"),
                    cost=event.get("cost"),
                )
                if changed and store and event["id"] not in self._book.memory_jobs:
                    when, seconds, message = event.get("time"), event.get("seconds"), event.get("error_message")
                    self._write(("update", update_event(event["id"], status, seconds, message, when,
                                                        cost=event.get("cost"))))
        self._warn_if_due()
        return self

    def merge(self, *others: "Ledger") -> Self:
        """Add the rows of other ledgers (say, from worker processes) that this one lacks (by row id).

        A job another ledger saw end is ended here too. Returns this ledger.
        """
        return sharing.merge(self, others)

    @classmethod
    def merged(cls, ledgers: Iterable["Ledger"], **options: Any) -> Self:
        """A new ledger (in memory unless ``path=`` is given) holding the rows of all ``ledgers``."""
        options.setdefault("path", None)
        return sharing.merge(cls(**options), ledgers)

    def to_jsonl(self, path: Union[str, os.PathLike]) -> None:
        """Export every row (current state, with its id) as JSON Lines; ``from_jsonl`` reads it back."""
        sharing.write_jsonl(self.snapshot(), path)

    @classmethod
    def from_jsonl(cls, path: Union[str, os.PathLike], **options: Any) -> Self:
        """A ledger (in memory unless ``path=`` is given) holding the rows of a JSONL file."""
        rows, updates = sharing.read_jsonl(path)
        options.setdefault("path", None)
        return cls(**options).adopt(rows, updates)

    def __reduce__(self) -> tuple[Any, tuple[dict[str, Any]]]:
        with self._lock:
            path = self._store.pickled_path()
            limit = self._budget.limit
        state = {
            "class": type(self),
            "path": path,
            "prices": self._prices,
            "fsync": self._fsync,
            "budget": limit,
            "rows": [(uid, row.to_json(), url, key_id) for uid, row, url, key_id in self.snapshot(memory_only=True)],
        }
        return (sharing.unpickle, (state,))
