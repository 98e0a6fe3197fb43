"""A job whose wait was stopped: the ledger brings its row up to date when shown or read (issue 31, item 3)."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import time
from typing import Any, Callable, Iterator

import httpx
import pytest

import gatewaykit as gk
from gateway_accounts import ACME_KEY, TEST_ACCOUNTS


@pytest.fixture(scope="module")
def paced() -> Iterator[Any]:
    """Jobs take a second or two, so one is still running when the test looks."""
    with gk.emulator.start(accounts=TEST_ACCOUNTS, time_scale=0.3, seed=0) as running:
        yield running


@contextlib.contextmanager
def a_pending_video(gateway: Any, refresh_every: float) -> Iterator[tuple[gk.Ledger, gk.Client, Any]]:
    """A memory ledger refreshing every ``refresh_every`` s, a client on ``gateway`` and a video job just created."""
    ledger = gk.Ledger(path=None)
    ledger.refresh_every = refresh_every
    with gk.Client(api_key=ACME_KEY, base_url=gateway.base_url, ledger=ledger, display=False) as client:
        yield ledger, client, client.videos.create(model="video-range", prompt="waves", duration=4)


def _status(ledger: gk.Ledger, job_id: str) -> str:
    return next(row["status"] for row in ledger.rows if row["id"] == job_id)


def test_showing_the_ledger_finishes_a_job_nobody_waited_for(paced: Any) -> None:
    """No wait(): printing the ledger polls the pending job (rate limited) until its row says completed."""
    with a_pending_video(paced, refresh_every=0.2) as (ledger, client, job):
        assert _status(ledger, job.id) in ("queued", "in_progress")
        deadline = time.monotonic() + 60
        while "completed" not in str(ledger):
            assert time.monotonic() < deadline, f"the row stayed {_status(ledger, job.id)}"
            time.sleep(0.1)
        (row,) = ledger.rows
        assert row["status"] == "completed" and row["cost_source"] == "estimated" and row["total_cost"] > 0


def test_the_refresh_is_rate_limited(paced: Any) -> None:
    """Two displays within refresh_every send one status request per pending job, not two."""
    with a_pending_video(paced, refresh_every=3600) as (ledger, client, _):
        polls: list[str] = []
        original = client._refresh_pending_jobs

        def counting(polled: set) -> None:
            polls.append("poll")
            original(polled)

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


class CountingTransport(httpx.HTTPTransport):
    """The real HTTP transport, keeping the path of every request it sends."""

    def __init__(self) -> None:
        super().__init__()
        self.paths: list[str] = []

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        self.paths.append(f"{request.method} {request.url.path}")
        return super().handle_request(request)

    def status_requests(self) -> list[str]:
        return [path for path in self.paths if path.startswith("GET /v1/videos/")]


def _interrupted(job: Any) -> None:
    """A wait stopped by the user after its first poll (Ctrl-C / Interrupt in a notebook)."""

    def stop(_: Any) -> None:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        job.wait(on_update=stop)


READS: dict[str, Callable[[gk.Ledger], Any]] = {
    "rows": lambda ledger: ledger.rows,
    "total_cost": lambda ledger: ledger.total_cost,
    "to_pandas": lambda ledger: ledger.to_pandas(),
    "history": lambda ledger: ledger.history().rows,
}


@pytest.mark.parametrize("read", list(READS))
def test_reading_the_ledger_finishes_an_interrupted_wait(paced: Any, read: str) -> None:
    """An interrupted wait, then only reads (.rows, total_cost, to_pandas(), history()): the row, the job object
    the user holds and client.jobs.pending() all come to say completed, and the estimate is counted."""
    with a_pending_video(paced, refresh_every=0.2) as (ledger, client, job):
        _interrupted(job)
        assert _status(ledger, job.id) in ("queued", "in_progress")
        (pending,) = client.jobs.pending()
        assert pending is job  # the object the user holds, not a copy that could disagree with it
        deadline = time.monotonic() + 60
        while job.status != "completed":
            assert time.monotonic() < deadline, f"the job object stayed {job.status}"
            READS[read](ledger)
            time.sleep(0.1)
        assert _status(ledger, job.id) == "completed" and client.jobs.pending() == []
        assert ledger.total_cost > 0


def test_an_async_clients_rows_are_refreshed_inside_its_event_loop(paced: Any) -> None:
    """AsyncClient: a wait cut short (timeout), then ledger.rows read synchronously inside the running loop."""
    ledger = gk.Ledger(path=None)
    ledger.refresh_every = 0.2

    async def main() -> None:
        async with gk.AsyncClient(api_key=ACME_KEY, base_url=paced.base_url, ledger=ledger, display=False) as client:
            job = await client.videos.create(model="video-range", prompt="waves", duration=4)
            with pytest.raises(gk.JobTimeoutError):
                await job.wait(timeout=0.1)
            assert _status(ledger, job.id) in ("queued", "in_progress")
            deadline = time.monotonic() + 60
            while _status(ledger, job.id) != "completed":
                assert time.monotonic() < deadline, f"the row stayed {_status(ledger, job.id)}"
                await asyncio.sleep(0.1)
            assert job.status == "completed" and await client.jobs.pending() == []
            assert ledger.total_cost > 0

    asyncio.run(main())


def test_one_status_request_per_pending_job_and_none_when_nothing_is_pending(paced: Any) -> None:
    """Every read within refresh_every shares one round (one GET per pending job); once nothing is pending, none."""
    ledger = gk.Ledger(path=None)
    ledger.refresh_every = 3600
    counting = CountingTransport()
    with gk.Client(api_key=ACME_KEY, base_url=paced.base_url, ledger=ledger, display=False,
                   http_transport=counting) as client:  # fmt: skip
        first = client.videos.create(model="video-range", prompt="waves", duration=8)
        second = client.videos.create(model="video-range", prompt="sand", duration=8)
        ledger._pending_refresh().last = float("-inf")  # as if the last round were long ago
        ledger.rows, ledger.total_cost, ledger.to_pandas(), str(ledger), ledger.history().rows, ledger.summary()
        assert sorted(counting.status_requests()) == sorted(f"GET /v1/videos/{job.id}" for job in (first, second))
        first.wait(), second.wait()
        ledger.refresh_every = 0
        counting.paths.clear()
        ledger.rows, ledger.total_cost, str(ledger)
        assert counting.paths == []  # nothing pending: nothing asked


def test_rows_of_another_gateway_are_not_asked_about(paced: Any, emulator: Any) -> None:
    """A job of another gateway in the same ledger (its client gone): this client never asks about it."""
    ledger = gk.Ledger(path=None)
    ledger.refresh_every = 0
    other = gk.Client(api_key=ACME_KEY, base_url=emulator.base_url, ledger=ledger, display=False)
    elsewhere = other.videos.create(model="video-range", prompt="far away", duration=4)
    other.close()
    del other
    gc.collect()
    counting = CountingTransport()
    with gk.Client(api_key=ACME_KEY, base_url=paced.base_url, ledger=ledger, display=False,
                   http_transport=counting) as client:  # fmt: skip
        here = client.videos.create(model="video-range", prompt="close by", duration=4)
        ledger.rows
        assert counting.status_requests() == [f"GET /v1/videos/{here.id}"]
        assert _status(ledger, elsewhere.id) in ("queued", "in_progress")


def test_a_gateway_that_is_gone_leaves_the_row_quietly(paced: Any) -> None:
    """The job's gateway stopped: reading the ledger neither fails nor waits long; the row stays pending."""
    ledger = gk.Ledger(path=None)
    ledger.refresh_every = 0
    with gk.emulator.start(accounts=TEST_ACCOUNTS, time_scale=0.3, seed=0) as short_lived:
        client = gk.Client(api_key=ACME_KEY, base_url=short_lived.base_url, ledger=ledger, display=False)
        job = client.videos.create(model="video-range", prompt="waves", duration=4)
    started = time.monotonic()
    (row,) = ledger.rows
    assert row["status"] in ("queued", "in_progress") and ledger.total_cost == 0
    assert time.monotonic() - started < 10  # one refused connection, no retries
    assert job.status in ("queued", "in_progress")
    client.close()


