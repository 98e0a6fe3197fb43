"""Where a ledger's rows are kept: one store object per place, behind one small interface.

A :class:`LedgerStore` writes the changes a ledger makes and reads back what was stored (for a
database, live: other processes' rows). Memory, a JSONL journal, a SQLite database and the per-user
database are stores; the ledger never asks which kind it has. The table of stores: ``docs/internals.md``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional, Protocol, Sequence, Union

from gatewaykit.costs.book import StoredRow
from gatewaykit.costs.rows import LedgerRow

__all__ = ["HOT_PATH_READ", "Change", "Changes", "LedgerStore", "MemoryStore", "NOT_STORED", "update_event"]

HOT_PATH_READ = 0.05
"""Seconds the hot path (the budget check before every request, job updates) goes without
reading what other processes committed: their spending counts at most that late."""

Change = tuple[str, Union[StoredRow, dict]]
"""``("row", (uid, row, base_url, key_id))`` or ``("update", {"id", "status", "seconds", "error_message", "time"})``."""


class _NotStored:
    def __repr__(self) -> str:
        return "NOT_STORED"


NOT_STORED: Any = _NotStored()
"""A store's budget when it keeps none (memory, JSONL): the ledger's own applies."""


@dataclass
class Changes:
    """What a store read: rows and job updates (in order), and the budget it keeps."""

    rows: list[StoredRow] = field(default_factory=list)
    updates: list[dict] = field(default_factory=list)
    budget: Any = NOT_STORED
    reset: bool = False  # True: these are every stored row (a first read or a rewind)


class LedgerStore(Protocol):
    """One place rows are kept. Called under the ledger's lock, from any thread."""

    @property
    def path(self) -> Optional[Path]:
        """The file rows are kept in (None: memory only)."""

    @property
    def persistent(self) -> bool:
        """False when nothing ever leaves memory (then no row needs marking as memory-only)."""

    @property
    def scoped_to_session(self) -> bool:
        """True when the file holds every session's rows and the ledger's views show this session's."""

    def keeps(self, row: LedgerRow) -> bool:
        """Whether ``row`` is written here (may open the file, on first use)."""

    def write(self, changes: Sequence[Change], *, durable: bool = False) -> None:
        """Store rows and updates (possibly behind the caller: see ``flush``).

        ``durable``: on disk when this returns (a job's creation: a process killed right
        after ``create()`` returned still leaves the job for the next one to resume).
        """

    def flush(self) -> None:
        """Make every change written so far durable (and report a failure as a warning, here)."""

    def read(self, *, rewind: bool = False, recent: float = 0.0) -> Optional[Changes]:
        """What was stored since the last read (every row with ``rewind``); None when nothing changed.

        ``recent``: None when the last read is younger than that many seconds (the hot path's reads).
        """

    def save_budget(self, budget: Optional[float]) -> bool:
        """Store the budget for every process sharing the file; False when this store keeps none."""

    def clear(self) -> None:
        """Empty the file."""

    def close(self) -> None:
        """Release the file (a later use reopens it)."""

    def pickled_path(self) -> Any:
        """The ``path=`` a pickled ledger reopens (None, a path, or ``USER_LEDGER``)."""


class MemoryStore:
    """``path=None``: rows live in the ledger's book only."""

    path = None
    persistent = False
    scoped_to_session = False

    def keeps(self, row: LedgerRow) -> bool:
        return False

    def write(self, changes: Sequence[Change], *, durable: bool = False) -> None:
        pass

    def flush(self) -> None:
        pass

    def read(self, *, rewind: bool = False, recent: float = 0.0) -> Optional[Changes]:
        if rewind:
            raise ValueError("this ledger has no path= to reload from")
        return None

    def save_budget(self, budget: Optional[float]) -> bool:
        return False

    def clear(self) -> None:
        pass

    def close(self) -> None:
        pass

    def pickled_path(self) -> Any:
        return None


def update_event(
    job_id: str,
    status: str,
    seconds: Any,
    error_message: Optional[str],
    when: Any,
    estimate: Optional[float] = None,
    cost: Optional[float] = None,
) -> dict:
    """A job update as stores keep it; ``estimate``: the finished job's estimated USD (no amount was reported),
    so every process reading the store counts it, not only the one whose price source made it; ``cost``: the
    USD reported for the job (``usage.cost.total_cost`` on its view, as a classroom answers)."""
    event = {"id": job_id, "status": status, "time": when}
    if estimate is not None:
        event["estimate"] = estimate
    if cost is not None:
        event["cost"] = cost
    if seconds is not None:
        event["seconds"] = seconds
    if error_message is not None:
        event["error_message"] = error_message
    return event
