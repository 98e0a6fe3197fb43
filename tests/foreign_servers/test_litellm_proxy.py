"""gatewaykit's client against a real foreign server: LiteLLM's proxy with mock models (issue 18)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

import gatewaykit as gk

from tests.foreign_servers.litellm_proxy import RunningProxy

MESSAGES = [{"role": "user", "content": "What is the weather in Paris?"}]
WEATHER_TOOL = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "The weather in a city.",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
    },
}


def client_on(proxy: RunningProxy, ledger: Any = None, **options: Any) -> gk.Client:
    options.setdefault("max_retries", 0)
    return gk.Client(api_key=proxy.key, base_url=proxy.base_url, ledger=ledger or gk.Ledger(), **options)


def test_models_are_listed(litellm_proxy: RunningProxy) -> None:
    """``models.list()`` reads the proxy's catalog."""
    with client_on(litellm_proxy) as client:
        assert {"mock-chat", "mock-free", "mock-tool"} <= set(client.models.list().ids)


def test_buffered_chat_without_cost_is_not_reported(litellm_proxy: RunningProxy) -> None:
    """A buffered answer reads; the proxy reports no cost, so the ledger row is "not reported"."""
    ledger = gk.Ledger()
    with client_on(litellm_proxy, ledger) as client:
        answer = client.chat.completions.create(model="mock-free", messages=MESSAGES)
    assert answer.content == "An answer without a price." and answer.usage is not None
    (row,) = ledger.rows
    assert (row["status"], row["cost_source"], row["total_cost"], row["charged"]) == ("ok", "not reported", None, True)


def test_streamed_ask_reads_the_cost_sent_as_a_number(litellm_proxy: RunningProxy) -> None:
    """``chat.ask()`` streams; the proxy's ``usage.cost`` number is the reported total (the crash of issue 18)."""
    ledger = gk.Ledger()
    with client_on(litellm_proxy, ledger) as client:
        answer = client.chat.ask("hi", model="mock-chat")
    assert answer.content == "Hello from the mock proxy."
    (row,) = ledger.rows
    assert row["status"] == "ok" and row["kind"] == "chat.stream"
    if answer.usage is not None and answer.usage.total_cost is not None:
        assert row["cost_source"] == "reported" and row["total_cost"] == pytest.approx(answer.usage.total_cost)
    else:
        assert row["cost_source"] == "not reported"


def test_stream_chunks_arrive_one_by_one(litellm_proxy: RunningProxy) -> None:
    """A sync stream yields the proxy's chunks and assembles them."""
    with client_on(litellm_proxy) as client:
        stream = client.chat.completions.create(model="mock-chat", messages=MESSAGES, stream=True)
        pieces = [chunk.choices[0].delta.content for chunk in stream if chunk.choices and chunk.choices[0].delta.content]
        answer = stream.final()
    assert len(pieces) > 3 and "".join(pieces) == answer.content == "Hello from the mock proxy."


def test_async_stream(litellm_proxy: RunningProxy) -> None:
    """The async client streams from the proxy."""

    async def main() -> gk.ChatCompletion:
        async with gk.AsyncClient(api_key=litellm_proxy.key, base_url=litellm_proxy.base_url, ledger=gk.Ledger()) as client:
            stream = await client.chat.completions.create(model="mock-chat", messages=MESSAGES, stream=True)
            return await stream.final()

    assert asyncio.run(main()).content == "Hello from the mock proxy."


def test_async_buffered(litellm_proxy: RunningProxy) -> None:
    """The async client's buffered chat reads the proxy's answer."""

    async def main() -> gk.ChatCompletion:
        async with gk.AsyncClient(api_key=litellm_proxy.key, base_url=litellm_proxy.base_url, ledger=gk.Ledger()) as client:
            return await client.chat.completions.create(model="mock-free", messages=MESSAGES)

    assert asyncio.run(main()).content == "An answer without a price."


def test_session_cost_is_unknown_when_not_reported(litellm_proxy: RunningProxy) -> None:
    """A two-turn ``ChatSession`` on a model without a price: ``cost is None``; both rows "not reported"."""
    ledger = gk.Ledger()
    with client_on(litellm_proxy, ledger) as client:
        chat = client.chat.session(model="mock-free")
        chat("hi")
        second = chat("and again")
    assert second.content == "An answer without a price." and chat.requests == 2 and chat.cost is None
    assert [row["cost_source"] for row in ledger.rows] == ["not reported", "not reported"]


def test_tool_call_round_trip(litellm_proxy: RunningProxy) -> None:
    """The proxy asks for ``get_weather``; its result goes back and an answer comes."""
    with client_on(litellm_proxy) as client:
        asked = client.chat.completions.create(model="mock-tool", messages=MESSAGES, tools=[WEATHER_TOOL])
        message = asked.choices[0].message
        (call,) = message.tool_calls or []
        assert call.function.name == "get_weather" and json.loads(call.function.arguments) == {"city": "Paris"}
        follow_up = [
            *MESSAGES,
            message.model_dump(mode="json", exclude_none=True),
            {"role": "tool", "tool_call_id": call.id, "content": json.dumps({"sky": "clear", "celsius": 21})},
        ]
        answer = client.chat.completions.create(model="mock-chat", messages=follow_up, tools=[WEATHER_TOOL])
    assert answer.content == "Hello from the mock proxy."


def test_session_tool_loop_runs_the_python_tool(litellm_proxy: RunningProxy) -> None:
    """A session with a Python tool runs it on the proxy's tool call (the mock always asks again: max_steps stops it)."""
    calls: list[str] = []

    def get_weather(city: str) -> str:
        """The weather in a city."""
        calls.append(city)
        return "clear, 21 C"

    with client_on(litellm_proxy, display=False) as client:  # buffered: mock_tool_calls only answers unstreamed
        chat = client.chat.session(model="mock-tool", tools=[get_weather], max_steps=2)
        try:
            chat("weather in Paris?")
        except gk.GatewayError:
            pass  # the step limit may be reported as an error; the tool has run either way
    assert calls and calls[0] == "Paris"


def test_rate_limit_is_mapped(litellm_proxy: RunningProxy) -> None:
    """The proxy's 429 (``code: "429"``) is RateLimitError; its row "error", not charged."""
    ledger = gk.Ledger()
    with client_on(litellm_proxy, ledger) as client, pytest.raises(gk.RateLimitError) as caught:
        client.chat.completions.create(model="mock-ratelimit", messages=MESSAGES)
    assert "429 429" not in str(caught.value) and "rate limit" in caught.value.message
    (row,) = ledger.rows
    assert (row["status"], row["http_status"], row["charged"]) == ("error", 429, False)


def test_unknown_model_is_a_bad_request(litellm_proxy: RunningProxy) -> None:
    """An unknown model (the catalog check off) is the proxy's 400, read as BadRequestError."""
    with client_on(litellm_proxy, validate=False) as client, pytest.raises(gk.BadRequestError) as caught:
        client.chat.completions.create(model="no-such-model", messages=MESSAGES)
    assert "no-such-model" in caught.value.message and "400 400" not in str(caught.value)


def test_wrong_key_is_a_gateway_error(litellm_proxy: RunningProxy) -> None:
    """A wrong key gets the proxy's error (400 "No connected db." without a database, or 401), typed."""
    with gk.Client(api_key="sk-wrong-key-123456", base_url=litellm_proxy.base_url, max_retries=0, ledger=gk.Ledger()) as client:
        with pytest.raises(gk.APIStatusError) as caught:
            client.models.list()
    assert caught.value.status in (400, 401, 403) and "sk-wrong-key-123456" not in str(caught.value)
