"""Replaying a recorded cassette with no gateway, no network and no key (the class on Binder)."""

from __future__ import annotations

import json
import warnings
from typing import Any

import pytest

import gatewaykit as gk

from .conftest import CHAT, LYRICS, STREAM, Recorded, png, poll_fast


def test_replay_client_needs_no_key_and_starts_no_gateway(recorded: Recorded, no_key: None) -> None:
    """A replay client builds with no key anywhere: no offline-gateway warning, not offline, a placeholder URL."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        client = gk.Client(cassette=recorded.path, cassette_mode="replay")
    with client:
        assert not client.offline and client.base_url == "http://replay.cassette.invalid"
        assert (client.cassette.path, client.cassette.mode) == (recorded.path, "replay")


def test_chat_replays_the_same_answer(recorded: Recorded, replay: gk.Client) -> None:
    """A recorded chat comes back with the same id, text and usage, marked as replayed (what its display says)."""
    answer = replay.chat.completions.create(model="chat-mini", messages=CHAT)
    assert answer.model_dump() == {**recorded.chat.model_dump(), "gatewaykit_cassette": "replayed"}


def test_stream_replays_as_a_stream_with_the_same_chunks(recorded: Recorded, replay: gk.Client) -> None:
    """A recorded stream replays chunk for chunk."""
    stream = replay.chat.completions.create(model="chat-mini", messages=STREAM, stream=True)
    assert isinstance(stream, gk.ChatStream)
    assert [chunk.model_dump() for chunk in stream] == recorded.stream_chunks


def test_images_replay_the_same_pixels(recorded: Recorded, replay: gk.Client) -> None:
    """A generated image and a multipart edit (matched by its file's digest) replay byte for byte."""
    generated = replay.images.generate(model="image-pixels", prompt="a red fox", width=256, height=256)
    edited = replay.images.edit(model="image-tiers", prompt="make it night", image=png())
    assert (generated.data[0].b64_json, edited.data[0].b64_json) == (recorded.image_b64, recorded.edit_b64)


def test_edit_with_another_file_is_not_matched(replay: gk.Client) -> None:
    """The same edit with different image bytes is a different request."""
    with pytest.raises(gk.CassetteMissError):
        replay.images.edit(model="image-tiers", prompt="make it night", image=png((0, 0, 255)))


def test_video_replays_as_a_job_progress_then_completion(recorded: Recorded, replay: gk.Client) -> None:
    """The job is created queued, polls replay the recorded statuses in order, and ends completed."""
    job = replay.videos.create(model="video-range", prompt="waves at dusk", duration=2)
    statuses: list[str] = []
    poll_fast(job, statuses)
    assert job.id == recorded.video_id and statuses == recorded.video_statuses
    assert statuses[-1] == "completed" and "in_progress" in statuses[:-1]


def test_video_content_replays_through_the_redirect(recorded: Recorded, replay: gk.Client) -> None:
    """content() follows the recorded 302 and returns the recorded MP4 bytes."""
    job = replay.videos.create(model="video-range", prompt="waves at dusk", duration=2)
    poll_fast(job, [])
    assert job.content() == recorded.video_bytes and recorded.video_bytes[4:8] == b"ftyp"


def test_music_job_replays_to_the_same_song(recorded: Recorded, replay: gk.Client) -> None:
    """A music job replays to completion and its content is the recorded MP3."""
    song = replay.music.create(model="music-song", prompt="bright folk", lyrics_prompt=LYRICS)
    song.wait(timeout=120, poll_interval=0.01)
    assert (song.id, song.status, song.content()) == (recorded.music_id, "completed", recorded.music_bytes)


def test_replayed_ledger_rows_are_labelled_and_cost_nothing(recorded: Recorded, replay: gk.Client) -> None:
    """Every replayed row says cost_source='replayed', is not charged, and the ledger's spend stays 0."""
    replay.chat.completions.create(model="chat-mini", messages=CHAT)
    list(replay.chat.completions.create(model="chat-mini", messages=STREAM, stream=True))
    job = replay.videos.create(model="video-range", prompt="waves at dusk", duration=2)
    poll_fast(job, [])
    ledger = replay.ledger
    rows = ledger.rows
    assert [(r["kind"], r["cost_source"], r["charged"], r["total_cost"]) for r in rows] == [
        ("chat", "replayed", False, 0.0),
        ("chat.stream", "replayed", False, 0.0),
        ("video", "replayed", False, 0.0),
    ]
    assert rows[2]["status"] == "completed" and recorded.ledger_cost > 0
    assert ledger.total_cost == 0.0 and ledger.reported_cost == 0.0
    assert sum(group["total_cost"] for group in ledger.summary(by="kind").to_dict("records")) == 0.0


def test_unrecorded_request_fails_clearly_in_replay(recorded: Recorded, replay: gk.Client) -> None:
    """A prompt the cassette lacks raises CassetteMissError naming the request and how to record it."""
    with pytest.raises(gk.CassetteMissError) as caught:
        replay.chat.completions.create(model="chat-mini", messages=[{"role": "user", "content": "never recorded"}])
    message = str(caught.value)
    assert "client.chat.completions.create(...)" in message and "never recorded" in message
    assert str(recorded.path) in message and "cassette_mode='record'" in message
    assert isinstance(caught.value, gk.GatewayError)


def test_unrecorded_request_leaves_no_ledger_row(replay: gk.Client) -> None:
    """A request the cassette lacks was never sent nor answered: the ledger gets no row for it."""
    with pytest.raises(gk.CassetteMissError):
        replay.chat.completions.create(model="chat-mini", messages=[{"role": "user", "content": "never recorded"}])
    assert replay.ledger.rows == []


def test_key_is_nowhere_in_the_cassette_files(recorded: Recorded) -> None:
    """Neither the key nor an Authorization header is in the JSONL or any media file."""
    files = [recorded.path, *sorted(recorded.path.with_name(recorded.path.name + ".media").iterdir())]
    assert len(files) >= 3  # the JSONL, the MP4 and the MP3
    for path in files:
        data = path.read_bytes()
        assert recorded.key.encode() not in data and b"Bearer" not in data
    assert b"authorization" not in recorded.path.read_bytes().lower()


def test_cassette_stores_media_beside_and_redirects_relative(recorded: Recorded) -> None:
    """Job media is a file named by its SHA-256 beside the cassette; the gateway's 302 is kept relative."""
    entries = [json.loads(line) for line in recorded.path.read_text().splitlines()]
    media = [e["response"]["media"] for e in entries if "media" in e["response"]]
    assert len(media) == 2 and all(len(digest) == 64 for digest in media)
    redirects = [dict(e["response"]["headers"])["location"] for e in entries if e["response"]["status"] == 302]
    assert redirects and all(location.startswith("/") for location in redirects)
    streams = [e["response"]["chunks"] for e in entries if e["response"].get("stream")]
    assert streams and all(isinstance(chunk, str) for chunk in streams[0])


def test_missing_cassette_in_replay_is_a_configuration_error(tmp_path: Any, no_key: None) -> None:
    """Replaying a file that does not exist says how to record it."""
    with pytest.raises(gk.ConfigurationError, match="Record it first"):
        gk.Client(cassette=tmp_path / "absent.jsonl", cassette_mode="replay")


def test_unknown_mode_is_a_configuration_error(tmp_path: Any) -> None:
    """cassette_mode accepts only auto, record and replay."""
    with pytest.raises(gk.ConfigurationError, match="cassette_mode must be one of"):
        gk.Client(cassette=tmp_path / "c.jsonl", cassette_mode="rewind", offline=True)


def test_replay_is_not_stopped_by_a_spent_budget(recorded: Recorded, no_key: None) -> None:
    """A replay-only client is not refused by a ledger whose budget is 0 (replays cost nothing)."""
    ledger = gk.Ledger(budget=0.0)
    with gk.Client(cassette=recorded.path, cassette_mode="replay", ledger=ledger) as client:
        answer = client.chat.completions.create(model="chat-mini", messages=CHAT)
    assert answer.id == recorded.chat.id and ledger.total_cost == 0.0


def test_saved_video_is_the_recorded_file(recorded: Recorded, replay: gk.Client, tmp_path: Any) -> None:
    """save() streams the replayed media to disk, byte for byte the recorded MP4."""
    job = replay.videos.create(model="video-range", prompt="waves at dusk", duration=2)
    poll_fast(job, [])
    saved = job.save(tmp_path / "waves.mp4")
    assert saved.read_bytes() == recorded.video_bytes


def test_replayed_rows_stay_uncharged_in_a_reloaded_ledger_file(
    recorded: Recorded, no_key: None, tmp_path: Any
) -> None:
    """A ledger file with replayed rows reloads them still labelled and still costing nothing."""
    path = tmp_path / "ledger.jsonl"
    with gk.Client(cassette=recorded.path, cassette_mode="replay", ledger=gk.Ledger(path=path)) as client:
        client.chat.completions.create(model="chat-mini", messages=CHAT)
    reloaded = gk.Ledger(path=path)
    assert [(r["cost_source"], r["charged"]) for r in reloaded.rows] == [("replayed", False)]
    assert reloaded.total_cost == 0.0
