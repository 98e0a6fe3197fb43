"""Sharing a ledger between processes: pending jobs, merging, pickling, JSONL export.

:class:`LedgerSharing` is mixed into :class:`gatewaykit.costs.ledger.Ledger`.
A pickled ledger is its path (the same database or file, reopened where it is
unpickled; the default ledger stays the default ledger) plus the rows it keeps
only in memory; ``merge`` adds another ledger's rows this one lacks (by their
unique id) and ends jobs the other saw end, so ledgers from several worker
processes join without duplicates.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, Optional, Union

from typing_extensions import Self

from gatewaykit.costs.journal import Journal
from gatewaykit.costs.location import USER_LEDGER
from gatewaykit.costs.rows import JOB_KINDS, TERMINAL_STATES, LedgerRow
from gatewaykit.costs.storage import LedgerStorage, StoredRow, journal_event, update_event

if TYPE_CHECKING:
    from gatewaykit.costs.ledger import Ledger

__all__ = ["LedgerSharing"]


class LedgerSharing(LedgerStorage):
    """Pending jobs, ``merge``, ``merged``, pickling and JSONL export (a mixin of ``Ledger``)."""

    def pending_jobs(self, base_url: Optional[str] = None, key_id: Optional[str] = None) -> list[dict[str, Any]]:
        """Jobs whose end this ledger has not seen (oldest first): what a restart resumes.

        Each is ``{"id", "kind", "model", "base_url", "key_id", "status", "time", "offline"}``
        (``base_url`` and ``key_id`` are None when the client did not say).
        ``base_url=`` keeps the jobs started on that gateway; ``key_id=`` (the
        fingerprint of a key, see ``gatewaykit/client/key_fingerprint.py``) keeps
        the jobs that key started, plus the rows recorded before ledgers kept key
        ids (``key_id`` None), which may be any key's.
        """
        wanted = base_url.rstrip("/") if base_url else None
        with self._lock:
            self._sync()
            out: list[dict[str, Any]] = [
                {
                    "id": job_id,
                    "kind": row.kind,
                    "model": row.model,
                    "base_url": self._base_urls.get(job_id),
                    "key_id": self._key_ids.get(job_id),
                    "status": row.status,
                    "time": row.time,
                    "offline": row.offline,
                }
                for job_id, row in self._jobs.items()
                if row.status not in TERMINAL_STATES
            ]
        if wanted is not None:
            out = [job for job in out if (job["base_url"] or "").rstrip("/") == wanted]
        if key_id is not None:
            out = [job for job in out if job["key_id"] in (None, key_id)]
        return sorted(out, key=lambda job: job["time"])

    def _snapshot(self) -> list[StoredRow]:
        """Copies of every row with its id, base URL and key id (after a live read)."""
        with self._lock:
            self._sync()
            return [
                self._stored_row(uid, LedgerRow.from_json(row.to_json())) for uid, row in zip(self._uids, self._rows)
            ]

    def merge(self, *others: "Ledger") -> Self:
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
                for item in items:
                    self._merge_row(item)
                self._flush()
        self._maybe_warn()
        return self

    def _merge_row(self, item: StoredRow) -> None:
        uid, row, base_url, key_id = item
        mine = self._by_uid.get(uid)
        if mine is None and row.kind in JOB_KINDS and row.id is not None:
            mine = self._jobs.get(row.id)
        if mine is None:
            stored = self._stores(row)
            if self._take_row(uid, row, base_url, key_id, stored=stored) and stored:
                self._write("row", item)
            return
        if mine.kind in JOB_KINDS and mine.id is not None and row.status in TERMINAL_STATES:
            when = row.finished_time
            if self._apply_update(mine.id, row.status, row.seconds, row.error_message, when):
                if mine.id not in self._local_jobs:
                    self._write("update", update_event(mine.id, row.status, row.seconds, row.error_message, when))

    @classmethod
    def merged(cls, ledgers: Iterable["Ledger"], **options: Any) -> Self:
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
                file.write(json.dumps(journal_event("row", item), separators=(",", ":")) + "\n")
        os.replace(partial, target)

    @classmethod
    def from_jsonl(cls, path: Union[str, os.PathLike], **options: Any) -> Self:
        """A ledger (in memory unless ``path=`` is given) holding the rows of a JSONL file."""
        if not Path(path).exists():
            raise FileNotFoundError(f"no ledger file at {path}")
        options.setdefault("path", None)
        ledger = cls(**options)
        with ledger._lock:
            ledger._load_journal(Journal(path, fsync=False), stored=False)
        return ledger._store_all()

    def _store_all(self) -> Self:
        """Write the in-memory rows to this ledger's file (after ``from_jsonl(..., path=...)``)."""
        with self._lock:
            for item in self._memory_rows():
                uid, row = item[0], item[1]
                if self._stores(row):
                    self._memory_uids.discard(uid)
                    self._local_jobs.discard(row.id)
                    self._write("row", item)
            self._flush()
        return self

    def __reduce__(self) -> tuple[Any, tuple[dict[str, Any]]]:
        with self._lock:
            self._sync()
            self._reopen()
            if self._db is not None:
                where: Any = str(self._db.path)
            elif self._journal is not None:
                where = os.path.abspath(self._journal.path)
            else:
                where = USER_LEDGER if self._lazy else None
            state = {
                "path": where,
                "prices": dict(self._prices._prices),
                "fsync": self._fsync,
                "offline_in_memory": self._offline_in_memory,
                "budget": self._budget if self._db is None else None,
                "rows": [(uid, row.to_json(), base_url, key_id) for uid, row, base_url, key_id in self._memory_rows()],
            }
        return (_unpickle_ledger, (state,))


def _unpickle_ledger(state: dict[str, Any]) -> "Ledger":
    """A pickled ledger: the same database or file, plus the rows it kept in memory."""
    from gatewaykit.costs.ledger import Ledger

    ledger = Ledger(path=state["path"], prices=state["prices"], fsync=state["fsync"], budget=state["budget"])
    with ledger._lock:
        ledger._offline_in_memory = state["offline_in_memory"]
        for uid, data, base_url, *key_id in state["rows"]:  # pickled before key ids: three items
            ledger._take_row(uid, LedgerRow.from_json(data), base_url, *key_id, stored=False)
    return ledger
