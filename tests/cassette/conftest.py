"""Cassette fixtures: one recording session against an offline gateway acting as the real one.

The module-scoped ``recorded`` fixture starts its own gateway, records a chat, a
stream, an image generate and edit, a video job (polled while in progress, then
its content through the 302) and a music job into a cassette, and stops the
gateway: every replay test then runs with no server at all.
"""

from __future__ import annotations

import io
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

import pytest
from PIL import Image

import gatewaykit as gk

CHAT = [{"role": "user", "content": "Name three rivers in one sentence."}]
LYRICS = "[Verse]\nMorning light on the river\n[Chorus]\nWe sing along"
STREAM = [{"role": "user", "content": "Write a short list of three fruits."}]


def png(colour: tuple[int, int, int] = (200, 40, 40)) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (16, 16), colour).save(buffer, format="PNG")
    return buffer.getvalue()


@dataclass
class Recorded:
    """What the recording session saw, to compare replays against."""

    path: Path
    key: str
    chat: Any = None
    stream_chunks: list = field(default_factory=list)
    image_b64: str = ""
    edit_b64: str = ""
    video_id: str = ""
    video_statuses: list = field(default_factory=list)
    video_bytes: bytes = b""
    music_id: str = ""
    music_bytes: bytes = b""
    ledger_cost: float = 0.0


def poll_fast(job: Any, statuses: list) -> Any:
    return job.wait(timeout=60, poll_interval=0.02, on_update=lambda j: statuses.append(j.status))


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Recorded]:
    """Record one session against a real offline gateway, then stop that gateway."""
    path = tmp_path_factory.mktemp("cassette") / "demo.jsonl"
    # A small time scale so the video is seen in progress before it completes.
    with gk.emulator.start(time_scale=0.05) as gateway:
        out = Recorded(path=path, key=gateway.api_key)
        ledger = gk.Ledger()
        with gk.Client(
            api_key=gateway.api_key, base_url=gateway.base_url, cassette=path, cassette_mode="record", ledger=ledger
        ) as client:
            out.chat = client.chat.completions.create(model="chat-mini", messages=CHAT)
            stream = client.chat.completions.create(model="chat-mini", messages=STREAM, stream=True)
            out.stream_chunks = [chunk.model_dump() for chunk in stream]
            image = client.images.generate(model="image-pixels", prompt="a red fox", width=256, height=256)
            out.image_b64 = image.data[0].b64_json
            out.edit_b64 = client.images.edit(model="image-tiers", prompt="make it night", image=png()).data[0].b64_json
            video = client.videos.create(model="video-range", prompt="waves at dusk", duration=2)
            out.video_id = video.id
            poll_fast(video, out.video_statuses)
            out.video_bytes = video.content()
            song = client.music.create(model="music-song", prompt="bright folk", lyrics_prompt=LYRICS)
            out.music_id = song.id
            song.wait(timeout=60, poll_interval=0.02)
            out.music_bytes = song.content()
        out.ledger_cost = ledger.total_cost
    yield out


@pytest.fixture
def replay(recorded: Recorded, no_key: None) -> Iterator[gk.Client]:
    """A fresh replay-only client on the recorded cassette, with its own ledger."""
    with gk.Client(cassette=recorded.path, cassette_mode="replay", ledger=gk.Ledger()) as client:
        yield client
