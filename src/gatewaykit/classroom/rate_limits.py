"""Requests per minute: each student's (``rpm=``) and the whole class's (``class_rpm=``), so a deadline rush
cannot spend the teacher's own limit at the gateway.

One sliding minute per student and one for the class, on the classroom's
clock. A request is admitted only when both have room, and then counts in
both; a refused one counts in neither. Only requests that would be sent to the
gateway and billed are counted here (chats, images, new jobs): polling a job,
fetching its file and reading the catalog are not.
"""

from __future__ import annotations

import threading
from collections import deque
from typing import Optional

__all__ = ["MINUTE", "RequestRates"]

MINUTE = 60.0


class RequestRates:
    def __init__(self, per_student: Optional[int], per_class: Optional[int]) -> None:
        self.per_student = per_student
        self.per_class = per_class
        self._students: dict[str, deque[float]] = {}
        self._class: deque[float] = deque()
        self._lock = threading.Lock()

    @property
    def limited(self) -> bool:
        return self.per_student is not None or self.per_class is not None

    def admit(self, student: str, now: float) -> Optional[tuple[str, float]]:
        """None when the request may go (it is counted); else ``("student" | "class", seconds until a slot frees)``."""
        horizon = now - MINUTE
        with self._lock:
            mine = self._students.setdefault(student, deque())
            for times in (mine, self._class):
                while times and times[0] <= horizon:
                    times.popleft()
            if self.per_student is not None and len(mine) >= self.per_student:
                return "student", max(0.0, mine[-self.per_student] - horizon)
            if self.per_class is not None and len(self._class) >= self.per_class:
                return "class", max(0.0, self._class[-self.per_class] - horizon)
            if self.per_student is not None:
                mine.append(now)
            if self.per_class is not None:
                self._class.append(now)
            return None
