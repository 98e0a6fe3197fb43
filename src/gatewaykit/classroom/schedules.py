"""Scheduled AI-off windows: from ``start`` to ``end`` every request is refused (503 ``class_paused`` with the
reason), as the kill switch does, with no one at the keyboard.

The windows are kept in the store (a restart keeps them) and in memory; every
request asks :meth:`Schedules.active` with the classroom's clock, so a
boundary takes effect with the first request after it. A manual ``resume()``
during a window overrides that window (it stays open until its end; the next
window closes the class again); the override is kept, and said in the answer.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional

from gatewaykit.classroom.store import Store

__all__ = ["Schedule", "Schedules"]


@dataclass
class Schedule:
    id: int
    start: float
    end: float
    reason: Optional[str]
    overridden: bool = False

    def state(self, now: float) -> str:
        if now >= self.end:
            return "past"
        if now < self.start:
            return "upcoming"
        return "overridden" if self.overridden else "active"


class Schedules:
    def __init__(self, store: Store) -> None:
        self.store = store
        self._windows = [Schedule(r["id"], r["start"], r["end"], r["reason"], bool(r["overridden"]))
                         for r in store.schedule_rows()]

    def add(self, start: float, end: float, reason: Optional[str], now: float) -> Schedule:
        if end <= start:
            raise ValueError("end must be after start")
        if end <= now:
            raise ValueError("this window has already ended: give an end in the future")
        window = Schedule(self.store.add_schedule(start, end, reason), start, end, reason)
        self._windows = sorted([*self._windows, window], key=lambda w: (w.start, w.id))
        return window

    @property
    def any(self) -> bool:
        """Whether any window is kept (none: admission asks nothing of the clock for them)."""
        return bool(self._windows)

    def active(self, now: float) -> Optional[Schedule]:
        """The window the class is closed by at ``now`` (not overridden), or None."""
        for window in self._windows:
            if window.start <= now < window.end and not window.overridden:
                return window
        return None

    def override(self, now: float) -> Optional[Schedule]:
        """A manual resume: the window active at ``now`` is overridden (and returned), if there is one."""
        window = self.active(now)
        if window is not None:
            self.store.override_schedule(window.id)
            window.overridden = True
        return window

    def all(self) -> list[Schedule]:
        return list(self._windows)

    def row(self, window: Schedule, now: float, shown: Any) -> dict[str, Any]:
        """What ``/_classroom/schedules`` answers for a window (``shown``: seconds -> ISO text)."""
        return {"id": window.id, "start": shown(window.start), "end": shown(window.end), "reason": window.reason,
                "state": window.state(now)}
