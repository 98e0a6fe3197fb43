"""client.videos against the offline gateway: create, retrieve, delete, image-to-video."""

from __future__ import annotations

import io
from typing import Any

import pytest
from PIL import Image

import gatewaykit as gk

from .conftest import RecordingLedger


def test_create_returns_a_bound_queued_job(client: gk.Client, sink: RecordingLedger) -> None:
    """create returns a VideoJob with its billed size and seconds; the ledger gets the create status."""
    job = client.videos.create(model="video-tiers", prompt="waves at dusk", resolution="480p", duration=4)
    assert isinstance(job, gk.VideoJob) and job.id and job.seconds == "4"
    assert [(r.kind, r.status, r.id) for r in sink.records] == [("video", job.status, job.id)]


def test_retrieve_sees_the_job(client: gk.Client) -> None:
    """retrieve(id) returns the same job, completed once it is done."""
    job = client.videos.create(model="video-range", prompt="a comet", duration=2)
    again = client.videos.retrieve(job.id).wait(timeout=60)
    assert (again.id, again.status) == (job.id, "completed") and again.videos[0].url


def test_unknown_id_is_not_found(client: gk.Client) -> None:
    """An unknown video id raises NotFoundError with param video_id."""
    with pytest.raises(gk.NotFoundError) as caught:
        client.videos.retrieve("video_does_not_exist")
    assert (caught.value.code, caught.value.param) == ("video_not_found", "video_id")


def test_other_keys_job_is_invisible(client: gk.Client, make_client: Any, keys: Any) -> None:
    """A job created by one key is not found with another key."""
    job = client.videos.create(model="video-range", prompt="a kite", duration=2)
    with pytest.raises(gk.NotFoundError):
        make_client(keys.acme_second).videos.retrieve(job.id)


def test_image_to_video_accepts_a_pil_image(client: gk.Client) -> None:
    """input_reference takes a PIL image (sent as a data: URI)."""
    job = client.videos.create(
        model="video-tiers", prompt="make it move", input_reference=Image.new("RGB", (64, 36), (0, 90, 200)), duration=4
    )
    assert job.wait(timeout=60).status == "completed"


def test_image_to_video_accepts_bytes(client: gk.Client) -> None:
    """input_reference takes raw image bytes."""
    buffer = io.BytesIO()
    Image.new("RGB", (64, 36)).save(buffer, format="JPEG")
    assert client.videos.create(model="video-tiers", prompt="zoom", input_reference=buffer.getvalue()).id


def test_delete_reports_the_end_state(client: gk.Client, sink: RecordingLedger) -> None:
    """delete(id) returns the job in its end state and tells the ledger."""
    job = client.videos.create(model="video-range", prompt="rain", duration=2)
    gone = client.videos.delete(job.id)
    assert gone.status in ("cancelled", "deleted")
    assert (job.id, gone.status) in [(job_id, seen["status"]) for job_id, seen in sink.jobs]


def test_lost_create_answer_is_not_resent(client: gk.Client, sink: RecordingLedger) -> None:
    """A dropped connection on videos.create raises, explaining the job may exist; sent once."""
    with pytest.raises(gk.APIConnectionError, match="may have created the job"):
        client.videos.create(model="video-range", prompt="storm", duration=2, extra_headers={"X-Emulator-Fault": "disconnect"})
    assert [(r.status, r.attempts) for r in sink.records] == [("error", 1)]
