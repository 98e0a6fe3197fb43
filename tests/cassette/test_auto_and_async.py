"""``auto`` mode (replay what is recorded, fetch and append the rest) and the AsyncClient."""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path

import pytest

import gatewaykit as gk

from .conftest import CHAT, STREAM, Recorded

NEW = [{"role": "user", "content": "A question the teacher did not record."}]


@pytest.fixture
def copy_of(recorded: Recorded, tmp_path: Path) -> Path:
    """A copy of the recorded cassette (and its media) that a test may append to."""
    target = tmp_path / "demo.jsonl"
    shutil.copy(recorded.path, target)
    shutil.copytree(recorded.path.with_name(recorded.path.name + ".media"), tmp_path / "demo.jsonl.media")
    return target


def test_auto_replays_recorded_and_fetches_the_rest(copy_of: Path) -> None:
    """In auto, a recorded chat replays (not charged) and a new one goes to the restarted gateway (charged)."""
    with gk.emulator.start(time_scale=0) as gateway:
        ledger = gk.Ledger()
        with gk.Client(api_key=gateway.api_key, base_url=gateway.base_url, cassette=copy_of, ledger=ledger) as client:
            assert client.cassette.mode == "auto"
            client.chat.completions.create(model="chat-mini", messages=CHAT)
            client.chat.completions.create(model="chat-mini", messages=NEW)
    assert [(r["cost_source"], r["charged"]) for r in ledger.rows] == [("replayed", False), ("reported", True)]
    assert ledger.total_cost == ledger.rows[1]["total_cost"] > 0


def test_auto_appends_what_it_fetched(copy_of: Path, no_key: None) -> None:
    """What auto fetched is appended to the file, so a later replay has it too."""
    before = len(copy_of.read_text().splitlines())
    with gk.emulator.start(time_scale=0) as gateway:
        with gk.Client(api_key=gateway.api_key, base_url=gateway.base_url, cassette=copy_of) as client:
            fetched = client.chat.completions.create(model="chat-mini", messages=NEW)
    assert len(copy_of.read_text().splitlines()) == before + 1
    with gk.Client(cassette=copy_of, cassette_mode="replay") as replay:
        assert replay.chat.completions.create(model="chat-mini", messages=NEW).model_dump() == {
            **fetched.model_dump(), "gatewaykit_cassette": "replayed"}


def test_record_mode_rewrites_the_file(copy_of: Path) -> None:
    """record never replays and starts the file afresh: only this session's exchanges remain."""
    with gk.emulator.start(time_scale=0) as gateway:
        with gk.Client(
            api_key=gateway.api_key, base_url=gateway.base_url, cassette=copy_of, cassette_mode="record"
        ) as client:
            client.chat.completions.create(model="chat-mini", messages=NEW, validate=False)
    entries = [json.loads(line) for line in copy_of.read_text().splitlines()]
    assert [e["request"]["body"]["messages"] for e in entries] == [NEW]


def test_async_client_replays_chat_stream_and_job(recorded: Recorded, no_key: None) -> None:
    """AsyncClient replays the sync recording: same chat, same stream chunks, the job completes."""
    async def replay() -> tuple:
        async with gk.AsyncClient(cassette=recorded.path, cassette_mode="replay", ledger=gk.Ledger()) as client:
            chat = await client.chat.completions.create(model="chat-mini", messages=CHAT)
            stream = await client.chat.completions.create(model="chat-mini", messages=STREAM, stream=True)
            chunks = [chunk.model_dump() async for chunk in stream]
            job = await client.videos.create(model="video-range", prompt="waves at dusk", duration=2)
            await job.wait(timeout=120, poll_interval=0.001)
            return chat, chunks, await job.content(), client.ledger.total_cost

    chat, chunks, video, spent = asyncio.run(replay())
    assert (chat.model_dump(), chunks, video, spent) == (
        {**recorded.chat.model_dump(), "gatewaykit_cassette": "replayed"}, recorded.stream_chunks, recorded.video_bytes, 0.0
    )


def test_async_client_records_and_replays(tmp_path: Path, no_key: None) -> None:
    """A cassette recorded by an AsyncClient replays with no gateway, stream chunks equal."""
    path = tmp_path / "async.jsonl"

    async def run(**options: object) -> list:
        async with gk.AsyncClient(cassette=path, **options) as client:  # type: ignore[arg-type]
            stream = await client.chat.completions.create(model="chat-mini", messages=STREAM, stream=True)
            return [chunk.model_dump() async for chunk in stream]

    with gk.emulator.start(time_scale=0) as gateway:
        recorded = asyncio.run(run(api_key=gateway.api_key, base_url=gateway.base_url, cassette_mode="record"))
    assert asyncio.run(run(cassette_mode="replay")) == recorded and len(recorded) > 2


def test_async_replay_miss_raises(recorded: Recorded, no_key: None) -> None:
    """An unrecorded request raises CassetteMissError from the AsyncClient too."""
    async def ask() -> None:
        async with gk.AsyncClient(cassette=recorded.path, cassette_mode="replay") as client:
            await client.chat.completions.create(model="chat-mini", messages=NEW)

    with pytest.raises(gk.CassetteMissError, match="not recorded"):
        asyncio.run(ask())
