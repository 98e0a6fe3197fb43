"""Waiting for a condition in a test, never for a fixed time (a busy machine only makes it slower)."""

from __future__ import annotations

import time
from typing import Any, Callable


def wait_for(condition: Callable[[], Any], what: str, timeout: float = 60.0, *, every: float = 0.05) -> None:
    """Return once ``condition()`` is true; fail saying ``what`` was awaited after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"gave up after {timeout:.0f} s waiting for {what}")
        time.sleep(every)
