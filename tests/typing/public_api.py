"""The public API as a type checker sees it (checked by mypy in tests/test_architecture.py, never run).

Every ``assert_type`` fails the check when a call's declared type drifts,
including back to ``Any``.
"""

from __future__ import annotations

from pathlib import Path

from typing_extensions import assert_type

import gatewaykit as gk
from gatewaykit.client.api_request import RequestOptions
from gatewaykit.client.core.display import Display, NullDisplay, TurnView, turn_view_of
from gatewaykit.types import AsyncMusicJob, AsyncVideoJob, JobStatus


def sync_surface(client: gk.Client) -> None:
    messages = [{"role": "user", "content": "Hi"}]
    completion: gk.ChatCompletion = client.chat.completions.create(model="chat-mini", messages=messages)
    assert_type(client.chat.completions.create(model="chat-mini", messages=messages), gk.ChatCompletion)
    assert_type(client.chat.completions.create(model="chat-mini", messages=messages, stream=True), gk.ChatStream)
    assert_type(
        client.chat.completions.create(model="chat-mini", messages=messages, temperature=0.2, timeout=5.0),
        gk.ChatCompletion,
    )
    stream = client.chat.completions.create(model="chat-mini", messages=messages, stream=True)
    for chunk in stream:
        assert_type(chunk, gk.ChatCompletionChunk)
    assert_type(stream.final(), gk.ChatCompletion)
    assert_type(client.chat.ask("Hi"), gk.ChatCompletion)
    assert_type(completion.content, "str | None")

    assert_type(client.models.list(), gk.ModelList)
    assert_type(client.models.get("chat-mini"), gk.Model)
    assert_type(client.images.generate(model="image-mini", prompt="a fox"), gk.ImageResult)
    assert_type(client.images.edit(model="image-mini", prompt="a fox", image=b""), gk.ImageResult)

    video = client.videos.create(model="video-range", prompt="waves", duration=4, extra_body={"x": 1})
    assert_type(video, gk.VideoJob)
    assert_type(video.wait(), gk.VideoJob)
    assert_type(video.refresh(), gk.VideoJob)
    assert_type(video.cancel(), gk.VideoJob)
    assert_type(video.content(), bytes)
    assert_type(video.save("clip.mp4"), Path)
    assert_type(client.videos.retrieve(video.id), gk.VideoJob)

    song = client.music.create(model="music-song", prompt="folk", lyrics_prompt="[Verse]\nla")
    assert_type(song, gk.MusicJob)
    assert_type(song.wait(timeout=60), gk.MusicJob)
    assert_type(song.done, bool)
    assert song.status == JobStatus.COMPLETED

    assert_type(client.map(lambda word: word.upper(), ["a"]), gk.BatchResult)
    assert_type(client.map(lambda word: word.upper(), ["a"], checkpoint="run.sqlite"), gk.BatchResult)
    assert_type(client.jobs.pending(), "list[gk.VideoJob | gk.MusicJob]")
    assert_type(client.display, Display)
    assert_type(client.display.turn_view(), TurnView)
    assert_type(turn_view_of(client.display), TurnView)
    completion = client.display.turn_view().chat_stream(stream)
    assert_type(completion, gk.ChatCompletion)


async def async_surface(client: gk.AsyncClient) -> None:
    messages = [{"role": "user", "content": "Hi"}]
    assert_type(await client.chat.completions.create(model="chat-mini", messages=messages), gk.ChatCompletion)
    stream = await client.chat.completions.create(model="chat-mini", messages=messages, stream=True)
    assert_type(stream, gk.AsyncChatStream)
    async for chunk in stream:
        assert_type(chunk, gk.ChatCompletionChunk)
    assert_type(await stream.final(), gk.ChatCompletion)
    assert_type(await client.chat.ask("Hi"), gk.ChatCompletion)
    assert_type(await client.models.list(), gk.ModelList)
    assert_type(await client.images.generate(model="image-mini", prompt="a fox"), gk.ImageResult)

    video = await client.videos.create(model="video-range", prompt="waves")
    assert_type(video, AsyncVideoJob)
    assert_type(await video.wait(), AsyncVideoJob)
    assert isinstance(video, gk.VideoJob)
    song = await client.music.create(model="music-song", prompt="folk")
    assert_type(await song.wait(), AsyncMusicJob)
    assert_type(await client.batch([]), gk.BatchResult)
    assert_type(await client.batch([], checkpoint=Path("run.sqlite")), gk.BatchResult)
    assert_type(await client.jobs.pending(), "list[AsyncVideoJob | AsyncMusicJob]")


def configuration() -> None:
    options: RequestOptions = {"timeout": 10.0, "validate": False, "extra_headers": {"X-Trace": "1"}}
    assert options
    gk.Client(display=False)
    gk.Client(display=NullDisplay())
    gk.Client(offline=True, display=None)
