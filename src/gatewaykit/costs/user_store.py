"""The default store (the per-user database, opened on first use) and :func:`open_store`.

``Ledger()`` and ``gk.ledger`` keep rows in the per-user database
(:mod:`gatewaykit.costs.location`). :class:`UserStore` resolves its path at the
first use and keeps it (a later change of ``GATEWAYKIT_LEDGER_PATH`` never
switches databases), opens it when it exists or when the first row from a real
gateway arrives, and keeps offline and replayed rows out of it (in memory).
A file that cannot be opened is warned about once; the ledger then stays in
memory. The database holds every session's rows, so the ledger's views show
this session's and ``history()`` the rest (``scoped_to_session``).
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any, Optional, Sequence

from gatewaykit.costs.journal import JournalStore, LedgerWarning
from gatewaykit.costs.location import USER_LEDGER, is_journal, user_ledger_path
from gatewaykit.costs.rows import NOT_SENT_SOURCES, LedgerRow
from gatewaykit.costs.stores import Change, Changes, LedgerStore, MemoryStore

__all__ = ["UserStore", "open_store"]


def open_store(path: Any, fsync: Optional[bool]) -> LedgerStore:
    """The store for ``Ledger(path=...)``: memory, the per-user database, a JSONL file or a SQLite file."""
    if path is None:
        return MemoryStore()
    if path is USER_LEDGER:
        return UserStore(fsync=fsync)
    if is_journal(path):
        return JournalStore(path, fsync=fsync is not False)
    return _database(path, fsync)


def _database(path: Any, fsync: Optional[bool]) -> LedgerStore:
    from gatewaykit.costs.database_store import DatabaseStore  # sqlite3 is imported with the first database

    return DatabaseStore(path, fsync=bool(fsync))


class UserStore:
    """The per-user database or journal, attached lazily (see the module docstring)."""

    persistent = True
    scoped_to_session = True

    def __init__(self, *, fsync: Optional[bool] = None) -> None:
        self._fsync = fsync
        self._resolved: Any = USER_LEDGER  # the path, once the first use resolved it (None: memory)
        self._inner: Optional[LedgerStore] = None
        self._budget: Any = None  # (budget,) set before the file was opened: stored when it is

    @property
    def path(self) -> Optional[Path]:
        if self._inner is not None:
            return self._inner.path
        return user_ledger_path() if self._resolved is USER_LEDGER else self._resolved

    def _attach(self, *, create: bool) -> Optional[LedgerStore]:
        if self._inner is not None:
            return self._inner
        if self._resolved is USER_LEDGER:  # resolved once, at the first use
            self._resolved = user_ledger_path()
        path = self._resolved
        if path is None or (not create and not path.exists()):
            return None
        try:
            inner = JournalStore(path, fsync=self._fsync is not False) if is_journal(path) else _database(path, self._fsync)
            if self._budget is not None:
                inner.save_budget(self._budget[0])
        except Exception as exc:  # noqa: BLE001 - a broken ledger file never stops a request
            self._resolved = None
            warnings.warn(
                f"{exc}; this kernel's ledger stays in memory "
                f"(set Ledger(path=...) or the GATEWAYKIT_LEDGER_PATH environment variable)",
                LedgerWarning,
                stacklevel=5,
            )
            return None
        self._inner = inner
        return inner

    def keeps(self, row: LedgerRow) -> bool:
        if row.offline or row.cost_source in NOT_SENT_SOURCES:
            return False
        return self._attach(create=True) is not None

    def write(self, changes: Sequence[Change], *, durable: bool = False) -> None:
        if self._inner is not None:
            self._inner.write(changes, durable=durable)

    def flush(self) -> None:
        if self._inner is not None:
            self._inner.flush()

    def read(self, *, rewind: bool = False, recent: float = 0.0) -> Optional[Changes]:
        inner = self._attach(create=False)
        return None if inner is None else inner.read(rewind=rewind, recent=recent)

    def save_budget(self, budget: Optional[float]) -> bool:
        inner = self._attach(create=False)
        if inner is None:
            self._budget = (budget,)
            return False
        return inner.save_budget(budget)

    def clear(self) -> None:
        if self._inner is not None:
            self._inner.clear()

    def close(self) -> None:
        if self._inner is not None:
            self._inner.close()

    def pickled_path(self) -> Any:
        self.flush()
        return USER_LEDGER
