"""Where a ledger's rows go and come from: a JSONL journal, a SQLite database, memory.

:class:`LedgerStorage` is the part of :class:`gatewaykit.costs.ledger.Ledger`
that reads and writes files (mixed into it; every method here runs under the
ledger's lock unless it takes the lock itself). Rows carry a stable unique id
(``uid``), so a row read twice (our own write read back, a merge, a retry) is
added once. Writes are queued and flushed at once, or at the end of
``batch()``; a database write that cannot get the lock is retried with the
next one (see :mod:`gatewaykit.costs.database`).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import warnings
from typing import Any, Iterator, Optional

from typing_extensions import Self

from gatewaykit.costs.journal import Journal, LedgerWarning
from gatewaykit.costs.ledger_state import LedgerState
from gatewaykit.costs.location import USER_LEDGER, is_journal, user_ledger_path
from gatewaykit.costs.rows import JOB_KINDS, REPLAYED, LedgerRow

__all__ = ["LedgerStorage", "STATUS_ALIASES", "StoredRow", "journal_event", "update_event"]

StoredRow = tuple[str, LedgerRow, Optional[str], Optional[str]]
"""``(uid, row, base_url, key_id)``: a row with what the ledger keeps beside it (never a key)."""

_INHERITED: list[Any] = []  # database connections a forked child inherited (kept, unused)

# DELETE of an unfinished video answers "cancelled or deleted" (spec); both mean never charged.
STATUS_ALIASES = {"canceled": "cancelled", "deleted": "cancelled"}


class LedgerStorage(LedgerState):
    """Reading and writing the ledger's journal or database (a mixin of ``Ledger``)."""

    def _replay(self) -> None:
        assert self._journal is not None
        with self._lock:
            kept = self._memory_rows()
            self._reset()
            self._load_journal(self._journal, stored=True)
            for uid, row, base_url, key_id in kept:
                self._take_row(uid, row, base_url, key_id, stored=False)
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
                self._take_row(uid, row, event.get("base_url"), event.get("key_id"), stored=stored)
            elif isinstance(event.get("id"), str):
                self._apply_update(
                    event["id"],
                    str(event.get("status")),
                    event.get("seconds"),
                    event.get("error_message"),
                    float(event.get("time") or 0.0) or None,
                )

    def _take_row(
        self, uid: str, row: LedgerRow, base_url: Optional[str], key_id: Optional[str] = None, *, stored: bool
    ) -> bool:
        """Add a row from a file, a database or another ledger unless it is already here."""
        if uid in self._by_uid:
            return False
        if row.kind in JOB_KINDS and row.id is not None and row.id in self._jobs:
            self._by_uid[uid] = self._jobs[row.id]  # the same job under another id
            return False
        self._add_row(row, uid)
        if base_url and row.id is not None:
            self._base_urls[row.id] = base_url
        if key_id and row.id is not None:
            self._key_ids[row.id] = key_id
        if not stored:
            self._forget_on_disk(uid, row)
        return True

    def _memory_only(self) -> bool:
        """True when this ledger has no file and never will (``path=None``): every row is in memory."""
        return self._db is None and self._journal is None and self._closed is None and not self._lazy

    def _forget_on_disk(self, uid: str, row: LedgerRow) -> None:
        if self._memory_only():
            return  # no need to remember which rows: all of them
        self._memory_uids.add(uid)
        if row.kind in JOB_KINDS and row.id is not None:
            self._local_jobs.add(row.id)

    def _memory_rows(self) -> list[StoredRow]:
        """The rows in no file (all of them for a memory-only ledger), with their ids, base URLs and key ids."""
        everything = self._memory_only()
        return [
            self._stored_row(uid, row)
            for uid, row in zip(self._uids, self._rows)
            if everything or uid in self._memory_uids
        ]

    def _stored_row(self, uid: str, row: LedgerRow) -> StoredRow:
        """``(uid, row, base_url, key_id)``: a row as files, merges and pickles carry it."""
        if row.id is None:
            return uid, row, None, None
        return uid, row, self._base_urls.get(row.id), self._key_ids.get(row.id)

    @contextlib.contextmanager
    def batch(self) -> Iterator[Self]:
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
        """Whether ``row`` goes to a file: the default ledger keeps offline and replayed rows in memory."""
        if self._offline_in_memory and (row.offline or row.cost_source == REPLAYED):
            return False
        if self._lazy:
            self._attach(create=True)
        return self._db is not None or self._journal is not None or self._closed is not None

    def _reopen(self) -> None:
        """Open the database again after ``close()``, or in a forked child (never share a connection)."""
        db = self._db
        if db is not None and db.pid != os.getpid():
            _INHERITED.append(db)  # the parent's connection: never used, never closed here
            self._db, self._closed = None, db.path
        if self._closed is not None and self._db is None:
            path, self._closed = self._closed, None
            self._open_database(path)

    def _open_database(self, path: Any) -> None:
        from gatewaykit.costs.database import LedgerDatabase

        self._db = LedgerDatabase(path, fsync=bool(self._fsync))
        if self._budget_given:
            self._db.set_budget(self._budget)
        self._sync(force=True)

    _default_path: Any  # Ledger.__init__ sets USER_LEDGER; the path once the first attach resolved it

    def _attach(self, *, create: bool) -> None:
        """Open the per-user database (under the lock); on failure stay in memory, once warned."""
        if self._db is not None or self._journal is not None or self._closed is not None:
            return
        if self._default_path is USER_LEDGER:  # resolved once, at the first attach: never switch databases
            self._default_path = user_ledger_path()
        path = self._default_path
        if path is None:
            self._lazy = False
            return
        if not create and not path.exists():
            return
        try:
            if is_journal(path):
                self._journal = Journal(path, fsync=self._fsync is not False)
                self._load_journal(self._journal, stored=True)
            else:
                self._open_database(path)
        except Exception as exc:  # noqa: BLE001 - a broken ledger file never stops a request
            self._db, self._journal, self._lazy = None, None, False
            warnings.warn(
                f"{exc}; this kernel's ledger stays in memory "
                f"(set Ledger(path=...) or the GATEWAYKIT_LEDGER_PATH environment variable)",
                LedgerWarning,
                stacklevel=4,
            )

    def _sync(self, *, force: bool = False) -> None:
        """Apply what other processes committed to the database since the last read (under the lock)."""
        self._reopen()
        if self._lazy:
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
        for uid, row, base_url, key_id in rows:
            self._take_row(uid, row, base_url, key_id, stored=True)
        for event in updates:
            status = STATUS_ALIASES.get(event["status"], event["status"])
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
        self._reopen()
        if self._journal is not None:
            self._persist([journal_event(what, item) for what, item in batched])
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

    def reload(self) -> None:
        """Re-read the file or database from the start (JSONL: to see other kernels' rows)."""
        if self._journal is not None:
            self._replay()
            return
        with self._lock:
            self._reopen()
            if self._db is None and not self._lazy:
                raise ValueError("this ledger has no path= to reload from")
            kept = self._memory_rows()
            self._reset()
            for uid, row, base_url, key_id in kept:
                self._take_row(uid, row, base_url, key_id, stored=False)
            if self._db is not None:
                self._db.rewind()
            self._sync(force=True)
        self._maybe_warn()


def update_event(job_id: str, status: str, seconds: Any, error_message: Optional[str], when: Any) -> dict:
    event = {"id": job_id, "status": status, "time": when}
    if seconds is not None:
        event["seconds"] = seconds
    if error_message is not None:
        event["error_message"] = error_message
    return event


def journal_event(what: str, item: Any) -> dict[str, Any]:
    if what == "update":
        return {"event": "update", **item}
    uid, row, base_url, key_id = item
    event = {"event": "row", "uid": uid, **row.to_json()}
    if base_url:
        event["base_url"] = base_url
    if key_id:
        event["key_id"] = key_id
    return event