def test_reading_the_ledger_inside_a_refresh_starts_no_other(paced: Any) -> None:
    """A refresher that reads the ledger (as reporting a job may) is not called again from inside itself."""
    with a_pending_video(paced, refresh_every=0) as (ledger, client, _):
        calls: list[int] = []

        def reading(polled: set) -> None:
            calls.append(1)
            ledger.rows, ledger.total_cost

        ledger.refresh_jobs_with(reading)
        ledger.rows
        assert calls == [1]


def test_a_closed_clients_rows_are_left_quietly(paced: Any, caplog: pytest.LogCaptureFixture) -> None:
    """After `with Client(...)` ends, reading the ledger asks nothing through the closed client and logs nothing."""
    with a_pending_video(paced, refresh_every=0) as (ledger, _, job):
        pass  # the client closes here, its job still pending
    with caplog.at_level("DEBUG", logger="gatewaykit"):
        assert _status(ledger, job.id) in ("queued", "in_progress") and ledger.total_cost == 0
    assert not [record for record in caplog.records if record.levelname in ("WARNING", "ERROR")], caplog.text


def test_the_librarys_own_reads_ask_the_gateway_nothing(paced: Any) -> None:
    """compare, evaluate and the playground settle cells from rows_as_recorded(): no status request is added
    to their runs, while a user's read of .rows still refreshes."""
    with a_pending_video(paced, refresh_every=0) as (ledger, client, job):
        polls: list[str] = []
        ledger._pending_refresh()._refreshers.clear()
        ledger.refresh_jobs_with(lambda polled: polls.append("poll"))
        (row,) = ledger.rows_as_recorded()
        assert row["id"] == job.id and polls == []
        ledger.rows
        assert polls == ["poll"]
