"""Client(cache=...) keeps only answers worth replaying (issue 28, items 8 and 9).

A job that failed is never answered from the cache (a re-run makes a new job),
and a stream the caller closed early (the chat box's Stop) is not kept: only
complete answers are.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterator

import httpx
import pytest

import gatewaykit as gk
from gateway_accounts import ACME_KEY

FAIL = {"X-Emulator-Fault": "job-fail"}


class Network(httpx.HTTPTransport):
    """The real network under the cache, counting the POSTs that reach the gateway."""

    def __init__(self) -> None:
        super().__init__()
        self.paid = 0

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        if request.method == "POST":
            self.paid += 1
        return super().handle_request(request)


@pytest.fixture
def network() -> Network:
    return Network()


@pytest.fixture
def make(emulator: Any, tmp_path: Path, network: Network) -> Iterator[Any]:
    made: list[gk.Client] = []

    def build() -> gk.Client:
        client = gk.Client(api_key=ACME_KEY, base_url=emulator.base_url, ledger=gk.Ledger(path=None), display=False,
                           cache=tmp_path / "cache", http_transport=network)  # fmt: skip
        made.append(client)
        return client

    yield build
    for client in made:
        client.close()


def _quiet(_: Any) -> None:
    pass


def test_a_failed_video_is_made_again_on_a_rerun(make: Any, network: Network) -> None:
    """The first run's job fails; the same request again is sent (a new job) and completes."""
    client = make()
    failed = client.videos.create(model="video-range", prompt="a storm", duration=2, extra_headers=FAIL)
    with pytest.raises(gk.JobFailedError):
        failed.wait(on_update=_quiet)
    sent = network.paid
    again = make().videos.create(model="video-range", prompt="a storm", duration=2)  # a new kernel's re-run
    assert network.paid == sent + 1 and again.id != failed.id
    assert again.wait(on_update=_quiet).status == "completed"
    third = make().videos.create(model="video-range", prompt="a storm", duration=2)
    assert network.paid == sent + 1 and third.id == again.id  # the completed one is kept and answers


def test_a_failed_music_job_is_made_again_on_a_rerun(make: Any, network: Network) -> None:
    lyrics = "[Verse]\nfail me once\n[Chorus]\nla la la"
    client = make()
    failed = client.music.create(model="music-song", prompt="folk", lyrics_prompt=lyrics, extra_headers=FAIL)
    with pytest.raises(gk.JobFailedError):
        failed.wait(on_update=_quiet)
    sent = network.paid
    again = client.music.create(model="music-song", prompt="folk", lyrics_prompt=lyrics)
    assert network.paid == sent + 1 and again.wait(on_update=_quiet).status == "completed"


def _chat(client: gk.Client) -> Any:
    return client.chat.completions.create(
        model="chat-mini", messages=[{"role": "user", "content": "Write a long poem about rivers"}], stream=True
    )


def test_a_stream_closed_early_is_not_kept(make: Any, network: Network) -> None:
    """Stop after two chunks: the next identical request goes to the gateway and streams to the end."""
    client = make()
    stream = _chat(client)
    iterator = iter(stream)
    next(iterator), next(iterator)
    stream.close()
    sent = network.paid
    again = _chat(client)
    text = again.final().choices[0].message.content
    assert network.paid == sent + 1 and text
    replay = _chat(client)  # the complete answer is kept
    assert replay.final().choices[0].message.content == text and network.paid == sent + 1


def test_an_async_stream_closed_early_is_not_kept(emulator: Any, tmp_path: Path) -> None:
    import asyncio

    network = httpx.AsyncHTTPTransport()
    posts: list[str] = []
    original = network.handle_async_request

    async def counting(request: httpx.Request) -> httpx.Response:
        if request.method == "POST":
            posts.append(request.url.path)
        return await original(request)

    network.handle_async_request = counting  # type: ignore[method-assign]

    async def main() -> str:
        async with gk.AsyncClient(
            api_key=ACME_KEY, base_url=emulator.base_url, ledger=gk.Ledger(path=None), display=False,
            cache=tmp_path / "cache", http_transport=network,
        ) as client:  # fmt: skip
            messages = [{"role": "user", "content": "Write a long poem about lakes"}]
            stream = await client.chat.completions.create(model="chat-mini", messages=messages, stream=True)
            async for _ in stream:
                break
            await stream.close()
            again = await client.chat.completions.create(model="chat-mini", messages=messages, stream=True)
            return (await again.final()).choices[0].message.content

    assert asyncio.run(main()) and len(posts) == 2
