"""A job whose wait was stopped: the ledger brings its row up to date when shown (issue 31, item 3)."""

from __future__ import annotations

import time
from typing import Any, Iterator

import pytest

import gatewaykit as gk
from gateway_accounts import ACME_KEY, TEST_ACCOUNTS


@pytest.fixture(scope="module")
def paced() -> Iterator[Any]:
    """Jobs take a second or two, so one is still running when the test looks."""
    with gk.emulator.start(accounts=TEST_ACCOUNTS, time_scale=0.3, seed=0) as running:
        yield running


def _status(ledger: gk.Ledger, job_id: str) -> str:
    return next(row["status"] for row in ledger.rows if row["id"] == job_id)


def test_showing_the_ledger_finishes_a_job_nobody_waited_for(paced: Any) -> None:
    """No wait(): printing the ledger polls the pending job (rate limited) until its row says completed."""
    ledger = gk.Ledger(path=None)
    ledger.refresh_every = 0.2
    with gk.Client(api_key=ACME_KEY, base_url=paced.base_url, ledger=ledger, display=False) as client:
        job = client.videos.create(model="video-range", prompt="waves", duration=4)
        assert _status(ledger, job.id) in ("queued", "in_progress")
        deadline = time.monotonic() + 60
        while "completed" not in str(ledger):
            assert time.monotonic() < deadline, f"the row stayed {_status(ledger, job.id)}"
            time.sleep(0.1)
        (row,) = ledger.rows
        assert row["status"] == "completed" and row["cost_source"] == "estimated" and row["total_cost"] > 0


def test_the_refresh_is_rate_limited(paced: Any) -> None:
    """Two displays within refresh_every send one status request per pending job, not two."""
    ledger = gk.Ledger(path=None)
    ledger.refresh_every = 3600
    with gk.Client(api_key=ACME_KEY, base_url=paced.base_url, ledger=ledger, display=False) as client:
        client.videos.create(model="video-range", prompt="waves", duration=4)
        polls: list[str] = []
        original = client._refresh_pending_jobs

        def counting() -> None:
            polls.append("poll")
            original()

        client._refresh_pending_jobs = counting  # type: ignore[method-assign]
        ledger._pending_refresh()._refreshers.clear()
        ledger.refresh_jobs_with(counting)
        str(ledger), ledger.to_pandas(), ledger._repr_mimebundle_()
        assert polls == ["poll"]


def test_pending_and_the_job_object_agree(paced: Any) -> None:
    """A job seen in_progress: client.jobs.pending() says in_progress too, not the queued of its creation."""
    ledger = gk.Ledger(path=None)
    with gk.Client(api_key=ACME_KEY, base_url=paced.base_url, ledger=ledger, display=False) as client:
        job = client.videos.create(model="video-range", prompt="a long sunset", duration=8)
        deadline = time.monotonic() + 30
        while job.refresh().status == "queued":
            assert time.monotonic() < deadline
            time.sleep(0.05)
        assert job.status == "in_progress"  # an 8 s clip at time scale 0.3 is still being made
        (pending,) = client.jobs.pending()
        assert pending.status == job.status == "in_progress"
