"""Answers real OpenAI-compatible servers send, read by gatewaykit's client (recorded and hand-written)."""

from __future__ import annotations

import json

import pytest

import gatewaykit as gk

from tests.client.conftest import RecordingLedger
from tests.client.foreign_shapes.foreign_server import Answer, foreign_client, recorded

CHAT = "POST /v1/chat/completions"
MESSAGES = [{"role": "user", "content": "hi"}]


def completion(**fields: object) -> dict:
    body = {
        "id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "mock-chat",
        "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "hello"}}],
    }
    body.update(fields)
    return body


def ask(body: object, ledger: RecordingLedger | None = None, **answer: object) -> gk.ChatCompletion:
    with foreign_client({CHAT: Answer(body, **answer)}, ledger) as client:  # type: ignore[arg-type]
        return client.chat.completions.create(model="mock-chat", messages=MESSAGES)


def test_litellm_catalog_lists_its_models() -> None:
    """LiteLLM's /v1/models (no modalities, extra fields) lists every model id."""
    with foreign_client({}) as client:
        models = client.models.list()
    assert models.ids == ["mock-chat", "mock-free", "mock-tool", "mock-ratelimit"]
    assert models["mock-chat"].model_extra["max_input_tokens"] == 128000


def test_litellm_completion_without_cost_is_read() -> None:
    """LiteLLM's buffered answer (usage without cost) reads, its cost unknown (None)."""
    answer = ask(recorded("litellm/chat.json"))
    assert answer.content == "Hello from the mock proxy."
    assert answer.usage is not None and answer.usage.prompt_tokens == 10 and answer.usage.total_cost is None


def test_litellm_tool_call_answer_is_read() -> None:
    """LiteLLM's mock tool call (content "", finish_reason stop) reads as a tool call."""
    answer = ask(recorded("litellm/chat_tool.json"))
    call = answer.choices[0].message.tool_calls[0]  # type: ignore[index]
    assert (call.id, call.function.name, json.loads(call.function.arguments)) == ("call_1", "get_weather", {"city": "Paris"})


def test_cost_as_a_number_is_the_total() -> None:
    """``usage.cost: 1.14e-05`` (LiteLLM) reads as ``cost.total_cost``."""
    answer = ask(completion(usage={"prompt_tokens": 1, "completion_tokens": 2, "total_tokens": 3, "cost": 1.14e-05}))
    assert answer.usage is not None and answer.usage.total_cost == pytest.approx(1.14e-05)


def test_cost_with_unknown_breakdown_fields_keeps_them() -> None:
    """A cost breakdown with fields the spec does not name keeps them (and the total)."""
    cost = {"total_cost": 0.002, "upstream_inference_cost": 0.0015, "cache_discount": -0.0001}
    answer = ask(completion(usage={"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2, "cost": cost}))
    assert answer.usage is not None and answer.usage.cost is not None
    assert answer.usage.total_cost == 0.002 and answer.usage.cost.model_extra["upstream_inference_cost"] == 0.0015


def test_cost_breakdown_without_a_total_is_not_a_zero() -> None:
    """A cost object with no ``total_cost`` leaves the total unknown, never 0.0."""
    answer = ask(completion(usage={"prompt_tokens": 1, "cost": {"input_tokens_cost": 0.001}}))
    assert answer.usage is not None and answer.usage.total_cost is None


def test_no_usage_at_all() -> None:
    """An answer without ``usage`` reads; the ledger row is ok with no cost."""
    ledger = RecordingLedger()
    answer = ask(completion(), ledger)
    assert answer.content == "hello" and answer.usage is None
    assert ledger.records[0].status == "ok" and ledger.records[0].usage is None


def test_null_counts_take_their_defaults() -> None:
    """``prompt_tokens: null`` (LiteLLM's mock docs), ``id: null``, ``created`` as a float read."""
    answer = ask(completion(id=None, created=1694459929.0, usage={"prompt_tokens": None, "completion_tokens": None, "total_tokens": None}))
    assert answer.id == "" and answer.usage is not None and answer.usage.prompt_tokens == 0


def test_unknown_finish_reason_is_kept() -> None:
    """A finish_reason the spec does not list (``eos``, ``end_turn``) is kept as sent."""
    body = completion()
    body["choices"][0]["finish_reason"] = "end_turn"  # type: ignore[index]
    assert ask(body).choices[0].finish_reason == "end_turn"


def test_reasoning_content_is_the_reasoning() -> None:
    """DeepSeek's ``reasoning_content`` reads as ``reasoning``."""
    body = completion()
    body["choices"][0]["message"]["reasoning_content"] = "think first"  # type: ignore[index]
    assert ask(body).choices[0].message.reasoning == "think first"


def test_tool_arguments_as_an_object_become_json() -> None:
    """Tool-call ``arguments`` sent as an object (Ollama) become the JSON string the spec has."""
    body = completion()
    body["choices"][0]["message"] = {  # type: ignore[index]
        "role": "assistant", "content": None,
        "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "f", "arguments": {"x": 1}}}],
    }
    call = ask(body).choices[0].message.tool_calls[0]  # type: ignore[index]
    assert json.loads(call.function.arguments) == {"x": 1}


def test_content_as_text_parts_is_joined() -> None:
    """A message ``content`` sent as a list of text parts reads as their text."""
    body = completion()
    body["choices"][0]["message"]["content"] = [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]  # type: ignore[index]
    assert ask(body).content == "ab"


def test_a_200_that_is_not_json_is_an_unexpected_response() -> None:
    """A 200 whose body is not JSON: UnexpectedResponseError naming the call, the status and an excerpt."""
    with pytest.raises(gk.UnexpectedResponseError) as caught:
        ask("<html><body>Welcome to nginx!</body></html>", content_type="text/html")
    message = str(caught.value)
    assert "client.chat.completions.create(...)" in message and "200" in message and "not JSON" in message
    assert "Welcome to nginx!" in message and caught.value.status == 200


def test_a_json_of_the_wrong_shape_is_an_unexpected_response() -> None:
    """A 200 JSON the call cannot use (``choices`` a string) says which field was wrong."""
    with pytest.raises(gk.UnexpectedResponseError, match="choices"):
        ask(completion(choices="none"))


def test_unusable_answer_excerpt_scrubs_keys() -> None:
    """The excerpt in the message never shows an API key."""
    with pytest.raises(gk.UnexpectedResponseError) as caught:
        ask("oops sk-live-abcdef123456 leaked", content_type="text/plain")
    assert "sk-live-abcdef123456" not in str(caught.value) and "sk-***" in str(caught.value)


def test_unusable_answer_is_recorded_with_an_unknown_charge() -> None:
    """An unusable 200 leaves one ledger row saying the charge is unknown, with the reason."""
    ledger = RecordingLedger()
    with pytest.raises(gk.UnexpectedResponseError):
        ask("not json", ledger, content_type="text/plain")
    (row,) = ledger.records
    assert row.status == "interrupted" and "not JSON" in (row.error_message or "")


def test_catalog_that_is_not_json_is_an_unexpected_response() -> None:
    """``models.list()`` on a 200 HTML page names ``client.models.list()``."""
    with foreign_client({"GET /v1/models": Answer("<html>login</html>", content_type="text/html")}) as client:
        with pytest.raises(gk.UnexpectedResponseError, match=r"client\.models\.list\(\)"):
            client.models.list()
