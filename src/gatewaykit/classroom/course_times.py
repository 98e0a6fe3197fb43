"""Times a teacher gives the classroom (a schedule, an assignment, the end of a raise): a ``datetime`` or an ISO
8601 string, timezone-aware; a naive one is in the classroom's local zone (where its server runs, or the zone of
the clock it was given). Kept as POSIX seconds; shown in the classroom's zone."""

from __future__ import annotations

import datetime as dt
from typing import Any, Callable, Optional

__all__ = ["as_text", "local_time", "seconds_of"]


def seconds_of(value: Any, clock: Callable[[], dt.datetime], name: str) -> float:
    """``value`` (datetime or ISO 8601 text) as POSIX seconds; ValueError naming ``name`` when it is neither."""
    when = value
    if isinstance(value, str):
        try:
            when = dt.datetime.fromisoformat(value.strip())
        except ValueError:
            raise ValueError(f"{name} must be a date and time such as '2026-12-14T09:00' (ISO 8601, optionally with "
                             f"a zone: '2026-12-14T09:00+01:00'); got {value!r:.60}") from None
    if isinstance(when, dt.date) and not isinstance(when, dt.datetime):
        when = dt.datetime.combine(when, dt.time(0))
    if not isinstance(when, dt.datetime):
        raise ValueError(f"{name} must be a datetime or an ISO 8601 string; got {type(value).__name__}")
    if when.tzinfo is None or when.utcoffset() is None:
        when = _in_local_zone(when, clock)
    return when.timestamp()


def _in_local_zone(naive: dt.datetime, clock: Callable[[], dt.datetime]) -> dt.datetime:
    from gatewaykit.classroom.windows import local_now

    if clock is local_now:  # the system's zone, its offset on that date (summer time or not)
        return naive.astimezone()
    return naive.replace(tzinfo=clock().tzinfo)


def local_time(seconds: float, clock: Callable[[], dt.datetime]) -> dt.datetime:
    """POSIX seconds as an aware datetime in the classroom's zone."""
    from gatewaykit.classroom.windows import local_now

    if clock is local_now:
        return dt.datetime.fromtimestamp(seconds).astimezone()
    return dt.datetime.fromtimestamp(seconds, tz=clock().tzinfo)


def as_text(seconds: Optional[float], clock: Callable[[], dt.datetime]) -> Optional[str]:
    """ISO 8601 to the second, with the zone's offset (None stays None)."""
    return None if seconds is None else local_time(seconds, clock).isoformat(timespec="seconds")
