"""Chat completions: answers, usage, determinism, parameters."""

from __future__ import annotations

import json

import pytest


def chat(http, **fields):
    body = {"model": "chat-mini", "messages": [{"role": "user", "content": "Explain caching in Python"}], **fields}
    return http.post("/v1/chat/completions", json=body)


def test_plain_answer_is_markdown_with_usage_and_cost(http):
    """A plain chat answers Markdown with a heading, list and code block, plus usage and cost."""
    body = chat(http).json()
    content = body["choices"][0]["message"]["content"]
    assert body["object"] == "chat.completion" and body["model"] == "chat-mini"
    assert content.startswith("## ") and "```" in content and "\n- " in content or "\n1. " in content
    usage = body["usage"]
    assert usage["total_tokens"] == usage["prompt_tokens"] + usage["completion_tokens"]
    assert usage["cost"]["total_cost"] > 0


def test_same_seed_gives_the_same_answer(http):
    """The same request with the same seed gives the same content."""
    first = chat(http, seed=7).json()["choices"][0]["message"]["content"]
    second = chat(http, seed=7).json()["choices"][0]["message"]["content"]
    other = chat(http, seed=8).json()["choices"][0]["message"]["content"]
    assert first == second != other


def test_table_when_asked_for_a_comparison(http):
    """A comparison prompt gets a Markdown table."""
    body = chat(http, messages=[{"role": "user", "content": "Compare Python vs Rust in a table"}]).json()
    assert "| Aspect | Python | Rust |" in body["choices"][0]["message"]["content"]


def test_reasoning_model_returns_reasoning_and_details(http):
    """chat-reasoner returns reasoning and reasoning_details and counts reasoning tokens."""
    body = chat(http, model="chat-reasoner").json()
    message = body["choices"][0]["message"]
    assert message["reasoning"] and message["reasoning_details"][0]["text"] == message["reasoning"]
    assert body["usage"]["completion_tokens_details"]["reasoning_tokens"] > 0
    assert body["usage"]["cost"]["reasoning_tokens_cost"] > 0


def test_reasoning_effort_none_turns_reasoning_off(http):
    """reasoning_effort none gives no reasoning and no reasoning tokens."""
    body = chat(http, model="chat-reasoner", reasoning_effort="none").json()
    assert body["choices"][0]["message"].get("reasoning") is None
    assert body["usage"]["completion_tokens_details"]["reasoning_tokens"] == 0


def test_reasoning_effort_changes_trace_length(http):
    """Higher reasoning_effort gives more reasoning tokens."""
    tokens = [chat(http, model="chat-reasoner", reasoning_effort=effort).json()["usage"]
              ["completion_tokens_details"]["reasoning_tokens"] for effort in ("low", "medium", "high")]
    assert tokens[0] < tokens[1] < tokens[2]


def test_low_max_tokens_gives_length_and_empty_content(http):
    """A very low max_tokens on a reasoning model gives empty content, finish_reason length, 200."""
    answer = chat(http, model="chat-reasoner", max_tokens=3)
    assert answer.status_code == 200
    choice = answer.json()["choices"][0]
    assert choice["finish_reason"] == "length" and choice["message"]["content"] == ""
    assert answer.json()["usage"]["completion_tokens"] == 3


def test_max_completion_tokens_truncates_content(http):
    """max_completion_tokens caps completion tokens with finish_reason length."""
    body = chat(http, max_completion_tokens=10).json()
    assert body["choices"][0]["finish_reason"] == "length"
    assert body["usage"]["completion_tokens"] == 10


def test_stop_truncates_at_first_occurrence(http):
    """stop cuts the content before the first stop sequence, finish_reason stop."""
    full = chat(http, seed=3).json()["choices"][0]["message"]["content"]
    body = chat(http, seed=3, stop=["```", "###"]).json()
    content = body["choices"][0]["message"]["content"]
    assert content == full[: min(i for i in (full.find("```"), full.find("###")) if i >= 0)]
    assert body["choices"][0]["finish_reason"] == "stop"


def test_n_gives_several_choices(http):
    """n=3 gives three indexed choices."""
    body = chat(http, n=3).json()
    assert [c["index"] for c in body["choices"]] == [0, 1, 2]


def test_logprobs_with_top_logprobs(http):
    """logprobs with top_logprobs=3 gives one entry per content token with 3 alternatives."""
    body = chat(http, logprobs=True, top_logprobs=3, max_tokens=20).json()
    entries = body["choices"][0]["logprobs"]["content"]
    assert "".join(e["token"] for e in entries) == body["choices"][0]["message"]["content"]
    assert all(len(e["top_logprobs"]) == 3 and e["logprob"] <= 0 for e in entries)


def test_json_object_mode_gives_valid_json(http):
    """response_format json_object gives a JSON object."""
    body = chat(http, response_format={"type": "json_object"}).json()
    assert isinstance(json.loads(body["choices"][0]["message"]["content"]), dict)


def test_json_schema_mode_conforms_to_the_schema(http):
    """response_format json_schema gives JSON with every property of the right type."""
    schema = {"type": "object", "required": ["name", "age", "tags", "level"],
              "properties": {"name": {"type": "string"}, "age": {"type": "integer", "minimum": 0, "maximum": 120},
                             "tags": {"type": "array", "items": {"type": "string"}, "minItems": 1},
                             "level": {"enum": ["low", "high"]},
                             "address": {"type": "object", "properties": {"city": {"type": "string"}},
                                         "required": ["city"]}}}
    body = chat(http, response_format={"type": "json_schema", "json_schema": {"name": "p", "schema": schema}}).json()
    value = json.loads(body["choices"][0]["message"]["content"])
    assert isinstance(value["name"], str) and 0 <= value["age"] <= 120 and value["level"] in ("low", "high")
    assert value["tags"] and all(isinstance(t, str) for t in value["tags"])
    assert isinstance(value["address"]["city"], str)


@pytest.mark.parametrize("field,value", [
    ("temperature", 2.5), ("temperature", -0.1), ("top_p", 1.5), ("frequency_penalty", 3),
    ("presence_penalty", -2.5), ("top_logprobs", 21), ("stop", ["a", "b", "c", "d", "e"]),
    ("n", 0), ("max_tokens", 0), ("temperature", "hot"), ("reasoning_effort", "extreme"),
    ("messages", []), ("tool_choice", "sometimes"), ("response_format", {"type": "yaml"}),
])
def test_out_of_range_fields_are_400_naming_the_field(http, field, value):
    """Every rule in the chat request table gives 400 with param naming the field."""
    answer = chat(http, **{field: value})
    assert answer.status_code == 400
    assert answer.json()["error"]["param"] == field


def test_unknown_fields_are_ignored(http):
    """Fields the spec does not list are ignored."""
    assert chat(http, verbosity="low", fancy_new_option={"x": 1}).status_code == 200
