"""Job operations through the client: wait, content (the redirect), save (streamed), cancel, timeout."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterator

import httpx
import pytest

import gatewaykit as gk

from .conftest import FAST_RETRIES, RecordingLedger


def test_wait_calls_on_update_and_completes(client: gk.Client) -> None:
    """wait(on_update=) reports every poll and returns the completed job, updated in place."""
    job = client.videos.create(model="video-range", prompt="clouds", duration=2)
    seen: list[str] = []
    assert job.wait(timeout=60, on_update=lambda j: seen.append(j.status)) is job
    assert job.status == "completed" and seen[-1] == "completed"


def test_content_follows_the_redirect_to_mp4(client: gk.Client) -> None:
    """content() follows the 302 and returns the MP4 bytes."""
    job = client.videos.create(model="video-range", prompt="sea", duration=2).wait(timeout=60)
    assert job.content()[4:8] == b"ftyp"


def test_save_streams_to_a_file_in_a_directory(client: gk.Client, tmp_path: Path) -> None:
    """save(dir) writes <id>.mp4 and leaves no partial file behind."""
    job = client.videos.create(model="video-range", prompt="sand", duration=2).wait(timeout=60)
    path = job.save(tmp_path)
    assert path == tmp_path / f"{job.id}.mp4" and path.read_bytes()[4:8] == b"ftyp"
    assert [p.name for p in tmp_path.iterdir()] == [path.name]


def test_failed_video_raises_job_failed(client: gk.Client) -> None:
    """A video job ending failed raises JobFailedError from wait()."""
    job = client.videos.create(model="video-range", prompt="x", duration=2, extra_headers={"X-Emulator-Fault": "job-fail"})
    with pytest.raises(gk.JobFailedError):
        job.wait(timeout=60)


@pytest.fixture(scope="module")
def slow_gateway() -> Iterator[Any]:
    """A gateway at realistic speed, so jobs are still running when we look."""
    from gatewaykit import emulator as gateway

    with gateway.start(time_scale=1.0) as running:
        yield running


@pytest.fixture
def slow_client(slow_gateway: Any, sink: RecordingLedger) -> Iterator[gk.Client]:
    with gk.Client(api_key=slow_gateway.api_key, base_url=slow_gateway.base_url, ledger=sink, retry_policy=FAST_RETRIES) as made:
        yield made


def test_wait_timeout_leaves_the_job_resumable(slow_client: gk.Client) -> None:
    """wait(timeout=) raises JobTimeoutError naming how to resume; the job is still retrievable."""
    job = slow_client.videos.create(model="video-tiers", prompt="a long pan", duration=8, resolution="1080p")
    with pytest.raises(gk.JobTimeoutError, match=r"retrieve\(") as caught:
        job.wait(timeout=0.3)
    assert caught.value.job.id == job.id
    assert slow_client.videos.retrieve(job.id).status in ("queued", "in_progress")
    job.cancel()


def test_cancel_running_job(slow_client: gk.Client, sink: RecordingLedger) -> None:
    """cancel() on a running video job ends it 'cancelled' and reports it to the ledger."""
    job = slow_client.videos.create(model="video-tiers", prompt="a slow zoom", duration=8)
    assert job.cancel().status == "cancelled"
    assert (job.id, "cancelled") in [(job_id, seen["status"]) for job_id, seen in sink.jobs]


def test_redirect_to_another_host_drops_the_key(sink: RecordingLedger, tmp_path: Path) -> None:
    """Following the content redirect to a different origin sends no Authorization header."""
    seen: list[tuple[str, str | None]] = []

    def answer(request: httpx.Request) -> httpx.Response:
        seen.append((request.url.host, request.headers.get("authorization")))
        if request.url.host == "gw.test":
            return httpx.Response(302, headers={"location": "https://cdn.test/v.mp4?sig=1"})
        return httpx.Response(200, content=b"....ftypmp42")

    with gk.Client(api_key="sk-bf-x", base_url="http://gw.test", ledger=sink, http_transport=httpx.MockTransport(answer)) as client:
        job = gk.VideoJob(id="video_1", status="completed")
        job._client = client
        assert job.content() == b"....ftypmp42"
    assert [(host, auth is not None) for host, auth in seen] == [("gw.test", True), ("cdn.test", False)]


def test_redirect_to_another_host_drops_an_authorization_default_header(sink: RecordingLedger) -> None:
    """A key passed as default_headers={"authorization": ...} (any case) is not sent to another origin either."""
    seen: list[tuple[str, list[str]]] = []

    def answer(request: httpx.Request) -> httpx.Response:
        seen.append((request.url.host, request.headers.get_list("authorization")))
        if request.url.host == "gw.test":
            return httpx.Response(302, headers={"location": "https://cdn.test/v.mp4?sig=1"})
        return httpx.Response(200, content=b"....ftypmp42")

    headers = {"authorization": "Bearer sk-bf-proxy-key"}
    with gk.Client(api_key="sk-bf-x", base_url="http://gw.test", ledger=sink, default_headers=headers,
                   http_transport=httpx.MockTransport(answer)) as client:
        job = gk.VideoJob(id="video_1", status="completed")
        job._client = client
        assert job.content() == b"....ftypmp42"
    assert seen[0][0] == "gw.test" and "Bearer sk-bf-proxy-key" in seen[0][1]
    assert seen[1] == ("cdn.test", [])


def test_unbound_job_says_how_to_get_a_bound_one() -> None:
    """A job built by hand explains that it needs a client."""
    with pytest.raises(RuntimeError, match="retrieve"):
        gk.VideoJob(id="x", status="queued").refresh()
