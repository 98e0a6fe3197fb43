"""Pending job rows brought up to date when a ledger is shown or read (a wait that was interrupted).

A ledger records a job's end when some client sees it (``job.wait()``, ``job.refresh()``). A wait stopped
half-way leaves the row ``queued`` / ``in_progress`` long after the job has finished. Clients that made
jobs register a refresher with the ledger (:meth:`~gatewaykit.costs.ledger.Ledger.refresh_jobs_with`):
a callable ``refresher(polled)`` that polls each of the ledger's unfinished jobs it can reach once (one
status request per job, skipping and then adding to ``polled``, the set of job ids already asked about in
this round) and reports what it finds. The ledger calls them, at most every :data:`REFRESH_EVERY`
seconds and only while a row is pending, before it is displayed, printed or read (``rows``, the totals,
``to_pandas()``, ``history()``). A refresh never starts another (reading the ledger while reporting).
Refreshers are held weakly (a ledger never keeps a client alive) and their failures are logged, never
raised into a display.
"""

from __future__ import annotations

import logging
import threading
import time
import weakref
from typing import Any, Callable

__all__ = ["REFRESH_EVERY", "PendingRefresh"]

REFRESH_EVERY = 10.0  # seconds between two refreshes of one ledger's pending jobs
logger = logging.getLogger("gatewaykit")


class PendingRefresh:
    """The registered refreshers and when they last ran."""

    def __init__(self) -> None:
        self._refreshers: list[Any] = []  # weak references (WeakMethod for bound methods)
        self._lock = threading.Lock()
        self.last = float("-inf")
        self.every = REFRESH_EVERY
        self._running = 0  # the thread running the refreshers (reading the ledger there must not start another)

    def add(self, refresher: Callable[[set[str]], Any]) -> None:
        ref: Any = weakref.WeakMethod(refresher) if hasattr(refresher, "__self__") else (lambda: refresher)
        with self._lock:
            if not any(known() == refresher for known in self._refreshers):
                self._refreshers.append(ref)

    def due(self) -> bool:
        return bool(self._refreshers) and time.monotonic() - self.last >= self.every

    def run(self) -> None:
        """Call every live refresher (once per :attr:`every` seconds at most; never from inside a refresh)."""
        with self._lock:
            if self._running or not self.due():
                return
            self.last = time.monotonic()
            self._running = threading.get_ident()
            live = [(ref, ref()) for ref in self._refreshers]
            self._refreshers = [ref for ref, refresher in live if refresher is not None]
        polled: set[str] = set()  # job ids asked about in this round: two clients of one key ask once
        try:
            for _, refresher in live:
                if refresher is None:
                    continue
                try:
                    refresher(polled)
                except Exception:  # noqa: BLE001 - a stale row is better than a display that fails
                    logger.exception("gatewaykit: refreshing the ledger's pending jobs failed")
        finally:
            self._running = 0
