"""Watching which functions an in-process offline gateway's threads are running, to test where work happens.

A :class:`WorkerWatch` samples every thread's stack (:func:`current_frames`) every few milliseconds
and records, for each watched function, how many threads were inside it at once at most. Tests use it
to state facts that do not depend on the machine's speed: "no thread ever wrote this answer", "at most
two threads drew this account's images at once".
"""

from __future__ import annotations

import gc
import sys
import threading
from types import FrameType
from typing import Any


def current_frames() -> dict[int, FrameType]:
    """``sys._current_frames()`` with the garbage collector held off while it runs.

    CPython 3.11 builds that dict holding the runtime's thread-state lock. An allocation in it can start a
    collection, whose ``gc.callbacks`` (hypothesis registers one in any worker that ran a hypothesis test)
    are Python code that may hand the GIL to another thread; if that thread then starts a thread, it waits
    for the lock while holding the GIL, and neither ever moves again (seen once: a worker hung in
    ``Thread.start`` under load). With no collection during the call, no Python code runs under the lock.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        return sys._current_frames()
    finally:
        if enabled:
            gc.enable()


class WorkerWatch:
    """``WorkerWatch(("routes/images.py", "_render"), ...)``: peak threads inside each (file suffix, function)."""

    def __init__(self, *functions: tuple[str, str], interval: float = 0.002) -> None:
        self.functions = functions
        self.interval = interval
        self.peak = {name: 0 for _, name in functions}
        self.samples = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="worker-watch", daemon=True)

    def _inside(self, frame: FrameType | None) -> set[str]:
        found = set()
        while frame is not None:
            code = frame.f_code
            for suffix, name in self.functions:
                if code.co_name == name and code.co_filename.replace("\\", "/").endswith(suffix):
                    found.add(name)
            frame = frame.f_back
        return found

    def _run(self) -> None:
        me = threading.get_ident()
        while not self._stop.is_set():
            counts = {name: 0 for _, name in self.functions}
            for ident, frame in current_frames().items():
                if ident != me:
                    for name in self._inside(frame):
                        counts[name] += 1
            for name, count in counts.items():
                self.peak[name] = max(self.peak[name], count)
            self.samples += 1
            self._stop.wait(self.interval)

    def __enter__(self) -> WorkerWatch:
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._stop.set()
        self._thread.join(10)
