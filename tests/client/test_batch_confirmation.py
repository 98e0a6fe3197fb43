"""``confirm_over`` in map/batch counts every paid request of an item, not only its first (issue 28, item 7).

The batch is quoted up to each item's first paid request; a later request of the
same item is not in that quote, so it is asked about when the batch's total with
it passes the threshold (``display=False``: the item fails with
``ConfirmationRequiredError`` and the request is not sent).
"""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest

import gatewaykit as gk

HI = [{"role": "user", "content": "hi"}]


class PathSpy(httpx.HTTPTransport):
    """A real transport that remembers the path of every POST it sends."""

    def __init__(self) -> None:
        super().__init__()
        self.posts: list[str] = []

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        if request.method == "POST":
            self.posts.append(request.url.path)
        return super().handle_request(request)


@pytest.fixture
def spied(emulator: Any, keys: Any) -> Any:
    spy = PathSpy()
    with gk.Client(
        api_key=keys.acme, base_url=emulator.base_url, ledger=gk.Ledger(path=None), display=False,
        confirm_over=0.50, http_transport=spy,
    ) as client:  # fmt: skip
        yield client, spy


def _video(client: Any, seconds: int = 4, resolution: str = "480p") -> Any:
    return client.videos.create(model="video-tiers", prompt="x", resolution=resolution, duration=seconds)  # 480p: $0.05/s


def test_two_videos_in_one_item_are_asked_about(spied: Any) -> None:
    """Each item makes two $0.40 videos: the batch quote saw $0.40 (under $0.50); the second would make $0.80."""
    client, spy = spied
    result = client.map(lambda _: (_video(client, 8), _video(client, 8)), [1])
    ((index, error),) = result.errors
    assert isinstance(error, gk.ConfirmationRequiredError) and "0.80" in str(error)
    assert spy.posts.count("/v1/videos") == 1  # the quoted first video only


def test_a_video_after_a_cheap_chat_is_asked_about(spied: Any) -> None:
    """An item's first paid request is a cheap chat; the $0.80 video after it is never waved through."""
    client, spy = spied

    def item(_: Any) -> Any:
        client.chat.completions.create(model="chat-mini", messages=HI)
        return _video(client, 8, "720p")

    result = client.batch([lambda: item(0)])
    ((_, error),) = result.errors
    assert isinstance(error, gk.ConfirmationRequiredError)
    assert "/v1/videos" not in spy.posts and "/v1/chat/completions" in spy.posts


def test_later_requests_under_the_threshold_still_go(spied: Any) -> None:
    """Two $0.20 videos in one item: $0.40 in all, under $0.50: both are sent, nothing asked."""
    client, spy = spied
    result = client.map(lambda _: (_video(client, 4), _video(client, 4)), [1])
    assert result.ok and spy.posts.count("/v1/videos") == 2


def test_confirm_true_sends_every_request(spied: Any) -> None:
    """map(..., confirm=True): the user confirmed the batch, every request of every item is sent."""
    client, spy = spied
    result = client.map(lambda _: (_video(client, 8), _video(client, 8)), [1], confirm=True)
    assert result.ok and spy.posts.count("/v1/videos") == 2


def test_async_batch_counts_every_request(emulator: Any, keys: Any) -> None:
    """AsyncClient.batch: the second video of an item is asked about too."""

    async def main() -> Any:
        async with gk.AsyncClient(
            api_key=keys.acme, base_url=emulator.base_url, ledger=gk.Ledger(path=None), display=False,
            confirm_over=0.50,
        ) as client:  # fmt: skip

            async def item() -> Any:
                first = await client.videos.create(model="video-tiers", prompt="x", resolution="480p", duration=8)
                second = await client.videos.create(model="video-tiers", prompt="x", resolution="480p", duration=8)
                return first, second

            return await client.batch([item])

    ((_, error),) = asyncio.run(main()).errors
    assert isinstance(error, gk.ConfirmationRequiredError)
