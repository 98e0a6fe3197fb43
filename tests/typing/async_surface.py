"""Every async method, called with every keyword, as a type checker sees it (mypy in tests/test_architecture.py).

``test_architecture.py`` also reads this file and fails when an async method
or one of its keywords is not called here, so a new keyword gets its type
checked on ``AsyncClient`` too.
"""

from __future__ import annotations

from typing import Any, Optional

from pydantic import BaseModel
from typing_extensions import assert_type

import gatewaykit as gk
from gatewaykit.types import AsyncMusicJob, AsyncVideoJob

MESSAGES = [{"role": "user", "content": "Hi"}]
HEADERS = {"X-Trace": "1"}


class Answer(BaseModel):
    text: str


async def chat(client: gk.AsyncClient) -> None:
    completion = await client.chat.completions.create(
        model="chat-mini", messages=MESSAGES, stream=False, temperature=0.2, top_p=0.9, max_tokens=10,
        max_completion_tokens=10, reasoning_effort="low", stop=["\n"], stream_options={"include_usage": True},
        seed=1, n=1, frequency_penalty=0.0, presence_penalty=0.0, logit_bias={"1": 1.0}, logprobs=True,
        top_logprobs=2, response_format={"type": "text"}, tools=[], tool_choice="auto", parallel_tool_calls=True,
        user="u", include_svc_system_prompt=False, fallbacks=["chat-pro"], metadata={"k": "v"}, modalities=["text"],
        prompt_cache_key="key", prompt_cache_retention="in-memory", reasoning={"effort": "low"},
        safety_identifier="s", service_tier="auto", store=False, prediction={"type": "content", "content": "x"},
        web_search_options={}, truncation="auto", verbosity="low",
        extra_headers=HEADERS, extra_body={"x": 1}, timeout=5.0, validate=False,
    )  # fmt: skip
    assert_type(completion, gk.ChatCompletion)
    stream = await client.chat.completions.create(model="chat-mini", messages=MESSAGES, stream=True)
    assert_type(stream, gk.AsyncChatStream)
    parsed: Any = await client.chat.completions.parse(
        model="chat-mini", messages=MESSAGES, response_format=Answer, retries=1, temperature=0.0
    )
    assert parsed
    answer = await client.chat.ask(
        "Hi", model="chat-mini", system="Be brief", stream=False, temperature=0.2, top_p=0.9, max_tokens=10,
        max_completion_tokens=10, reasoning_effort="low", stop=["\n"], stream_options={"include_usage": True},
        seed=1, n=1, frequency_penalty=0.0, presence_penalty=0.0, logit_bias={"1": 1.0}, logprobs=True,
        top_logprobs=2, response_format={"type": "text"}, tools=[], tool_choice="auto", parallel_tool_calls=True,
        user="u", include_svc_system_prompt=False, fallbacks=["chat-pro"], metadata={"k": "v"}, modalities=["text"],
        prompt_cache_key="key", prompt_cache_retention="in-memory", reasoning={"effort": "low"},
        safety_identifier="s", service_tier="auto", store=False, prediction={"type": "content", "content": "x"},
        web_search_options={}, truncation="auto", verbosity="low",
        extra_headers=HEADERS, extra_body={"x": 1}, timeout=5.0, validate=False,
    )  # fmt: skip
    assert_type(answer, gk.ChatCompletion)
    session = client.chat.session(
        model="chat-mini", system="Be brief", tools=[], max_steps=2, approve=None, temperature=0.2, top_p=0.9, max_tokens=10,
        max_completion_tokens=10, reasoning_effort="low", stop=["\n"], stream_options={"include_usage": True},
        seed=1, n=1, frequency_penalty=0.0, presence_penalty=0.0, logit_bias={"1": 1.0}, logprobs=True,
        top_logprobs=2, response_format={"type": "text"}, tool_choice="auto", parallel_tool_calls=True,
        user="u", include_svc_system_prompt=False, fallbacks=["chat-pro"], metadata={"k": "v"}, modalities=["text"],
        prompt_cache_key="key", prompt_cache_retention="in-memory", reasoning={"effort": "low"},
        safety_identifier="s", service_tier="auto", store=False, prediction={"type": "content", "content": "x"},
        web_search_options={}, truncation="auto", verbosity="low",
    )  # fmt: skip
    assert session


async def models(client: gk.AsyncClient) -> None:
    assert_type(await client.models.list(extra_headers=HEADERS, timeout=5.0), gk.ModelList)
    assert_type(await client.models.get("chat-mini", timeout=5.0), gk.Model)
    assert_type(await client.models.pick("image", needs=["edit"], timeout=5.0), str)
    assert_type(await client.models.pick("video", needs=["resolution"], optional=True, timeout=5.0), Optional[str])


async def images(client: gk.AsyncClient) -> None:
    generated = await client.images.generate(
        model="image-mini", prompt="a fox", n=1, response_format="b64_json", output_format="png", quality="low",
        stream=False, seed=1, width=64, height=64, aspect_ratio="1:1", resolution="1K", image_size="1K",
        extra_headers=HEADERS, extra_body={"x": 1}, timeout=5.0, validate=False,
    )  # fmt: skip
    assert_type(generated, gk.ImageResult)
    edited = await client.images.edit(
        model="image-mini", prompt="a fox", image=b"", n=1, response_format="b64_json", output_format="png",
        quality="low", stream=False, seed=1, width=64, height=64, aspect_ratio="1:1", resolution="1K",
        image_size="1K", extra_headers=HEADERS, extra_body={"x": 1}, timeout=5.0, validate=False,
    )  # fmt: skip
    assert_type(edited, gk.ImageResult)
    assert_type(await client.images.quote(model="image-mini", prompt="a fox", n=2, width=64, height=64), gk.Quote)


async def videos(client: gk.AsyncClient) -> None:
    video = await client.videos.create(
        model="video-range", prompt="waves", input_reference=b"", resolution="720p", duration=4, aspect_ratio="16:9",
        generate_audio=False, seed=1, extra_headers=HEADERS, extra_body={"x": 1}, timeout=5.0, validate=False,
    )  # fmt: skip
    assert_type(video, AsyncVideoJob)
    assert_type(await client.videos.retrieve(video.id, extra_headers=HEADERS, timeout=5.0), AsyncVideoJob)
    assert_type(await client.videos.delete(video.id, timeout=5.0), AsyncVideoJob)
    assert_type(await client.videos.quote(model="video-range", prompt="waves", duration=4, resolution="720p"), gk.Quote)


async def music(client: gk.AsyncClient) -> None:
    song = await client.music.create(
        model="music-song", prompt="folk", lyrics_prompt="[Verse]\nla", sample_rate=44100, bitrate=128000,
        format="mp3", extra_headers=HEADERS, extra_body={"x": 1}, timeout=5.0, validate=False,
    )  # fmt: skip
    assert_type(song, AsyncMusicJob)
    assert_type(await client.music.retrieve(song.id, extra_headers=HEADERS, timeout=5.0), AsyncMusicJob)
    assert_type(await client.music.quote(model="music-song", prompt="folk", lyrics_prompt="[Verse]\nla"), gk.Quote)


async def jobs(client: gk.AsyncClient) -> None:
    assert_type(await client.jobs.pending(), "list[AsyncVideoJob | AsyncMusicJob]")
