"""The ledger's file: JSON Lines, appended durably, safe with several writers.

Every line is one event (a row, a job update), written with one ``os.write`` on an ``O_APPEND``
descriptor under an exclusive ``flock``, then ``fsync``-ed; rows are never rewritten. Loading skips a
torn line with a :class:`LedgerWarning`. :class:`JournalStore` is the ledger's store for such a file.
Details: ``docs/internals.md``.
"""

from __future__ import annotations

import hashlib
import json
import os
import warnings
from pathlib import Path
from typing import Any, Iterator, Optional, Sequence, Union

from gatewaykit.costs.private_files import PRIVATE_FILE, make_private_folder
from gatewaykit.costs.rows import LedgerRow
from gatewaykit.costs.stores import Changes

try:  # POSIX; on Windows appends rely on O_APPEND alone.
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

__all__ = ["Journal", "JournalStore", "LedgerWarning", "journal_event", "read_changes"]


class LedgerWarning(UserWarning):
    """Something in the ledger's file was skipped (a torn or unreadable line)."""


def _last_byte(fd: int, size: int) -> bytes:
    if hasattr(os, "pread"):
        return os.pread(fd, 1, size - 1)
    os.lseek(fd, size - 1, os.SEEK_SET)  # pragma: no cover - Windows
    return os.read(fd, 1)  # pragma: no cover


class Journal:
    """Appends events to, and reads them back from, one JSONL file."""

    def __init__(self, path: Union[str, os.PathLike], *, fsync: bool = True) -> None:
        self.path = Path(path)
        self.fsync = fsync
        make_private_folder(self.path.parent)

    def append(self, events: list[dict[str, Any]]) -> None:
        """Write events as whole lines, atomically with respect to other writers."""
        data = "".join(json.dumps(e, separators=(",", ":")) + "\n" for e in events)
        payload = data.encode("utf-8")
        fd = os.open(self.path, os.O_RDWR | os.O_APPEND | os.O_CREAT, PRIVATE_FILE)
        try:
            if fcntl is not None:
                fcntl.flock(fd, fcntl.LOCK_EX)
            try:
                size = os.fstat(fd).st_size
                if size and _last_byte(fd, size) != b"\n":
                    payload = b"\n" + payload  # end a line torn by an earlier crash
                view = memoryview(payload)
                while view:
                    written = os.write(fd, view)
                    view = view[written:]
                if self.fsync:
                    os.fsync(fd)
            finally:
                if fcntl is not None:
                    fcntl.flock(fd, fcntl.LOCK_UN)
        finally:
            os.close(fd)

    def read(self) -> Iterator[dict[str, Any]]:
        """Every readable event in file order; torn or foreign lines are skipped with a warning."""
        try:
            raw = self.path.read_bytes()
        except FileNotFoundError:
            return
        lines = raw.split(b"\n")
        for number, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            try:
                event = json.loads(line)
            except (ValueError, UnicodeDecodeError):
                last = number == len(lines)
                what = "torn last line (an interrupted write)" if last else "unreadable line"
                warnings.warn(
                    f"ledger file {self.path}: skipped {what} {number}",
                    LedgerWarning,
                    stacklevel=3,
                )
                continue
            if isinstance(event, dict) and event.get("event") in ("row", "update"):
                yield event
            else:
                warnings.warn(
                    f"ledger file {self.path}: skipped line {number} (not a ledger event)",
                    LedgerWarning,
                    stacklevel=3,
                )

    def truncate(self) -> None:
        fd = os.open(self.path, os.O_WRONLY | os.O_CREAT, 0o644)
        try:
            if fcntl is not None:
                fcntl.flock(fd, fcntl.LOCK_EX)
            os.ftruncate(fd, 0)
            if self.fsync:
                os.fsync(fd)
        finally:
            os.close(fd)  # closing releases the lock


def journal_event(what: str, item: Any) -> dict[str, Any]:
    """One change (see :data:`gatewaykit.costs.stores.Change`) as a journal line."""
    if what == "update":
        return {"event": "update", **item}
    uid, row, base_url, key_id = item
    event = {"event": "row", "uid": uid, **row.to_json()}
    if base_url:
        event["base_url"] = base_url
    if key_id:
        event["key_id"] = key_id
    return event


def read_changes(journal: Journal) -> tuple[list, list]:
    """Every row (``(uid, row, base_url, key_id)``) and job update a journal holds, in order."""
    rows: list = []
    updates: list = []
    seen: dict[str, int] = {}
    for event in journal.read():
        if event.get("event") == "row":
            try:
                row = LedgerRow.from_json(event)
            except TypeError:
                warnings.warn(f"ledger file {journal.path}: skipped a malformed row", LedgerWarning, stacklevel=4)
                continue
            uid = event.get("uid")
            if not isinstance(uid, str):  # a file written before rows had ids: a stable one
                digest = hashlib.sha1(json.dumps(event, sort_keys=True).encode()).hexdigest()
                seen[digest] = seen.get(digest, -1) + 1
                uid = f"{digest}-{seen[digest]}"
            rows.append((uid, row, event.get("base_url"), event.get("key_id")))
        elif isinstance(event.get("id"), str):
            updates.append(
                {
                    "id": event["id"],
                    "status": str(event.get("status")),
                    "seconds": event.get("seconds"),
                    "error_message": event.get("error_message"),
                    "time": float(event.get("time") or 0.0) or None,
                    "estimate": event.get("estimate"),
                    "cost": event.get("cost"),
                }
            )
    return rows, updates


class JournalStore:
    """A ledger's JSON Lines file (see the module docstring)."""

    persistent = True
    scoped_to_session = False

    def __init__(self, path: Union[str, os.PathLike], *, fsync: bool = True) -> None:
        self._journal = Journal(path, fsync=fsync)
        self._read = False

    @property
    def path(self) -> Path:
        return self._journal.path

    def keeps(self, row: LedgerRow) -> bool:
        return True

    def write(self, changes: Sequence[tuple[str, Any]], *, durable: bool = False) -> None:
        try:
            self._journal.append([journal_event(what, item) for what, item in changes])
        except OSError as exc:  # never lose the user's result over the ledger file
            warnings.warn(f"could not write the ledger file {self.path}: {exc}", LedgerWarning, stacklevel=4)

    def flush(self) -> None:
        pass  # every write is on disk when it returns

    def read(self, *, rewind: bool = False, recent: float = 0.0) -> Optional[Changes]:
        if self._read and not rewind:
            return None
        self._read = True
        rows, updates = read_changes(self._journal)
        return Changes(rows, updates, reset=True)

    def save_budget(self, budget: Optional[float]) -> bool:
        return False

    def clear(self) -> None:
        self._journal.truncate()

    def close(self) -> None:
        pass

    def pickled_path(self) -> Any:
        return os.path.abspath(self.path)
