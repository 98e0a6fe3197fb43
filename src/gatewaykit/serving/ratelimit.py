"""Per-account request rate limits: a sliding window of request times."""

from __future__ import annotations

import math
import threading
import time
from collections import deque


class SlidingWindow:
    """At most ``requests`` admitted in any ``per_seconds`` window."""

    def __init__(self, requests: int, per_seconds: float) -> None:
        if requests < 1 or per_seconds <= 0:
            raise ValueError("rate_limit needs requests >= 1 and per_seconds > 0")
        self.requests = requests
        self.per_seconds = per_seconds
        self._times: deque[float] = deque()
        self._lock = threading.Lock()

    def admit(self, now: float | None = None) -> float | None:
        """Admit one request: None when allowed, else the seconds until the next slot frees."""
        now = time.monotonic() if now is None else now
        with self._lock:
            horizon = now - self.per_seconds
            times = self._times
            while times and times[0] <= horizon:
                times.popleft()
            if len(times) >= self.requests:
                return max(0.0, times[0] - horizon)
            times.append(now)
            return None

    @staticmethod
    def retry_after_header(wait: float) -> str:
        return str(max(1, math.ceil(wait)))
