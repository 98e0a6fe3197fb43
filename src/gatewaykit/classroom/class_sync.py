"""One class, several processes: each hears the others' changes, beats its heart, and settles the abandoned.

A thread per classroom process on a shared store (PostgreSQL). It ``LISTEN``s
on the store's channel: a change another process made (a student added, a cap,
a revocation, the kill switch) is read within milliseconds; every
``poll_seconds`` it also compares the store's change count, so a lost
notification (a dropped connection) costs at most that long. Every
``beat_seconds`` it marks this process alive, records the answers whose
settlement the database missed while it was away (the store keeps them), and
charges at their hold the held rows of processes that stopped beating (killed
mid-request). A database that goes away is retried every ``poll_seconds`` until
it is back.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from typing import Any, Optional

from gatewaykit.classroom.store import DatabaseUnavailable

__all__ = ["ClassSync"]

log = logging.getLogger("gatewaykit.classroom")


class ClassSync:
    def __init__(self, state: Any, poll_seconds: float = 0.25, beat_seconds: float = 1.0) -> None:
        self.state = state
        self.store = state.store
        self.poll_seconds = poll_seconds
        self.beat_seconds = beat_seconds
        self._stop = threading.Event()
        self._seen: Optional[int] = None
        self._thread = threading.Thread(target=self._run, name="gatewaykit-classroom-sync", daemon=True)

    def start(self) -> "ClassSync":
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)

    def _run(self) -> None:
        from gatewaykit.classroom.postgres_store import CHANNEL

        listener: Any = None
        next_beat = 0.0
        failing = False  # logged once per outage, not every poll
        while not self._stop.is_set():
            try:
                if listener is None:
                    listener = self.store.connect()
                    listener.execute(f"LISTEN {CHANNEL}")
                    self._seen = None  # whatever was missed while not listening: read again
                heard = sum(1 for _ in listener.notifies(timeout=self.poll_seconds, stop_after=1))
                changes = self.store.changes()
                if heard or changes != self._seen:
                    self._seen = changes
                    self.state.reload()
                if time.monotonic() >= next_beat:
                    next_beat = time.monotonic() + self.beat_seconds
                    self.store.heartbeat()
                    retried = self.store.retry_unsettled()  # before any sweep: at what the gateway charged
                    if retried:
                        log.warning("recorded %d answer(s) the class database missed while it was away",
                                    len(retried))
                    settled = self.store.settle_abandoned()
                    if settled:
                        log.warning("charged %d request(s) of a stopped classroom process at their hold",
                                    len(settled))
                if failing:
                    failing = False
                    log.warning("the class database %s answers again", self.store.url)
            except Exception as exc:  # noqa: BLE001 - the database away, a dropped listener: connect again
                if not failing:
                    failing = True
                    reason = exc if isinstance(exc, DatabaseUnavailable) else type(exc).__name__
                    log.warning("the class database %s cannot be reached (%s); retrying", self.store.url, reason)
                _close(listener)
                listener = None
                self._stop.wait(self.poll_seconds)
        _close(listener)


def _close(connection: Any) -> None:
    if connection is not None:
        with contextlib.suppress(Exception):
            connection.close()
