"""Cancelling a video that had already completed: the ledger keeps it charged (issue 14, defect 8)."""

from __future__ import annotations

import math
import time
from typing import Any, Iterator

import httpx
import pytest

import gatewaykit as gk

from .own_gateway import OWN_ADMIN, one_account, settled_balance

KEY = "sk-bf-test-cancelbilling-0000000009"
PRICES = {"video-range": {"per_second": 0.08, "per_second_audio": 0.12}}  # the offline catalog's rates


@pytest.fixture(scope="module")
def gateway() -> Iterator[Any]:
    with gk.emulator.start(accounts=one_account("cancels", KEY), time_scale=0, admin_token=OWN_ADMIN) as running:
        yield running


def _completed_on_the_server(gateway: Any, job_id: str) -> None:
    """Poll with plain httpx (not the client, so the client never sees the job end)."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        answer = httpx.get(f"{gateway.base_url}/v1/videos/{job_id}", headers={"Authorization": f"Bearer {KEY}"})
        if answer.json()["status"] == "completed":
            return
        time.sleep(0.1)
    raise AssertionError("the video did not complete")


@pytest.mark.parametrize("how", ["job.cancel", "videos.delete"])
def test_cancel_of_a_completed_video_stays_charged(gateway: Any, how: str) -> None:
    """DELETE of a completed (never polled) video answers 'deleted'; the ledger row is completed, charged, reconciled."""
    ledger = gk.Ledger(path=None, prices=PRICES)
    before = settled_balance(gateway.base_url, "cancels")
    with gk.Client(api_key=KEY, base_url=gateway.base_url, ledger=ledger) as client:
        job = client.videos.create(model="video-range", prompt="a quiet harbour", duration=2, generate_audio=False)
        _completed_on_the_server(gateway, job.id)
        answer = job.cancel() if how == "job.cancel" else client.videos.delete(job.id)
    change = before - settled_balance(gateway.base_url, "cancels")
    (row,) = ledger.rows
    assert answer.status == "deleted" and change > 0
    assert (row["status"], row["charged"]) == ("completed", True)
    assert ledger.pending_jobs() == [] and math.isclose(ledger.total_cost, change, abs_tol=1e-9)
