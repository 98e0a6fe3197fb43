"""The course's policy beyond caps, one object a classroom holds: requests per minute, AI-off windows,
assignments, raises that end, the audit log and (when the course chooses) the prompt log.

Everything here reads the classroom's clock (``start(clock=)``; the local
time by default), so a boundary (a window's start or end, a raise's end, an
assignment opening) takes effect with the first request after it; a background
tick (:func:`policy_tick`, every quarter second) ends raises and purges old
prompts when no request comes.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
from typing import Any, Callable, Optional

from gatewaykit.classroom.assignments import Assignment, Assignments
from gatewaykit.classroom.audit_log import AuditLog
from gatewaykit.classroom.budgets import Budgets
from gatewaykit.classroom.course_times import as_text
from gatewaykit.classroom.prompt_log import PromptLog
from gatewaykit.classroom.rate_limits import RequestRates
from gatewaykit.classroom.schedules import Schedule, Schedules
from gatewaykit.classroom.store import Store

__all__ = ["CoursePolicy", "policy_tick"]

log = logging.getLogger("gatewaykit.classroom")
_PURGE_EVERY = 300.0  # seconds of the clock between purges of the prompt log


class CoursePolicy:
    def __init__(self, store: Store, budgets: Budgets, clock: Callable[[], dt.datetime], *, rpm: Optional[int],
                 class_rpm: Optional[int], log_prompts: bool, retention_days: float) -> None:
        self.store = store
        self.budgets = budgets
        self.clock = clock
        self.rates = RequestRates(rpm, class_rpm)
        self.audit = AuditLog(store)
        self.prompts = PromptLog(store, retention_days) if log_prompts else None
        self.reload()
        self._next_purge = 0.0
        self.tick(self.now())

    def reload(self) -> None:
        """Read the windows, assignments and raises from the store (at start; in a class several processes share,
        whenever another process changed the class)."""
        self.schedules = Schedules(self.store)
        self.assignments = Assignments(self.store)
        for assignment in self.assignments.all():
            self.budgets.assignment_caps[assignment.name] = assignment.cap_nanos
        #: student -> (until, the cap before the raise: None is the class cap)
        self.raises: dict[str, tuple[float, Optional[int]]] = {
            row["student"]: (row["until"], row["previous_nanos"]) for row in self.store.cap_raise_rows()}
        self._next_due = min((until for until, _ in self.raises.values()), default=float("inf"))

    def now(self) -> float:
        return self.clock().timestamp()

    def shown(self, seconds: Optional[float]) -> Optional[str]:
        return as_text(seconds, self.clock)

    # -- what admission asks ---------------------------------------------------------------------------------
    def closed_by(self, now: float) -> Optional[Schedule]:
        return self.schedules.active(now)

    def assignment_open(self, now: float) -> Optional[Assignment]:
        return self.assignments.open_at(now)

    def tick(self, now: float) -> None:
        """End the raises whose time is up; purge the prompt log now and then."""
        if now >= self._next_due:
            for student, (until, previous) in list(self.raises.items()):
                if until <= now:
                    self.end_raise(student, restore=True)
                    self.audit.record(now, "cap raise ended", "classroom", student,
                                      cap_usd=None if previous is None else previous / 1e9)
            self._next_due = min((until for until, _ in self.raises.values()), default=float("inf"))
        if self.prompts is not None and now >= self._next_purge:
            self._next_purge = now + _PURGE_EVERY
            self.prompts.purge(now)

    # -- raises that end ---------------------------------------------------------------------------------------
    def raise_cap(self, student: str, cap_nanos: Optional[int], until: float) -> None:
        """``cap_nanos`` for ``student`` until ``until``; then the cap from before (a raise over a raise ends to
        the cap from before the first)."""
        previous = self.raises[student][1] if student in self.raises else self.budgets.caps.get(student)
        self.store.set_cap_raise(student, cap_nanos, until, previous)
        self.raises[student] = (until, previous)
        self.budgets.set_cap(student, cap_nanos)
        self._next_due = min(self._next_due, until)

    def end_raise(self, student: str, restore: bool) -> None:
        """Forget the student's raise (``restore``: their cap from before it is back; holds taken under the raise
        settle as they were taken)."""
        entry = self.raises.pop(student, None)
        if entry is None:
            return
        self.store.end_cap_raise(student, restore)
        if restore:
            self.budgets.set_cap(student, entry[1])

    def raise_until(self, student: str) -> Optional[float]:
        entry = self.raises.get(student)
        return entry[0] if entry else None


async def policy_tick(policy: CoursePolicy, seconds: float = 0.25) -> None:
    """The background tick: raises end and old prompts go even when no request comes."""
    while True:
        await asyncio.sleep(seconds)
        try:
            policy.tick(policy.now())
        except Exception as exc:  # noqa: BLE001 - a store error is retried on the next tick
            log.warning("classroom policy tick failed: %s", type(exc).__name__)
