"""Assignments: while one is open (``start`` <= now < ``end``), each request counts against the student's cap on
it as well as their class cap, and may be limited to the assignment's models.

Assignments never overlap (one is refused at creation when its time meets
another's), so a request counts against one at most: the one open when its
hold is taken. The per-student spend on each is kept in the store
(``assignment_totals``); the holds are :class:`~gatewaykit.classroom.budgets.Budgets`'.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable, Optional

from gatewaykit.classroom.store import Store

__all__ = ["Assignment", "Assignments"]


@dataclass(frozen=True)
class Assignment:
    name: str
    cap_nanos: int
    start: float
    end: Optional[float]  # None: open for the rest of the course
    models: Optional[frozenset[str]]

    def open_at(self, now: float) -> bool:
        return self.start <= now and (self.end is None or now < self.end)

    def overlaps(self, start: float, end: Optional[float]) -> bool:
        mine = math.inf if self.end is None else self.end
        theirs = math.inf if end is None else end
        return start < mine and self.start < theirs


class Assignments:
    def __init__(self, store: Store) -> None:
        self.store = store
        self._all = [Assignment(r["name"], r["cap_nanos"], r["start"], r["end"],
                                None if r["models"] is None else frozenset(r["models"]))
                     for r in store.assignment_rows()]

    def add(self, name: str, cap_nanos: int, start: float, end: Optional[float], models: Optional[list[str]],
            shown: Callable[[Optional[float]], Any]) -> Assignment:
        """A new assignment; ValueError (saying what to change) for a name in use or times that overlap another."""
        if end is not None and end <= start:
            raise ValueError(f"assignment {name!r}: end must be after start")
        for other in self._all:
            if other.name == name:
                raise ValueError(f"There is already an assignment {name!r}; give this one another name.")
            if other.overlaps(start, end):
                until = f"until {shown(other.end)}" if other.end is not None else "with no end"
                raise ValueError(f"Assignment {name!r} would overlap {other.name!r} (from {shown(other.start)} "
                                 f"{until}): a request counts against one assignment at most, so give times that "
                                 "do not overlap.")
        self.store.add_assignment(name, cap_nanos, start, end, models)
        assignment = Assignment(name, cap_nanos, start, end, None if models is None else frozenset(models))
        self._all = sorted([*self._all, assignment], key=lambda a: (a.start, a.name))
        return assignment

    @property
    def any(self) -> bool:
        return bool(self._all)

    def open_at(self, now: float) -> Optional[Assignment]:
        for assignment in self._all:
            if assignment.open_at(now):
                return assignment
        return None

    def get(self, name: str) -> Optional[Assignment]:
        return next((a for a in self._all if a.name == name), None)

    def all(self) -> list[Assignment]:
        return list(self._all)
