"""The row book: every row a ledger knows, its jobs, and the running totals.

Plain data and the job rules: no lock (the :class:`Ledger` holds one), no file (the stores read and
write), no budget; unit-testable on its own. Details: ``docs/internals.md``.
"""

from __future__ import annotations

import math
from typing import Any, Iterator, Optional

from gatewaykit.costs.rows import (
    CACHED,
    ESTIMATED,
    JOB_KINDS,
    NOT_REPORTED,
    NOT_SENT_SOURCES,
    REPORTED,
    TERMINAL_STATES,
    LedgerRow,
    job_transition,
    valid_amount,
)
from gatewaykit.costs.settlement import PriceSource, contribution, finish, pending_estimate, settle
from gatewaykit.types.replayed import cached_note

__all__ = ["RowBook", "StoredRow"]

StoredRow = tuple[str, LedgerRow, Optional[str], Optional[str]]
"""``(uid, row, base_url, key_id)``: a row with what the ledger keeps beside it (never a key)."""


class RowBook:
    """Rows in arrival order, jobs by id, and the charged total (see the module docstring)."""

    def __init__(self, prices: Optional[PriceSource]) -> None:
        self.prices = prices
        self.rows: list[LedgerRow] = []
        self.uids: list[str] = []  # parallel to rows
        self._by_uid: dict[str, LedgerRow] = {}
        self.jobs: dict[str, LedgerRow] = {}
        self._base_urls: dict[str, str] = {}  # job id -> the gateway it runs on
        self._key_ids: dict[str, str] = {}  # job id -> the fingerprint of the key that started it
        # job id -> (status, seconds, error_message, when, estimate, cost) heard before the job's row
        self._early_updates: dict[str, tuple[str, Any, Optional[str], Optional[float], Any, Any]] = {}
        self._pending: dict[str, float] = {}  # job id -> its estimate, while it runs
        self.in_memory: set[str] = set()  # uids no store holds
        self.memory_jobs: set[str] = set()  # their job ids: updates stay in memory too
        self.spent = 0.0

    def __len__(self) -> int:
        return len(self.rows)

    # ------------------------------------------------------------------ adding

    def has_job(self, row: LedgerRow) -> bool:
        return row.kind in JOB_KINDS and row.id is not None and row.id in self.jobs

    def add(
        self,
        uid: str,
        row: LedgerRow,
        base_url: Optional[str] = None,
        key_id: Optional[str] = None,
        *,
        in_memory: bool = False,
    ) -> bool:
        """Add a row unless it (or its job) is already here; True when added."""
        if uid in self._by_uid:
            return False
        local_copy = False
        if self.has_job(row):
            assert row.id is not None
            if row.cost_source not in NOT_SENT_SOURCES:
                self._by_uid[uid] = self.jobs[row.id]  # the same job under another uid
                return False
            # The job again, answered by the cache (or a cassette): a row of its own, at $0, in the state
            # the job it repeats is in; the job itself stays the one tracked.
            original = self.jobs[row.id]
            row.status, row.seconds = original.status, original.seconds
            if row.cost_source == CACHED and original.charged:
                row.saved_cost = original.total_cost  # what the job cost (or was estimated to) when it ran
                row.note = cached_note(row.saved_cost)  # its note says so, as a cached answer's does
            local_copy = True
        settle(row, self.prices)
        self.rows.append(row)
        self.uids.append(uid)
        self._by_uid[uid] = row
        self.spent += contribution(row)
        if row.id is not None:
            if base_url:
                self._base_urls[row.id] = base_url
            if key_id:
                self._key_ids[row.id] = key_id
        if in_memory:
            self.in_memory.add(uid)
            if row.kind in JOB_KINDS and row.id is not None:
                self.memory_jobs.add(row.id)
        if row.kind in JOB_KINDS and row.id is not None and not local_copy:
            self.jobs[row.id] = row
            early = self._early_updates.pop(row.id, None)
            if early is not None:
                self.update(row.id, *early)
            elif row.status not in TERMINAL_STATES and row.status != "ok":
                estimate = pending_estimate(row, self.prices)
                if estimate is not None:
                    self._pending[row.id] = estimate
        return True

    def update(
        self,
        job_id: str,
        status: str,
        seconds: Any,
        error_message: Optional[str],
        when: Optional[float],
        estimate: Optional[float] = None,
        cost: Any = None,
    ) -> bool:
        """Apply a job's reported status; True when something worth storing changed.

        ``estimate``: what the process that saw the job finish estimated it cost (stored with the update),
        used when this book's own prices cannot price it; ``cost``: the USD reported for a completed job
        (a classroom's settled cost): the row is ``reported`` at it.
        """
        row = self.jobs.get(job_id)
        if row is None:
            if status in TERMINAL_STATES and job_id not in self._early_updates:
                self._early_updates[job_id] = (status, seconds, error_message, when, estimate, cost)
                return True
            return False
        transition = job_transition(row.status, status, missing_seconds=row.seconds is None and seconds is not None)
        if transition == "advance":
            row.status = str(status)
            return False
        if transition == "conflict":
            conflict = f"later reported {status}; kept the first state, {row.status}"
            if row.note != conflict:
                row.note = conflict
                return True
            return False
        if transition == "finish":
            self.spent -= contribution(row)
            self._pending.pop(job_id, None)
            reported = valid_amount(cost) if cost is not None and status == "completed" else None
            if reported is not None:
                row.cost_source, row.total_cost = REPORTED, reported
            finish(row, status, seconds, error_message, when, self.prices)
            stored = valid_amount(estimate)
            if row.charged and row.cost_source == NOT_REPORTED and stored is not None:
                row.cost_source, row.total_cost = ESTIMATED, stored
            self.spent += contribution(row)
            return True
        return False

    # ------------------------------------------------------------------ reading

    @property
    def pending_total(self) -> float:
        """Estimates of the jobs still running (counted by the budget until they end)."""
        return math.fsum(self._pending.values())

    def stored_row(self, uid: str, row: LedgerRow) -> StoredRow:
        """``(uid, row, base_url, key_id)``: a row as stores, merges and pickles carry it."""
        if row.id is None:
            return uid, row, None, None
        return uid, row, self._base_urls.get(row.id), self._key_ids.get(row.id)

    def items(self) -> Iterator[StoredRow]:
        """Every row with its uid, base URL and key id, in arrival order."""
        for uid, row in zip(self.uids, self.rows):
            yield self.stored_row(uid, row)

    def memory_items(self) -> list[StoredRow]:
        """The rows no store holds."""
        return [self.stored_row(uid, row) for uid, row in zip(self.uids, self.rows) if uid in self.in_memory]

    def get(self, uid: str) -> Optional[LedgerRow]:
        return self._by_uid.get(uid)

    def unfinished_jobs(self) -> list[dict[str, Any]]:
        """Jobs whose end was not seen: ``{"id", "kind", "model", "base_url", "key_id", "status", "time", "offline"}``."""
        return [
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
            for job_id, row in self.jobs.items()
            if row.status not in TERMINAL_STATES
        ]
