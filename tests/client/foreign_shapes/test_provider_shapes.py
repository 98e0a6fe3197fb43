"""Shapes documented by OpenRouter and Gemini (issue 28, items 18-20, 22, 23): each read as what it says."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

import gatewaykit as gk

from tests.client.conftest import RecordingLedger
from tests.client.foreign_shapes.foreign_server import Answer, foreign_client, recorded, streamed

CHAT = "POST /v1/chat/completions"
MESSAGES = [{"role": "user", "content": "hi"}]


def test_openrouter_error_in_a_200_body_is_that_error() -> None:
    """OpenRouter's HTTP 200 ``{"error": {"code": 502, ...}}`` raises ServerError with its message; the row is an error."""
    ledger = RecordingLedger()
    with foreign_client({CHAT: Answer(recorded("openrouter/error_200.json"))}, ledger) as client:
        with pytest.raises(gk.ServerError) as caught:
            client.chat.completions.create(model="mock-chat", messages=MESSAGES)
    assert caught.value.status == 502 and "upstream model is overloaded" in caught.value.message
    (row,) = ledger.records
    assert row.status == "error" and "overloaded" in (row.error_message or "")


def test_a_200_error_body_takes_its_class_from_its_code() -> None:
    """A 200 body ``{"error": {"code": 402, ...}}`` is InsufficientQuotaError (the code names the status)."""
    body = {"error": {"code": 402, "message": "Insufficient credits. Add more using https://openrouter.ai/credits"}}
    with foreign_client({CHAT: Answer(body)}) as client:
        with pytest.raises(gk.InsufficientQuotaError, match="Insufficient credits"):
            client.chat.completions.create(model="mock-chat", messages=MESSAGES)


def test_an_answer_with_an_error_field_and_choices_is_still_an_answer() -> None:
    """A body with ``choices`` and a null or extra ``error`` field is read as the answer it is."""
    body = {
        "id": "c1", "object": "chat.completion", "created": 1, "model": "mock-chat", "error": None,
        "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "fine"}}],
    }  # fmt: skip
    with foreign_client({CHAT: Answer(body)}) as client:
        assert client.chat.completions.create(model="mock-chat", messages=MESSAGES).content == "fine"


def test_openrouter_error_chunk_mid_stream_raises_with_the_partial_text() -> None:
    """OpenRouter's chunk with ``error`` and ``finish_reason: "error"``: raised, text so far kept, row interrupted."""
    ledger = RecordingLedger()
    with foreign_client({CHAT: streamed(recorded("openrouter/stream_error.sse"))}, ledger) as client:
        stream = client.chat.completions.create(model="mock-chat", messages=MESSAGES, stream=True)
        with pytest.raises(gk.ServerError) as caught:
            stream.final()
    error = caught.value
    assert "Provider disconnected unexpectedly" in error.message
    assert error.partial is not None and error.partial.content == "The first half of an answer"
    (row,) = ledger.records
    assert row.status == "interrupted" and "Provider disconnected" in (row.error_message or "")


def test_openrouter_error_chunk_through_ask_raises() -> None:
    """``chat.ask()`` (streamed through the display) raises too, never returns the half answer as complete."""
    with foreign_client({CHAT: streamed(recorded("openrouter/stream_error.sse"))}) as client:
        with pytest.raises(gk.ServerError, match="Provider disconnected"):
            client.chat.ask("hi", model="mock-chat")


def test_gemini_error_list_reads_its_message() -> None:
    """Gemini's ``[{"error": {...}}]`` 400 is a BadRequestError with Gemini's message."""
    with foreign_client({CHAT: Answer(recorded("gemini/error_list.json"), status=400)}) as client:
        with pytest.raises(gk.BadRequestError) as caught:
            client.chat.completions.create(model="mock-chat", messages=MESSAGES)
    assert "temperature must be between 0 and 2" in caught.value.message
    assert "no error message" not in caught.value.message


def test_a_models_answer_that_is_not_a_list_is_an_error_naming_it() -> None:
    """A chat completion's body from /v1/models raises UnexpectedResponseError naming what came back."""
    with foreign_client({"GET /v1/models": Answer(recorded("litellm/chat.json"))}) as client:
        with pytest.raises(gk.UnexpectedResponseError) as caught:
            client.models.list()
    message = caught.value.message
    assert "client.models.list()" in message and "not a list of models" in message and "chat.completion" in message


def test_a_bare_list_of_models_reads_as_the_catalog() -> None:
    """A models answer that is a bare JSON list of models reads as those models."""
    with foreign_client({"GET /v1/models": Answer([{"id": "m1", "object": "model"}])}) as client:
        assert client.models.list().ids == ["m1"]


class _Script:
    """Answers one request after another from a list (the last repeats)."""

    def __init__(self, *answers: Answer) -> None:
        self.answers = list(answers)

    def response(self) -> httpx.Response:
        answer = self.answers.pop(0) if len(self.answers) > 1 else self.answers[0]
        return answer.response()


def _final_text() -> Answer:
    return Answer({
        "id": "gemini-2", "object": "chat.completion", "created": 1, "model": "gemini-3-pro-preview",
        "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "Sunny."}}],
    })  # fmt: skip


def test_gemini_thought_signature_goes_back_with_its_tool_call() -> None:
    """A session's second request carries the tool call's ``extra_content`` (Gemini 3's thought signature)."""

    def get_weather(city: str) -> str:
        """The weather in a city."""
        return f"sunny in {city}"

    script = _Script(Answer(recorded("gemini/tool_call.json")), _final_text())
    with foreign_client({CHAT: script}) as client:  # type: ignore[dict-item]
        chat = client.chat.session(model="mock-chat", tools=[get_weather])
        assert chat("Weather in Paris?").content == "Sunny."
        sent = [json.loads(request.content) for request in client.requests_seen if request.url.path.endswith("/completions")]  # type: ignore[attr-defined]
    assistant = next(message for message in sent[1]["messages"] if message["role"] == "assistant")
    (call,) = assistant["tool_calls"]
    assert call["extra_content"] == {"google": {"thought_signature": "CiQBVKhc7xSIGNATUREexample0123456789"}}
    assert call["id"] == "function-call-1" and call["function"]["name"] == "get_weather"


def test_streamed_tool_call_keeps_its_extra_content() -> None:
    """A streamed tool call's fragments keep ``extra_content`` in the assembled completion (sent back from there)."""
    from gatewaykit.client.core.assembly import ChatAssembler
    from gatewaykit.client.conversation.tool_loop import assistant_message

    fragment: dict[str, Any] = {
        "index": 0, "id": "fc-1", "type": "function", "function": {"name": "get_weather", "arguments": "{}"},
        "extra_content": {"google": {"thought_signature": "sig-123"}},
    }  # fmt: skip
    assembler = ChatAssembler()
    assembler.add(gk.ChatCompletionChunk.model_validate({
        "id": "s1", "object": "chat.completion.chunk", "created": 1, "model": "gemini-3",
        "choices": [{"index": 0, "delta": {"role": "assistant", "tool_calls": [fragment]}, "finish_reason": "tool_calls"}],
    }))  # fmt: skip
    entry = assistant_message(assembler.result())
    assert entry["tool_calls"][0]["extra_content"] == {"google": {"thought_signature": "sig-123"}}
