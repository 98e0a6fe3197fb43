"""Client and AsyncClient: the same surface; batch helpers; closing."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest

import gatewaykit as gk

from .conftest import FAST_RETRIES, RecordingLedger, user


@pytest.fixture
def aclient_options(emulator: Any, keys: Any, sink: RecordingLedger) -> dict[str, Any]:
    return {"api_key": keys.acme, "base_url": emulator.base_url, "ledger": sink, "retry_policy": FAST_RETRIES}


def test_async_surface_mirrors_sync() -> None:
    """Every public resource method of Client exists on AsyncClient under the same name."""

    sync_client = gk.Client(offline=True)
    async_client = gk.AsyncClient(offline=True)
    for resource in ("models", "chat", "chat.completions", "images", "videos", "music"):
        left, right = sync_client, async_client
        for part in resource.split("."):
            left, right = getattr(left, part), getattr(right, part)
        assert {n for n in dir(left) if not n.startswith("_")} == {n for n in dir(right) if not n.startswith("_")}
    sync_client.close()
    asyncio.run(async_client.close())


def test_async_chat_create_and_stream(aclient_options: dict[str, Any], sink: RecordingLedger) -> None:
    """AsyncClient: awaited create, async-iterated stream and awaited final()."""

    async def run() -> tuple[Any, Any, list[str]]:
        async with gk.AsyncClient(**aclient_options) as client:
            plain = await client.chat.completions.create(model="chat-mini", messages=user("Hi"))
            stream = await client.chat.completions.create(model="chat-mini", messages=user("Hi"), stream=True)
            pieces = [c.choices[0].delta.content or "" async for c in stream if c.choices]
            return plain, await stream.final(), pieces

    plain, final, pieces = asyncio.run(run())
    assert isinstance(plain, gk.ChatCompletion) and final.content == "".join(pieces)
    assert [r.kind for r in sink.records] == ["chat", "chat.stream"]


def test_async_ask_and_images(aclient_options: dict[str, Any]) -> None:
    """await ask() and await images.generate() work as on the sync client."""

    async def run() -> tuple[Any, Any]:
        async with gk.AsyncClient(**aclient_options) as client:
            return await client.chat.ask("Hi", model="chat-mini"), await client.images.generate(model="image-aspect", prompt="a hill")

    answer, images = asyncio.run(run())
    assert answer.content and len(images.data) == 1


def test_async_jobs_wait_and_save(aclient_options: dict[str, Any], tmp_path: Any) -> None:
    """Async job methods are awaitable with the same names: wait, content, save."""

    async def run() -> tuple[Any, bytes, Any]:
        async with gk.AsyncClient(**aclient_options) as client:
            job = await client.videos.create(model="video-range", prompt="snow", duration=2)
            await job.wait(timeout=60)
            return job, await job.content(), await job.save(tmp_path / "clip.mp4")

    job, data, path = asyncio.run(run())
    assert job.status == "completed" and data[4:8] == b"ftyp" and path.read_bytes() == data


def test_async_errors_are_the_same_classes(aclient_options: dict[str, Any]) -> None:
    """The async client raises the same error classes."""

    async def run() -> None:
        async with gk.AsyncClient(**aclient_options) as client:
            await client.chat.completions.create(model="nope", messages=user("Hi"))

    with pytest.raises(gk.ModelNotFoundError):
        asyncio.run(run())


def test_async_gather_composes(aclient_options: dict[str, Any]) -> None:
    """Several async calls run together under asyncio.gather."""

    async def run() -> list[Any]:
        async with gk.AsyncClient(**aclient_options) as client:
            return await asyncio.gather(*(client.chat.ask(f"Question {i}", model="chat-mini", stream=False) for i in range(4)))

    assert len(asyncio.run(run())) == 4


def test_map_keeps_order_and_errors(client: gk.Client) -> None:
    """map() returns results in input order; a failing item holds its exception, the others succeed."""
    models = ["chat-mini", "no-such-model", "chat-mini"]
    results = client.map(lambda m: client.chat.completions.create(model=m, messages=user("Hi")), models, concurrency=3)
    assert isinstance(results[0], gk.ChatCompletion) and isinstance(results[1], gk.ModelNotFoundError)
    assert [i for i, _ in results.errors] == [1] and len(results.values) == 2


def test_batch_runs_concurrently(client: gk.Client) -> None:
    """batch() runs calls on several threads at once."""
    threads: set[str] = set()
    barrier = threading.Barrier(3, timeout=120)

    def call() -> str:
        threads.add(threading.current_thread().name)
        barrier.wait()
        return "done"

    assert list(client.batch([call, call, call], concurrency=3)) == ["done"] * 3
    assert len(threads) == 3


def test_map_works_inside_a_running_event_loop(client: gk.Client) -> None:
    """The sync batch helper works while an event loop runs in the thread (as in Jupyter)."""

    async def cell() -> Any:
        return client.map(lambda text: client.chat.ask(text, model="chat-mini", stream=False), ["a", "b"])

    assert asyncio.run(cell()).ok


def test_async_map_bounds_concurrency(aclient_options: dict[str, Any]) -> None:
    """AsyncClient.map runs at most `concurrency` calls at once, results in order."""
    running = {"now": 0, "peak": 0}

    async def task(i: int) -> int:
        running["now"] += 1
        running["peak"] = max(running["peak"], running["now"])
        await asyncio.sleep(0.01)
        running["now"] -= 1
        return i

    async def run() -> Any:
        async with gk.AsyncClient(**aclient_options) as client:
            return await client.map(task, range(6), concurrency=2)

    assert list(asyncio.run(run())) == list(range(6)) and running["peak"] == 2
