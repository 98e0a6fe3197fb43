"""Sampled answers (temperature > 0): they vary per call, deterministically per gateway seed and repeat, and a
vaguer prompt or a smaller model drifts off the prompt more often; at temperature 0 nothing varies."""

from __future__ import annotations

from typing import Any, Iterator

import httpx
import pytest

from gatewaykit import emulator
from gatewaykit.emulator.media.images import inspect_image

SPECIFIC = "In one sentence, tell me about volcanoes."
VAGUE = "volcanoes?"
DRAWS = 40


@pytest.fixture
def gateway() -> Iterator[httpx.Client]:
    with emulator.start(time_scale=0, seed=3) as running:
        with connect(running) as http:
            yield http


def connect(running: Any) -> httpx.Client:
    return httpx.Client(base_url=running.base_url, timeout=60, headers={"Authorization": f"Bearer {running.api_key}"})


def chat(gateway: httpx.Client, prompt: str, **fields: Any) -> str:
    body = {"model": "chat-mini", "messages": [{"role": "user", "content": prompt}], **fields}
    response = gateway.post("/v1/chat/completions", json=body)
    response.raise_for_status()
    return str(response.json()["choices"][0]["message"]["content"])


def picture(gateway: httpx.Client, **fields: Any) -> bytes:
    import base64

    body = {"model": "image-pixels", "prompt": "a red apple", "width": 256, "height": 256, **fields}
    response = gateway.post("/v1/images/generations", json=body)
    response.raise_for_status()
    return base64.b64decode(response.json()["data"][0]["b64_json"])


def test_temperature_zero_answers_never_vary(gateway: httpx.Client) -> None:
    """At temperature 0 the same request gets the same answer every time."""
    assert len({chat(gateway, VAGUE, temperature=0) for _ in range(8)}) == 1


def test_sampled_answers_vary_per_call_and_replay_per_gateway_seed(gateway: httpx.Client) -> None:
    """Temperature 1 without a seed: answers differ call by call, and a fresh gateway of the same seed repeats them."""
    first = [chat(gateway, VAGUE, temperature=1.0) for _ in range(8)]
    with emulator.start(time_scale=0, seed=3) as again, connect(again) as http:
        second = [chat(http, VAGUE, temperature=1.0) for _ in range(8)]
    with emulator.start(time_scale=0, seed=4) as other, connect(other) as http:
        third = [chat(http, VAGUE, temperature=1.0) for _ in range(8)]
    assert len(set(first)) > 3
    assert second == first
    assert third != first


def test_a_seeded_sampled_request_repeats_its_answer(gateway: httpx.Client) -> None:
    """Temperature 1 with a seed: the seed fixes the draw (the same answer every time)."""
    assert len({chat(gateway, VAGUE, temperature=1.0, seed=11) for _ in range(5)}) == 1


def test_a_vaguer_prompt_drifts_off_its_subject_more_often(gateway: httpx.Client) -> None:
    """A prompt stating its form and subject keeps the subject in more sampled answers than a vague one."""
    specific = sum("volcano" in chat(gateway, SPECIFIC, temperature=1.0, seed=s).lower() for s in range(DRAWS))
    vague = sum("volcano" in chat(gateway, VAGUE, temperature=1.0, seed=s).lower() for s in range(DRAWS))
    assert specific >= 0.75 * DRAWS and vague <= 0.6 * DRAWS and 0 < vague


def test_a_smaller_model_drifts_more_often(gateway: httpx.Client) -> None:
    """chat-mini drifts off a vague prompt more often than chat-reasoner."""
    def kept(model: str) -> int:
        return sum("volcano" in chat(gateway, VAGUE, temperature=1.0, seed=s, model=model).lower() for s in range(DRAWS))

    assert kept("chat-mini") < kept("chat-reasoner")


def test_sampled_pictures_vary_and_sometimes_lose_the_prompts_colour(gateway: httpx.Client) -> None:
    """Images: temperature 0 draws one picture; temperature 1 draws a new one per call, some not red."""
    still = {picture(gateway, temperature=0) for _ in range(3)}
    sampled = [picture(gateway, temperature=1.0) for _ in range(16)]
    red = sum(any(name == "red" for name, _, _ in inspect_image(p).dominant_colours[:1]) for p in sampled)
    assert len(still) == 1 and len(set(sampled)) == 16
    assert 0 < red < 16
