"""Tool arguments nested 100,000 deep are invalid arguments for the model, not a lost turn (issue 19, item 13).

The offline gateway is scripted to call ``get_weather``; a transport wrapped
around the real network transport turns the first call's ``city`` into 100,000
nested arrays (what a hostile or broken model could send). Before the fix,
``RecursionError`` escaped from ``chat(...)`` and the paid turn was lost.
"""

from __future__ import annotations

import math
from typing import Any, Iterator

import httpx
import pytest

import gatewaykit as gk
from gatewaykit.client.conversation.tools import MAX_ARGUMENT_DEPTH, nesting_depth

DEPTH = 100_000
SCRIPT = {"answers": [{"match": "weather in Paris", "tool_call": {"name": "get_weather", "arguments": {"city": "DEEP"}}}]}


def get_weather(city: str) -> str:
    """Get the weather for a city."""
    return f"Sunny in {city}"


class DeepArguments(httpx.HTTPTransport):
    """The real transport; the first chat answer's ``"DEEP"`` argument becomes 100,000 nested arrays."""

    def __init__(self) -> None:
        super().__init__()
        self.rewritten = 0

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        response = super().handle_request(request)
        if request.url.path != "/v1/chat/completions" or self.rewritten:
            return response
        body = response.read()
        deep = b"[" * DEPTH + b"]" * DEPTH
        if b'\\"DEEP\\"' not in body:
            return response
        self.rewritten += 1
        headers = [(k, v) for k, v in response.headers.items() if k.lower() != "content-length"]
        return httpx.Response(response.status_code, headers=headers, content=body.replace(b'\\"DEEP\\"', deep))


@pytest.fixture(scope="module")
def scripted() -> Iterator[Any]:
    with gk.emulator.start(time_scale=0, script=SCRIPT) as gateway:
        yield gateway


def test_deep_arguments_go_back_to_the_model_and_the_turn_is_kept(scripted: Any) -> None:
    """chat(...) returns; the deep call is answered with an invalid-arguments tool message; turn and cost stay."""
    transport = DeepArguments()
    ledger = gk.Ledger(path=None)
    with gk.Client(api_key=scripted.api_key, base_url=scripted.base_url, ledger=ledger, http_transport=transport,
                   display=False) as client:  # fmt: skip
        chat = client.chat.session(model="chat-mini", tools=[get_weather], max_steps=1)
        reply = chat("What is the weather in Paris?")
    assert transport.rewritten == 1 and reply.choices[0].message.content
    assistant, tool = chat.history[1], chat.history[2]
    assert nesting_depth(assistant["tool_calls"][0]["function"]["arguments"]) == DEPTH + 1
    assert tool["role"] == "tool" and tool["content"].startswith("Error: invalid arguments for get_weather")
    assert f"at most {MAX_ARGUMENT_DEPTH}" in tool["content"] and len(tool["content"]) < 500
    assert len(chat.turns) == 1 and chat.cost > 0
    assert math.isclose(chat.cost, ledger.total_cost, abs_tol=1e-12)


def test_the_session_with_deep_arguments_still_displays(scripted: Any) -> None:
    """The conversation's HTML view (tool calls pretty-printed) shows the deep call as text instead of failing."""
    with gk.Client(api_key=scripted.api_key, base_url=scripted.base_url, ledger=gk.Ledger(path=None),
                   http_transport=DeepArguments(), display=False) as client:  # fmt: skip
        chat = client.chat.session(model="chat-mini", tools=[get_weather], max_steps=1)
        chat("What is the weather in Paris?")
    html = chat._repr_mimebundle_()["text/html"]
    assert "get_weather" in html and "invalid arguments" in html
    deep_reply = chat.turns[0].completions[0]
    assert "get_weather" in deep_reply._repr_mimebundle_()["text/html"]


def test_nesting_depth_ignores_brackets_inside_strings() -> None:
    """Brackets in JSON strings (escaped quotes too) do not count; real nesting does."""
    assert nesting_depth('{"a": [1, {"b": "[[[[\\"]]"}]}') == 3 and nesting_depth("[" * 5 + "]" * 5) == 5
