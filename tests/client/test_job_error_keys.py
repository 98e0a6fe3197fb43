"""A key a gateway echoes in a failed job's error never shows or is stored (issue 19, item 12).

Before the fix, the error text reached repr(job), the job's text and HTML
display and the ledger database unscrubbed (only exceptions were scrubbed).
The 'gateway' is an httpx.MockTransport: a hostile server at transport level.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import httpx
import pytest

import gatewaykit as gk
from gatewaykit.presentation import rich_bundle

KEY = "sk-bf-echoed-secret-0123456789"
QUEUED = {"id": "video_k1", "object": "video", "model": "video-range", "status": "queued", "created_at": 1}
FAILED = {**QUEUED, "status": "failed", "error": {"message": f"upstream rejected key {KEY}", "detail": [f"Bearer {KEY}"]}}


def _echoing_gateway(request: httpx.Request) -> httpx.Response:
    if request.method == "POST":
        return httpx.Response(200, json=QUEUED)
    return httpx.Response(200, json=FAILED)


@pytest.fixture
def failed_job(tmp_path: Path) -> tuple[gk.VideoJob, Path]:
    database = tmp_path / "ledger.sqlite"
    ledger = gk.Ledger(path=database)
    client = gk.Client(api_key=KEY, base_url="http://gw.test", ledger=ledger, validate=False,
                       http_transport=httpx.MockTransport(_echoing_gateway))  # fmt: skip
    with client:
        job = client.videos.create(model="video-range", prompt="waves", duration=2)
        with pytest.raises(gk.JobFailedError) as failure:
            job.wait(timeout=10, poll_interval=0.01)
    assert KEY not in str(failure.value)
    ledger.flush()  # rows are written behind the caller; flush() puts them on disk
    return job, database


def test_failed_job_repr_and_text_hide_the_key(failed_job: tuple[gk.VideoJob, Path]) -> None:
    """repr(job), str(job) and its error fields show sk-*** instead of the echoed key."""
    job, _ = failed_job
    shown = [repr(job), str(job), job.error.message, json.dumps(job.model_dump())]
    assert all(KEY not in text for text in shown) and "sk-***" in job.error.message


def test_failed_job_html_display_hides_the_key(failed_job: tuple[gk.VideoJob, Path]) -> None:
    """The job's rich display (HTML and text) does not contain the key."""
    job, _ = failed_job
    bundle = rich_bundle(job)
    assert bundle and all(KEY not in str(value) for value in bundle.values())


def test_ledger_database_never_stores_the_echoed_key(failed_job: tuple[gk.VideoJob, Path]) -> None:
    """No table of the persisted ledger holds the key after the failed job was recorded."""
    _, database = failed_job
    with sqlite3.connect(database) as connection:
        dump = "\n".join(connection.iterdump())
    assert "upstream rejected key sk-***" in dump and KEY not in dump
