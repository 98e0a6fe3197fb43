"""Every creating endpoint goes down the one request pipeline, its steps in order (issue 24)."""

from __future__ import annotations

from typing import Any, Callable

import pytest

import gatewaykit as gk
from gatewaykit.client.core import request_pipeline

from .conftest import user
from .test_images import png

CHAT = {"model": "chat-mini", "messages": user("hi")}
CALLS: dict[str, Callable[[gk.Client], Any]] = {
    "chat": lambda client: client.chat.completions.create(**CHAT),
    "chat stream": lambda client: client.chat.completions.create(**CHAT, stream=True).final(),
    "images.generate": lambda client: client.images.generate(model="image-pixels", prompt="a fox"),
    "images.edit": lambda client: client.images.edit(model="image-gpt", prompt="add a hat", image=png()),
    "videos.create": lambda client: client.videos.create(model="video-range", prompt="a kite", duration=2),
    "music.create": lambda client: client.music.create(model="music-song", prompt="folk", lyrics_prompt="[Verse]\nla la"),
}


@pytest.mark.parametrize("endpoint", CALLS)
def test_each_endpoint_runs_the_steps_in_order(
    endpoint: str, client: gk.Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    """chat, images (generate, edit), videos and music all run check -> encode -> price -> send, once each."""
    ran: list[str] = []

    def noted(step: Any) -> Any:
        def run(client: Any, call: request_pipeline.Call) -> Any:
            ran.append(step.__name__)
            return step(client, call)

        return run

    monkeypatch.setattr(request_pipeline, "STEPS", tuple(noted(step) for step in request_pipeline.STEPS))
    CALLS[endpoint](client)
    assert ran == ["check", "encode", "price", "confirm", "send"]


def test_a_step_added_to_the_list_runs_before_sending(client: gk.Client, monkeypatch: pytest.MonkeyPatch) -> None:
    """Adding a step is one entry in STEPS: a refusing step placed before send stops the call unsent and unrecorded."""
    sent: list[str] = []

    def refuse(client: Any, call: request_pipeline.Call) -> None:
        raise gk.BudgetExceededError("not confirmed", budget=0.0, spent=0.0)

    def send(client: Any, call: request_pipeline.Call) -> Any:
        sent.append(call.kind)
        return request_pipeline.send(client, call)

    check, encode, price, confirm, _ = request_pipeline.STEPS
    monkeypatch.setattr(request_pipeline, "STEPS", (check, encode, price, confirm, refuse, send))
    with pytest.raises(gk.BudgetExceededError):
        client.chat.completions.create(model="chat-mini", messages=user("hi"))
    assert sent == [] and client.ledger.records == []
