"""Polling a job over raw HTTP until it ends, for tests that talk to the offline gateway without the client."""

from __future__ import annotations

import time
from typing import Any


def finished_job(http: Any, path: str, *, tries: int = 800, interval: float = 0.025) -> dict:
    """GET ``path`` until the job's status is no longer queued/in_progress; its last JSON (AssertionError after ``tries``)."""
    for _ in range(tries):
        job = http.get(path).json()
        if job["status"] not in ("queued", "in_progress"):
            return job
        time.sleep(interval)
    raise AssertionError(f"job {path} did not finish")
