"""Polling a job over raw HTTP until it ends, for tests that talk to the offline gateway without the client."""

from __future__ import annotations

import time
from typing import Any


def finished_job(http: Any, path: str, *, seconds: float = 180, interval: float = 0.025) -> dict:
    """GET ``path`` until the job's status is no longer queued/in_progress; its last JSON.

    AssertionError after ``seconds`` (generous: a busy machine renders slowly), naming the last status.
    """
    deadline = time.monotonic() + seconds
    while True:
        job = http.get(path).json()
        if job["status"] not in ("queued", "in_progress"):
            return job
        assert time.monotonic() < deadline, f"waited {seconds:g} s for job {path} to end; it is still {job['status']}"
        time.sleep(interval)
