"""client.music against the offline gateway: create and retrieve songs."""

from __future__ import annotations

import pytest

import gatewaykit as gk

from .conftest import RecordingLedger

LYRICS = "[Verse]\nSunlight on the harbour\n[Chorus]\nSing it back to me"


def test_create_and_wait_gives_an_mp3(client: gk.Client, sink: RecordingLedger) -> None:
    """A music job completes with an audio link; its content is MP3 bytes; the ledger sees completion."""
    job = client.music.create(model="music-song", prompt="bright folk, acoustic guitar", lyrics_prompt=LYRICS)
    assert isinstance(job, gk.MusicJob) and job.status == "in_progress"
    job.wait(timeout=60)
    data = job.content()
    assert data[:3] == b"ID3" or data[:2] in (b"\xff\xfb", b"\xff\xf3", b"\xff\xf2")
    assert (job.id, "completed") in [(job_id, seen["status"]) for job_id, seen in sink.jobs]


def test_retrieve_unknown_is_not_found(client: gk.Client) -> None:
    """An unknown audio id raises NotFoundError with param audio_id."""
    with pytest.raises(gk.NotFoundError) as caught:
        client.music.retrieve("audio_missing")
    assert caught.value.param == "audio_id"


def test_failed_job_raises_with_the_gateway_message(client: gk.Client, sink: RecordingLedger) -> None:
    """The job-fail fault makes wait() raise JobFailedError carrying the job; the ledger sees 'failed'."""
    job = client.music.create(model="music-song", prompt="lofi", lyrics_prompt=LYRICS, extra_headers={"X-Emulator-Fault": "job-fail"})
    with pytest.raises(gk.JobFailedError) as caught:
        job.wait(timeout=60)
    assert caught.value.job.status == "failed" and caught.value.message
    assert [seen["status"] for job_id, seen in sink.jobs if job_id == job.id] == ["failed"]
