"""client.chat against the offline gateway: create, stream, ask, typed and passthrough fields."""

from __future__ import annotations

import json
from typing import Any

import pytest

import gatewaykit as gk

from .conftest import RecordingLedger, user


def test_create_returns_a_completion_with_cost(client: gk.Client, sink: RecordingLedger) -> None:
    """A buffered chat answers with content and usage.cost, and is recorded once as ok."""
    completion = client.chat.completions.create(model="chat-mini", messages=user("Say hello"))
    assert completion.content and completion.usage.cost.total_cost > 0
    assert [(r.kind, r.status, r.id, r.offline) for r in sink.records] == [("chat", "ok", completion.id, True)]
    assert sink.budget_checks == [("chat", "chat-mini")]


def test_messages_accept_message_models(client: gk.Client) -> None:
    """gatewaykit.Message objects work as messages."""
    completion = client.chat.completions.create(
        model="chat-mini", messages=[gk.Message(role="system", content="Be brief."), gk.Message(role="user", content="Hi")]
    )
    assert completion.choices[0].message.role == "assistant"


def test_stream_assembles_reasoning_and_usage(client: gk.Client, sink: RecordingLedger) -> None:
    """A streamed reasoner answer yields chunks; final() has content, reasoning and usage with cost."""
    stream = client.chat.completions.create(
        model="chat-reasoner", messages=user("Why is the sky blue?"), reasoning_effort="low", stream=True
    )
    assert isinstance(stream, gk.ChatStream)
    pieces = [c.choices[0].delta.content or "" for c in stream if c.choices]
    final = stream.final()
    assert final.content == "".join(pieces)
    assert final.choices[0].message.reasoning
    assert final.usage.cost.total_cost > 0
    assert [(r.kind, r.status) for r in sink.records] == [("chat.stream", "ok")]


def test_stream_tool_calls_are_assembled(client: gk.Client) -> None:
    """A streamed tool call arrives whole in final(), arguments valid JSON."""
    tool = {"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}}
    final = client.chat.completions.create(
        model="chat-mini", messages=user("What is the weather in Paris?"), tools=[tool], tool_choice="required", stream=True
    ).final()
    call = final.choices[0].message.tool_calls[0]
    assert call.function.name == "get_weather" and isinstance(json.loads(call.function.arguments), dict)


def test_n_choices(client: gk.Client) -> None:
    """n=2 gives two choices, streamed or not."""
    assert len(client.chat.completions.create(model="chat-mini", messages=user("Hi"), n=2).choices) == 2
    assert len(client.chat.completions.create(model="chat-mini", messages=user("Hi"), n=2, stream=True).final().choices) == 2


def test_ask_returns_the_completion(client: gk.Client) -> None:
    """ask() without a kernel reads the stream and returns the completion."""
    completion = client.chat.ask("Explain SSE in one sentence", model="chat-mini", system="Be brief.")
    assert isinstance(completion, gk.ChatCompletion) and completion.content


def test_ask_defaults_to_the_first_chat_model(client: gk.Client) -> None:
    """ask() without model= uses the catalog's first chat model."""
    assert client.chat.ask("Hi", stream=False).model == "chat-mini"


def test_vision_part_accepts_image_bytes(client: gk.Client, png_bytes: bytes) -> None:
    """A content list with raw PNG bytes is sent as a data: URI to the vision model."""
    completion = client.chat.completions.create(
        model="chat-vision", messages=[{"role": "user", "content": ["What is in this picture?", png_bytes]}]
    )
    assert completion.content


def test_extra_body_and_unknown_keywords_are_sent(client: gk.Client, monkeypatch: Any) -> None:
    """Unknown keywords (warned) and extra_body (not warned) reach the request body."""
    sent: list[bytes] = []
    original = client._transport.send

    def spy(request: Any) -> Any:
        sent.append(request.content)
        return original(request)

    monkeypatch.setattr(client._transport, "send", spy)
    with pytest.warns(gk.UnknownParameterWarning, match="top_k"):
        client.chat.completions.create(model="chat-mini", messages=user("Hi"), top_k=5, extra_body={"min_p": 0.1})
    body = json.loads(sent[-1])  # after the catalog read that checked the keyword
    assert (body["top_k"], body["min_p"]) == (5, 0.1)


def test_stream_asks_for_usage(client: gk.Client, monkeypatch: Any) -> None:
    """stream=True sends stream_options.include_usage=true."""
    sent: list[bytes] = []
    original = client._transport.send
    monkeypatch.setattr(client._transport, "send", lambda request: sent.append(request.content) or original(request))
    client.chat.completions.create(model="chat-mini", messages=user("Hi"), stream=True).final()
    assert json.loads(sent[0])["stream_options"] == {"include_usage": True}


def test_disconnect_mid_stream_is_interrupted(client: gk.Client, sink: RecordingLedger) -> None:
    """The gateway dropping a stream raises StreamInterruptedError and records 'interrupted'."""
    stream = client.chat.completions.create(
        model="chat-mini", messages=user("Tell me a story"), stream=True, extra_headers={"X-Emulator-Fault": "disconnect"}
    )
    with pytest.raises(gk.StreamInterruptedError) as caught:
        stream.final()
    assert isinstance(caught.value.partial, gk.ChatCompletion)
    assert [r.status for r in sink.records] == ["interrupted"]


def test_budget_refusal_sends_nothing(make_client: Any, keys: Any) -> None:
    """A ledger refusing the budget stops the request before it is sent."""
    refusing = RecordingLedger(refuse=gk.BudgetExceededError("over budget", budget=1.0, spent=1.0))
    client = make_client(keys.acme, ledger=refusing)
    with pytest.raises(gk.BudgetExceededError):
        client.chat.completions.create(model="chat-mini", messages=user("Hi"))
    assert refusing.records == []


@pytest.fixture
def png_bytes() -> bytes:
    import io

    from PIL import Image

    buffer = io.BytesIO()
    Image.new("RGB", (8, 8), (200, 30, 30)).save(buffer, format="PNG")
    return buffer.getvalue()
