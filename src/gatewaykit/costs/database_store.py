"""A ledger's SQLite database as a store, written behind the caller's thread.

``record()`` queues the row; one background thread per process commits the queue, many rows per
transaction, within a few milliseconds. The queue is also written by the caller before every view,
at exit and before another ledger reads the same database, and a job's creation is committed before
``record()`` returns, so only a process killed outright can lose rows recorded in its last ~50 ms.
A connection is never used across ``fork()``.
"""

from __future__ import annotations

import math
import os
import threading
import time
import warnings
import weakref
from pathlib import Path
from typing import Any, Optional, Sequence

from gatewaykit import sqlite_fork
from gatewaykit.costs import write_behind
from gatewaykit.costs.database import LedgerDatabase, LedgerDatabaseError
from gatewaykit.costs.journal import LedgerWarning
from gatewaykit.costs.rows import LedgerRow
from gatewaykit.costs.stores import NOT_STORED, Change, Changes

__all__ = ["DatabaseStore"]

DURABLE_WITHIN = 0.05
"""Seconds after record() returns by which its row is committed (what a SIGKILL can lose is younger)."""

QUEUE_LIMIT = 128
"""Changes queued at most: past it, the caller writes them itself (a crash loses at most these)."""

_INHERITED: list[Any] = []  # database connections a forked child inherited (kept, unused)
_OPEN: "weakref.WeakSet[DatabaseStore]" = weakref.WeakSet()


class DatabaseStore:
    """One ledger's connection to one database, with its write-behind queue."""

    persistent = True
    scoped_to_session = False

    def __init__(self, path: Any, *, fsync: bool = False) -> None:
        self._fsync = fsync
        self._path = Path(path).expanduser().absolute()
        flush_path(self._path)  # this process's queued rows, before the first read
        self._lock = threading.Lock()  # guards the connection (held while a transaction commits)
        self._queue_lock = threading.Lock()  # guards only the queue: record() never waits for a commit
        self._queue: list[Change] = []
        self._failure: Optional[str] = None  # a background write's error, warned by the next flush()
        self._db: Optional[LedgerDatabase] = None
        self._pid = os.getpid()
        self._first_read = True
        self._polled = 0.0  # time.monotonic() of the last read
        with self._lock:  # opening runs SQLite too: a fork() meanwhile waits for it
            _OPEN.add(self)
            sqlite_fork.guard(self)
            self._db = LedgerDatabase(self._path, fsync=fsync)

    @property
    def path(self) -> Path:
        return self._path

    def keeps(self, row: LedgerRow) -> bool:
        return True

    def _connection(self) -> LedgerDatabase:
        """The open connection (reopened after ``close()`` or in a forked child); under the lock."""
        if self._pid != os.getpid():  # forked: the parent's connection and queue are the parent's
            if self._db is not None:
                _INHERITED.append(self._db)
            self._db, self._queue, self._pid = None, [], os.getpid()
        if self._db is None:
            self._db = LedgerDatabase(self._path, fsync=self._fsync)
            self._first_read = True
        return self._db

    # ------------------------------------------------------------------ writes

    def write(self, changes: Sequence[Change], *, durable: bool = False) -> None:
        if self._pid != os.getpid():
            with self._lock:
                self._connection()
        with self._queue_lock:
            self._queue.extend(changes)
            backlog = len(self._queue)
        if durable or backlog > QUEUE_LIMIT:  # a job's creation, or the thread is not keeping up: commit here
            self.flush()
        else:
            write_behind.schedule(self)

    def write_queued(self) -> Optional[str]:
        """Commit what is queued (any thread); the error message when it failed (the changes are kept)."""
        with self._lock:
            if self._pid != os.getpid():
                self._connection()  # a forked child: the parent's queue is the parent's
            with self._queue_lock:
                queued, self._queue = self._queue, []
            if not queued and (self._db is None or not self._db.backlog):
                return None
            db = self._connection()
            rows: list[Any] = [item for what, item in queued if what == "row"]
            updates: list[Any] = [item for what, item in queued if what == "update"]
            try:
                db.write(rows, updates)
            except Exception as exc:  # noqa: BLE001 - never lose the user's result over the ledger file
                self._failure = (
                    f"could not write to the ledger database {self._path}: {exc}; "
                    f"{db.backlog} change(s) kept and retried with the next write"
                )
                return self._failure
            self._failure = None
            return None

    def pending(self) -> bool:
        """True when changes wait to be committed."""
        return bool(self._queue) or (self._db is not None and self._db.backlog > 0)

    def flush(self) -> None:
        flush_path(self._path, but=self)
        failure = self.write_queued() or self._failure
        self._failure = None
        if failure:
            warnings.warn(failure, LedgerWarning, stacklevel=4)

    # ------------------------------------------------------------------- reads

    def read(self, *, rewind: bool = False, recent: float = 0.0) -> Optional[Changes]:
        now = time.monotonic()
        if recent and now - self._polled < recent and not rewind and not self._first_read:
            return None  # read less than ``recent`` seconds ago (the budget check on the hot path)
        if recent and not rewind and not self._first_read:
            # The hot path never waits for the writer thread's commit: read with the next request.
            if not self._lock.acquire(blocking=False):
                return None
            self._lock.release()  # (taken again below: a commit may slip in between, then we wait once)
        with self._lock:
            db = self._connection()
            if rewind:
                db.rewind()
            force, self._first_read = rewind or self._first_read, False
            self._polled = now
            try:
                polled = db.poll(force=force)
            except LedgerDatabaseError as exc:
                warnings.warn(f"{exc}; showing the rows read so far", LedgerWarning, stacklevel=4)
                return None
        if polled is None:
            return None
        rows, updates = polled
        return Changes(rows, updates, budget=_valid_budget(db.budget, self._path), reset=rewind)

    # ------------------------------------------------------------------- other

    def save_budget(self, budget: Optional[float]) -> bool:
        with self._lock:
            self._connection().set_budget(budget)
        return True

    def clear(self) -> None:
        with self._lock:
            with self._queue_lock:
                self._queue = []
            self._connection().clear()

    def close(self) -> None:
        self.flush()
        with self._lock:
            if self._db is not None and self._pid == os.getpid():
                self._db.close()
            self._db = None

    def pickled_path(self) -> Any:
        self.flush()
        return str(self._path)


def flush_path(path: Path, but: Any = None) -> None:
    """Commit, now, what every ledger of this process queued for the database at ``path``.

    Each store's lock is taken, so a write the background thread is committing is waited for.
    """
    for store in list(_OPEN):
        if store is not but and store._path == path:
            failure = store.write_queued()
            if failure:
                warnings.warn(failure, LedgerWarning, stacklevel=4)


def _valid_budget(value: Optional[float], path: Path) -> Any:
    """The stored budget; one that is not a finite number >= 0 keeps the ledger's own (never switches it off)."""
    if value is None or (math.isfinite(value) and value >= 0):
        return value
    warnings.warn(
        f"the ledger database {path} stores an invalid budget ({value!r}); ignored (set ledger.budget again)",
        LedgerWarning,
        stacklevel=5,
    )
    return NOT_STORED


def _after_fork_in_child() -> None:
    for store in list(_OPEN):  # (its _lock: gatewaykit.sqlite_fork)
        store._queue_lock = threading.Lock()  # record() in another thread may have held it at fork()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)
