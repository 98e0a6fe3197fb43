"""A reproducible offline gateway (what the grading switches start): ids, links, default seeds and timestamps
derived from its seed and the request, not the clock, whatever order concurrent requests arrive in."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Any, Iterator

import httpx
import pytest

from gatewaykit import emulator
from gatewaykit.emulator.request_ids import REPRODUCIBLE_EPOCH

IMAGE = {"model": "image-pixels", "width": 256, "height": 256}
VIDEO = {"model": "video-tiers", "prompt": "waves", "duration": 4, "resolution": "480p"}


@pytest.fixture
def gateways() -> Iterator[list[Any]]:
    started = [emulator.start(time_scale=0, seed=5, reproducible=True),
               emulator.start(time_scale=0, seed=5, reproducible=True),
               emulator.start(time_scale=0, seed=5)]
    yield started
    for gateway in started:
        gateway.stop()


def call(gateway: Any, method: str, path: str, body: Any = None) -> dict[str, Any]:
    response = httpx.request(method, gateway.base_url + path, json=body, timeout=60,
                             headers={"Authorization": f"Bearer {gateway.api_key}"})
    response.raise_for_status()
    return response.json()


def chat_and_video(gateway: Any) -> list[Any]:
    chat = call(gateway, "POST", "/v1/chat/completions",
                {"model": "chat-mini", "messages": [{"role": "user", "content": "hi"}]})
    job = call(gateway, "POST", "/v1/videos", VIDEO)
    again = call(gateway, "POST", "/v1/videos", VIDEO)  # the same request twice: two different jobs
    return [chat["id"], chat["created"], job["id"], job["created_at"], again["id"]]


def test_two_reproducible_gateways_give_the_same_ids_and_timestamps_and_a_default_one_does_not(
    gateways: list[Any],
) -> None:
    """Same seed, same requests: the same completion and job ids, created at the fixed epoch."""
    first, second, default = (chat_and_video(gateway) for gateway in gateways)
    assert first == second
    assert first[1] == first[3] == REPRODUCIBLE_EPOCH and first[2] != first[4]
    assert default[0] != first[0] and default[2] != first[2] and default[1] != REPRODUCIBLE_EPOCH


def test_concurrent_requests_without_a_seed_get_the_same_images_in_any_arrival_order(gateways: list[Any]) -> None:
    """Images that omit ``seed``: the same bytes per prompt whichever request reached the gateway first."""
    prompts = [f"a lighthouse number {number}" for number in range(6)]

    def images(gateway: Any, order: list[str]) -> dict[str, str]:
        with ThreadPoolExecutor(6) as pool:
            answers = pool.map(lambda prompt: call(gateway, "POST", "/v1/images/generations",
                                                   {**IMAGE, "prompt": prompt}), order)
            return {prompt: answer["data"][0]["b64_json"] for prompt, answer in zip(order, answers)}

    assert images(gateways[0], prompts) == images(gateways[1], prompts[::-1])
