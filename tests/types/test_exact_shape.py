"""``read_json`` skips the tolerant rules only where they change nothing: the same value as the type's own reading."""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

from gatewaykit.types import ChatCompletion, ChatCompletionChunk, ModelList
from gatewaykit.types.exact_shape import TOLERANT_RULES, before_validators, read_json

USAGE = {"prompt_tokens": 9, "completion_tokens": 3, "total_tokens": 12, "cost": {"total_cost": 0.001}}
CALL = {"index": 0, "id": "call_1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
CHUNK = {"id": "c1", "object": "chat.completion.chunk", "created": 1, "model": "m"}
ANSWER = {"id": "a1", "object": "chat.completion", "created": 1, "model": "m"}

CHUNKS = [
    {**CHUNK, "choices": [{"index": 0, "delta": {"role": "assistant", "content": "hi"}, "finish_reason": None}]},
    {**CHUNK, "choices": [{"index": 0, "delta": {"tool_calls": [CALL]}, "finish_reason": None}], "vendor": {"a": 1}},
    {**CHUNK, "choices": [], "usage": USAGE},
    {**CHUNK, "id": None, "created": None, "choices": None},  # nulls take their defaults
    {**CHUNK, "choices": [{"index": None, "delta": None, "finish_reason": "stop"}]},
    {**CHUNK, "choices": [{"index": 0, "delta": {"reasoning_content": "think"}}]},  # DeepSeek's name
    {**CHUNK, "choices": [{"index": 0, "delta": {"tool_calls": [{**CALL, "function": {"name": "f", "arguments": {"x": 1}}}]}}]},
    {**CHUNK, "choices": [], "usage": {**USAGE, "cost": 0.002, "prompt_tokens": None}},
]
ANSWERS = [
    {**ANSWER, "choices": [{"index": 0, "message": {"role": "assistant", "content": "hi"}, "finish_reason": "stop"}], "usage": USAGE},
    {**ANSWER, "choices": [{"index": 0, "message": {"role": None, "content": [{"type": "text", "text": "a"}]}}]},
    {**ANSWER, "choices": [{"index": 0, "message": {"content": None, "tool_calls": [{**CALL, "function": None}]}}]},
    {**ANSWER, "choices": [{"index": 0, "message": {"reasoning_content": "why", "content": "x"}}], "usage": {**USAGE, "cost": "0.5"}},
]  # fmt: skip


def test_the_skipped_rules_are_exactly_the_reviewed_ones() -> None:
    """Every before-validator of a chat answer and chunk is one the exact-shape argument was checked for."""
    assert before_validators(ChatCompletion) | before_validators(ChatCompletionChunk) == TOLERANT_RULES


@pytest.mark.parametrize("body", CHUNKS)
def test_a_chunk_reads_as_the_type_reads_it(body: dict) -> None:
    """Exact or variant, a chunk read by read_json equals the type's own reading, fields set included."""
    data = json.dumps(body)
    ours, theirs = read_json(ChatCompletionChunk, data), ChatCompletionChunk.model_validate_json(data)
    assert ours == theirs and ours.model_dump() == theirs.model_dump()
    assert ours.model_fields_set == theirs.model_fields_set and ours.model_extra == theirs.model_extra


@pytest.mark.parametrize("body", ANSWERS)
def test_an_answer_reads_as_the_type_reads_it(body: dict) -> None:
    """Exact or variant, a completion read by read_json (bytes) equals the type's own reading."""
    data = json.dumps(body).encode()
    ours, theirs = read_json(ChatCompletion, data), ChatCompletion.model_validate_json(data)
    assert ours == theirs and ours.model_dump() == theirs.model_dump()
    assert ours.choices[0].message.model_extra == theirs.choices[0].message.model_extra


def test_an_unreadable_body_raises_what_the_type_raises() -> None:
    """A body that is not JSON fails with the type's own ValidationError."""
    with pytest.raises(ValidationError, match="json_invalid|Invalid JSON"):
        read_json(ChatCompletionChunk, "not json")


def test_a_type_with_unreviewed_rules_is_read_by_the_type() -> None:
    """The catalog's rules were never reviewed for skipping: read_json reads it exactly as the type does."""
    data = json.dumps({"object": "list", "data": [{"id": "chat-mini", "kind": "chat"}]})
    assert read_json(ModelList, data) == ModelList.model_validate_json(data)
