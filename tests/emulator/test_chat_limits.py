"""Hostile chat requests: oversized or malformed schemas, odd tool calls and deep nesting give 400s, never 500s."""

from __future__ import annotations

import threading
import time

import httpx
import pytest

USER = [{"role": "user", "content": "Fill it in"}]


def with_schema(schema):
    return {"model": "chat-mini", "messages": USER,
            "response_format": {"type": "json_schema", "json_schema": {"name": "x", "schema": schema}}}


def assert_400(answer, param):
    assert answer.status_code == 400, answer.text
    error = answer.json()["error"]
    assert error["type"] == "invalid_request_error" and error["param"] == param
    return error["message"]


def test_huge_min_items_in_json_schema_is_400(http):
    """minItems 10,000,000 is a 400 naming the schema and the limit, not a frozen server."""
    schema = {"type": "object", "properties": {"a": {"type": "array", "minItems": 10_000_000}}, "required": ["a"]}
    message = assert_400(http.post("/v1/chat/completions", json=with_schema(schema)),
                         "response_format.json_schema.schema")
    assert "minItems" in message and "1,000" in message and "/properties/a" in message


def test_huge_min_items_in_tool_parameters_is_400(http):
    """The same cap applies to a tool's parameters, naming that tool."""
    tool = {"type": "function", "function": {"name": "f", "parameters": {
        "type": "object", "properties": {"a": {"type": "array", "minItems": 10_000_000}}, "required": ["a"]}}}
    answer = http.post("/v1/chat/completions", json={"model": "chat-mini", "messages": USER, "tools": [tool],
                                                     "tool_choice": "required"})
    assert "minItems" in assert_400(answer, "tools[0].function.parameters")


def test_nested_min_items_that_multiply_past_the_cap_are_400(http):
    """Nested minItems within the per-keyword cap still cannot multiply into a huge answer."""
    schema = {"type": "array", "minItems": 1000, "items": {"type": "array", "minItems": 1000}}
    message = assert_400(http.post("/v1/chat/completions", json=with_schema(schema)),
                         "response_format.json_schema.schema")
    assert "20,000 values" in message


@pytest.mark.parametrize("schema, keyword", [
    ({"type": "integer", "maximum": "10"}, "maximum"),
    ({"type": "number", "minimum": "abc"}, "minimum"),
    ({"type": "object", "required": [{"x": 1}]}, "required"),
    ({"allOf": [{"type": "object", "properties": [1, 2]}]}, "properties"),
    ({"type": "string", "maxLength": "10"}, "maxLength"),
    ({"type": "string", "pattern": "(unclosed"}, "pattern"),
    ({"type": "integer", "multipleOf": 0}, "multipleOf"),
    ({"anyOf": []}, "anyOf"),
    ({"type": 5}, "type"),
])
def test_keywords_of_the_wrong_type_are_400(http, schema, keyword):
    """A schema keyword with a value of the wrong type is a 400 that names the keyword."""
    wrapped = {"type": "object", "properties": {"a": schema}, "required": ["a"]}
    message = assert_400(http.post("/v1/chat/completions", json=with_schema(wrapped)),
                         "response_format.json_schema.schema")
    assert keyword in message


def test_required_ref_cycle_is_400(http):
    """A schema that can only recurse forever is a 400, not a RecursionError."""
    schema = {"$defs": {"N": {"type": "object", "required": ["n"], "properties": {"n": {"$ref": "#/$defs/N"}}}},
              "$ref": "#/$defs/N"}
    assert "recurses" in assert_400(http.post("/v1/chat/completions", json=with_schema(schema)),
                                    "response_format.json_schema.schema")


def test_tool_call_id_that_is_a_list_is_400(http):
    """An assistant tool_calls[].id that is a list is a 400 on that tool call."""
    messages = [{"role": "user", "content": "x"},
                {"role": "assistant", "content": None, "tool_calls": [
                    {"id": ["a"], "type": "function", "function": {"name": "f", "arguments": "{}"}}]},
                {"role": "tool", "tool_call_id": "a", "content": "1"}]
    answer = http.post("/v1/chat/completions", json={"model": "chat-mini", "messages": messages})
    assert_400(answer, "messages[1].tool_calls[0]")


def test_thousand_level_nesting_is_400(http):
    """A message nested ~1,000 levels deep is a 400 naming the field (no RecursionError 500)."""
    body = ('{"model": "chat-mini", "messages": [{"role": "user", "content": "x", "extra": '
            + "[" * 1000 + "]" * 1000 + "}]}")
    answer = http.post("/v1/chat/completions", content=body, headers={"content-type": "application/json"})
    assert "nested" in assert_400(answer, "messages")


def test_deep_schema_is_400(http):
    """A schema nested past the documented depth is a 400."""
    schema: dict = {"type": "string"}
    for _ in range(70):
        schema = {"type": "object", "properties": {"a": schema}}
    assert "64 levels" in assert_400(http.post("/v1/chat/completions", json=with_schema(schema)),
                                     "response_format.json_schema.schema")


def test_big_answer_does_not_hold_up_other_requests(emulator, http):
    """While a large json_schema answer is generated, GET /v1/models completes first."""
    schema = {"type": "array", "minItems": 1000, "maxItems": 1000,
              "items": {"type": "array", "minItems": 18, "maxItems": 18,
                        "items": {"type": "string", "pattern": "^[a-z]{5,9}-[0-9]{3}$"}}}
    finished: list[str] = []
    started = threading.Event()

    def big() -> None:
        with httpx.Client(base_url=emulator.base_url, headers=dict(http.headers), timeout=120) as client:
            started.set()
            answer = client.post("/v1/chat/completions", json=with_schema(schema))
            finished.append(f"big {answer.status_code}")

    thread = threading.Thread(target=big)
    thread.start()
    started.wait()
    time.sleep(0.3)  # let the big request reach the server; its generation takes well over a second
    models = http.get("/v1/models")
    finished.append(f"models {models.status_code}")
    thread.join()
    assert finished == ["models 200", "big 200"]


def test_pattern_forcing_a_huge_string_is_400(http):
    """A pattern whose matches are millions of characters long is a 400, not a frozen worker."""
    schema = {"type": "object", "properties": {"a": {"type": "string", "pattern": "^(a{1000}){1000}$"}},
              "required": ["a"]}
    message = assert_400(http.post("/v1/chat/completions", json=with_schema(schema)),
                         "response_format.json_schema.schema")
    assert "10,000 characters" in message


def test_deeply_nested_tool_result_text_is_answered(http):
    """A tool result whose text is 5,000-level nested JSON gets a 200 answer quoting it, not a 500."""
    messages = [{"role": "user", "content": "x"},
                {"role": "assistant", "content": None, "tool_calls": [
                    {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}]},
                {"role": "tool", "tool_call_id": "c1", "content": "[" * 5000 + "]" * 5000}]
    answer = http.post("/v1/chat/completions", json={"model": "chat-mini", "messages": messages})
    assert answer.status_code == 200 and "[[[" in answer.json()["choices"][0]["message"]["content"]
