"""Budget windows: ``total`` (one cap for the whole course), ``daily`` (resets at local midnight),
``weekly`` (resets Monday 00:00 local time) and ``monthly`` (resets on the first of the month, local midnight).

Each window has a key (``total``, ``2026-11-26``, ``week of 2026-11-23``, ``month of 2026-11``). Spend is
counted per window; a request is charged to the window it was held in, even when
it settles after the reset, so no window's spend passes the cap. The clock is a
callable returning an aware ``datetime`` (tests pass a fake one).
"""

from __future__ import annotations

import datetime as dt
from typing import Callable, Optional

__all__ = ["WINDOWS", "Window", "local_now"]

WINDOWS = ("total", "daily", "weekly", "monthly")
Clock = Callable[[], dt.datetime]


def local_now() -> dt.datetime:
    return dt.datetime.now().astimezone()


class Window:
    def __init__(self, kind: str = "total", clock: Optional[Clock] = None) -> None:
        if kind not in WINDOWS:
            raise ValueError(f"window must be one of {', '.join(WINDOWS)}; got {kind!r}")
        self.kind = kind
        self.clock = clock or local_now

    def key(self, when: Optional[dt.datetime] = None) -> str:
        """The key of the window ``when`` (default: now) falls in."""
        if self.kind == "total":
            return "total"
        day = (when or self.clock()).date()
        if self.kind == "daily":
            return day.isoformat()
        if self.kind == "monthly":
            return f"month of {day:%Y-%m}"
        return f"week of {(day - dt.timedelta(days=day.weekday())).isoformat()}"

    def resets_at(self, when: Optional[dt.datetime] = None) -> Optional[dt.datetime]:
        """When the window ``when`` (default: now) falls in ends and the cap starts again; None for ``total``."""
        if self.kind == "total":
            return None
        now = when or self.clock()
        if self.kind == "monthly":  # local midnight on the first of the next month
            first = dt.date(now.year + now.month // 12, now.month % 12 + 1, 1)
            return dt.datetime.combine(first, dt.time(0), tzinfo=now.tzinfo)
        midnight = now.replace(hour=0, minute=0, second=0, microsecond=0)
        days = 1 if self.kind == "daily" else 7 - now.weekday()
        # local midnight that many days on (a calendar date, so a change of clocks in between is kept)
        date = (midnight + dt.timedelta(days=days)).date()
        return dt.datetime.combine(date, dt.time(0), tzinfo=now.tzinfo)

    def resets(self) -> str:
        """When the cap resets, in words for a refusal (empty for ``total``)."""
        return {"total": "", "daily": "; it resets at midnight", "weekly": "; it resets on Monday",
                "monthly": "; it resets on the first of the month"}[self.kind]

    def noun(self) -> str:
        return {"total": "class budget", "daily": "daily class budget", "weekly": "weekly class budget",
                "monthly": "monthly class budget"}[self.kind]
