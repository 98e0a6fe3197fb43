"""The fast path for chunks of the spec's exact shape: the same chunks as the tolerant reader, or none.

Every chunk the fast reader builds must be exactly what pydantic's validation
(with the foreign-server rules of ``types/lenient.py``) gives: same class, same
values, same ``model_fields_set``, same extras, at every level. Every other
shape must be refused, so that the tolerant reader reads it, in the middle of
a stream of fast chunks as well as at its start.
"""

from __future__ import annotations

import json
from typing import Any, Optional

import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from pydantic import BaseModel

from gatewaykit import ChatStream, GatewayError, RateLimitError, UnexpectedResponseError
from gatewaykit.client.core.assembly import ChatAssembler
from gatewaykit.client.core.streaming import _read_chunk
from gatewaykit.types import ChatCompletionChunk, ChunkChoice, Delta
from gatewaykit.types.spec_chunks import REVIEWED_VALIDATORS, SpecChunkReader, spec_chunk

from .chunks import USAGE, chunk


def state(value: Any) -> Any:
    """Everything a model holds, recursively: class, fields, fields set, extras."""
    if isinstance(value, BaseModel):
        fields = {name: state(item) for name, item in value.__dict__.items()}
        return (type(value), fields, set(value.model_fields_set), state(value.__pydantic_extra__), value.__pydantic_private__)
    if isinstance(value, list):
        return [state(item) for item in value]
    if isinstance(value, dict):
        return {key: state(item) for key, item in value.items()}
    return (type(value), value)


def tolerant(data: str) -> Optional[ChatCompletionChunk]:
    return _read_chunk(data)[0]  # (chunk, whether it names an error)


def text(payload: Any, **dump: Any) -> str:
    return payload if isinstance(payload, str) else json.dumps(payload, **dump)


SPEC_SHAPES = [
    chunk({"role": "assistant", "content": "Hel"}),
    chunk({"content": "lo"}),
    chunk({"content": ""}),
    chunk({"content": None, "role": None}),
    chunk({"reasoning": "think", "refusal": None}),
    chunk({}, finish="stop"),
    chunk({"content": "x"}, index=2),
    chunk(None),  # no choices
    {**chunk({"content": "x"}), "system_fingerprint": "fp_1", "obfuscation": "abc"},  # extras kept
    {**chunk({"content": "x"}), "usage": None},
    {"choices": [{"delta": {"content": "only"}}]},  # every other field at its default
    {**chunk({"content": "x"}), "choices": [{"index": 0, "delta": {"content": "x"}, "finish_reason": None, "logprobs": None}]},
]

FOREIGN_SHAPES = {
    "null id": {**chunk({"content": "x"}), "id": None},
    "null created": {**chunk({"content": "x"}), "created": None},
    "created as a string": {**chunk({"content": "x"}), "created": "1"},
    "created as a float": {**chunk({"content": "x"}), "created": 1.0},
    "null choices": {**chunk(None), "choices": None},
    "null index": {**chunk({"content": "x"}), "choices": [{"index": None, "delta": {"content": "x"}, "finish_reason": None}]},
    "null delta": {**chunk(None), "choices": [{"index": 0, "delta": None, "finish_reason": "stop"}]},
    "no delta": {**chunk(None), "choices": [{"index": 0, "finish_reason": "stop"}]},
    "reasoning_content": chunk({"reasoning_content": "let me think"}),
    "reasoning_content beside null reasoning": chunk({"reasoning": None, "reasoning_content": "hmm"}),
    "tool call with arguments as an object": chunk(
        {"tool_calls": [{"index": 0, "id": "c1", "type": "function", "function": {"name": "f", "arguments": {"a": 1}}}]}
    ),
    "tool call with null function": chunk({"tool_calls": [{"index": 0, "id": "c1", "function": None}]}),
    "tool call": chunk({"tool_calls": [{"index": 0, "id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}]}),
    "usage with cost as a number": {**chunk(None), "usage": {**USAGE, "cost": 4.8e-6}},
    "usage": {**chunk(None), "usage": USAGE},
    "logprobs": {**chunk(None), "choices": [{"index": 0, "delta": {"content": "x"}, "logprobs": {"content": [{"token": "x"}]}}]},
    "choice extras": {**chunk(None), "choices": [{"index": 0, "delta": {"content": "x"}, "native_finish_reason": None}]},
    "delta extras": chunk({"content": "x", "audio_delta": "?"}),
    "content as a number": chunk({"content": 5}),
    "role as a number": chunk({"role": 1, "content": "x"}),
    "index as a bool": {**chunk(None), "choices": [{"index": True, "delta": {"content": "x"}}]},
    "a list": [chunk({"content": "x"})],
    "an error envelope": {"error": {"message": "slow down", "type": "rate_limit_error", "code": "429"}},
    "an error beside choices": {**chunk({"content": "x"}), "error": {"message": "partial"}},
}


@pytest.mark.parametrize("payload", SPEC_SHAPES)
def test_spec_shapes_are_built_as_pydantic_validates_them(payload: Any) -> None:
    """A chunk of the spec's shape is built directly, and is exactly pydantic's chunk."""
    data = text(payload)
    built = SpecChunkReader().read(data)
    assert built is not None, "the spec's own shape must take the fast path"
    assert state(built) == state(tolerant(data))


@pytest.mark.parametrize("name", sorted(FOREIGN_SHAPES))
def test_foreign_shapes_are_left_to_the_tolerant_reader(name: str) -> None:
    """Any shape a lenient rule reads (or that is not the spec's) is refused by the fast path."""
    data = text(FOREIGN_SHAPES[name])
    assert SpecChunkReader().read(data) is None
    assert spec_chunk(json.loads(data)) is None


@pytest.mark.parametrize("name", sorted(FOREIGN_SHAPES))
def test_each_foreign_shape_mid_stream_reads_as_the_tolerant_reader_reads_it(name: str) -> None:
    """Fast chunks, then a foreign one, then fast ones again: each chunk, the assembly or the error are the tolerant reader's."""
    before = [chunk({"role": "assistant", "content": "Hel"}), chunk({"content": "lo"}), chunk({"content": " wor"})]
    after = [chunk({"content": "ld"}), chunk({"content": "!"}), chunk({}, finish="stop")]
    events = [json.dumps(item) for item in before] + [text(FOREIGN_SHAPES[name])] + [json.dumps(item) for item in after]
    body = ("".join(f"data: {data}\n\n" for data in events) + "data: [DONE]\n\n").encode()
    try:
        foreign = tolerant(events[3])
    except ValueError:  # not a chunk even to the tolerant reader: the same clear error, the partial kept
        with pytest.raises(UnexpectedResponseError) as caught:
            ChatStream(iter([body]), lambda: None).final()
        assert caught.value.partial.content == "Hello wor"
        return
    if _read_chunk(events[3])[1] and foreign is not None:  # an error beside choices (OpenRouter): raised, text kept
        with pytest.raises(GatewayError, match="partial") as caught:
            ChatStream(iter([body]), lambda: None).final()
        assert caught.value.partial.content == "Hello worx"  # type: ignore[attr-defined]
        return
    if foreign is None:  # an error object: its error
        with pytest.raises(RateLimitError, match="slow down"):
            ChatStream(iter([body]), lambda: None).final()
        return
    expected = [tolerant(data) for data in events]
    stream = ChatStream(iter([body]), lambda: None)
    assert [state(item) for item in stream] == [state(item) for item in expected]
    assembler = ChatAssembler()
    for item in expected:
        assembler.add(item)
    assert stream.final() == assembler.result()


def test_error_envelope_mid_stream_is_still_the_mapped_error() -> None:
    """An error object after fast chunks raises its class, as it did before the fast path."""
    body = (
        f"data: {json.dumps(chunk({'content': 'a'}))}\n\ndata: {json.dumps(chunk({'content': 'b'}))}\n\n"
        'data: {"error": {"message": "slow down", "type": "throttling_error", "code": "429"}}\n\n'
    )
    with pytest.raises(RateLimitError, match="slow down"):
        ChatStream(iter([body.encode()]), lambda: None).final()


def test_escaped_text_after_plain_text_is_decoded() -> None:
    """A chunk repeating the last one but for escaped text (quotes, newlines, \\u escapes) is decoded, not copied."""
    reader = SpecChunkReader()
    texts = ["plain", "also plain", 'a "quote"', "two\nlines", "caf\u00e9", "tab\there", "back\\slash", "end"]
    for item in texts:
        for ensure_ascii in (True, False):
            data = json.dumps(chunk({"content": item}), ensure_ascii=ensure_ascii)
            assert state(reader.read(data)) == state(tolerant(data))


def test_a_literal_found_outside_the_content_is_not_taken_for_it() -> None:
    """When the content's text also stands (unescaped) in another field, the other field is not replaced."""
    reader = SpecChunkReader()
    for note in ("x", "y", "z"):
        data = json.dumps({**chunk({"content": "x"}), "note": note}).replace('"content": "x"', '"content": "\\u0078"')
        assert state(reader.read(data)) == state(tolerant(data))


def test_chunks_given_out_do_not_share_their_parts() -> None:
    """Changing a chunk the caller received changes no later chunk (each has its own fields, sets and extras)."""
    reader = SpecChunkReader()
    first = reader.read(json.dumps({**chunk({"content": "a"}), "system_fingerprint": "fp"}))
    second = reader.read(json.dumps({**chunk({"content": "b"}), "system_fingerprint": "fp"}))
    assert first is not None and second is not None
    for given_out in (first, second):  # the one the fast path learned its template from, and one built from it
        given_out.id = "changed"
        given_out.choices[0].delta.role = "tool"
        given_out.__pydantic_extra__["system_fingerprint"] = "other"
    third = reader.read(json.dumps({**chunk({"content": "c"}), "system_fingerprint": "fp"}))
    assert third is not None
    assert (third.id, third.choices[0].delta.role, third.model_extra) == ("chatcmpl-1", None, {"system_fingerprint": "fp"})
    assert "role" not in third.choices[0].delta.model_fields_set


def test_a_foreign_stream_is_left_to_the_tolerant_reader_after_eight_refusals() -> None:
    """Eight foreign chunks in a row: the fast path stops trying, even for a later chunk of the spec's shape."""
    reader = SpecChunkReader()
    foreign = json.dumps(chunk({"reasoning_content": "hmm"}))
    spec = json.dumps(chunk({"content": "x"}))
    for _ in range(7):
        assert reader.read(foreign) is None
    assert reader.read(spec) is not None  # seven refusals, then a spec chunk: still read fast (the count restarts)
    for _ in range(8):
        assert reader.read(foreign) is None
    other = json.dumps(chunk({"role": "assistant", "content": "y"}))
    assert reader.read(other) is None  # given up: the tolerant reader reads it
    assert state(_read_chunk(other)[0]) == state(SpecChunkReader().read(other))


def test_every_validator_of_the_chunk_models_was_reviewed_for_the_fast_path() -> None:
    """A new lenient rule on the chunk's models must be checked against spec_chunk before it can ship."""
    found = {}
    for model in (ChatCompletionChunk, ChunkChoice, Delta):
        decorators = model.__pydantic_decorators__
        found[model.__name__] = set(decorators.model_validators) | set(decorators.field_validators)
    assert found == REVIEWED_VALIDATORS


_TEXT = st.text(alphabet=st.characters(blacklist_categories=["Cs"]), max_size=12)
_DELTA = st.fixed_dictionaries({}, optional={"content": st.none() | _TEXT, "role": st.sampled_from(["assistant", None])})
_CHUNK = st.builds(
    lambda delta, finish, extra: {**chunk(delta, finish=finish), **extra},
    _DELTA,
    st.sampled_from([None, None, "stop"]),
    st.sampled_from([{}, {}, {"system_fingerprint": "fp"}, {"note": "x"}]),
)


@given(st.lists(_CHUNK, min_size=1, max_size=12), st.booleans(), st.sampled_from([(", ", ": "), (",", ":")]))
def test_any_sequence_of_text_chunks_reads_as_pydantic_reads_it(chunks: list[dict], ensure_ascii: bool, separators: tuple) -> None:
    """Whatever the text (quotes, escapes, any script) and however it is written, each chunk is pydantic's."""
    reader = SpecChunkReader()
    for item in chunks:
        data = json.dumps(item, ensure_ascii=ensure_ascii, separators=separators)
        built = reader.read(data)
        assert built is not None and state(built) == state(tolerant(data))



_STREAM_CHUNK = st.builds(
    lambda delta, finish, index, top: chunk(delta, finish=finish, index=index, **top),
    st.fixed_dictionaries({}, optional={"content": st.none() | st.just("x"), "role": st.sampled_from(["assistant", "tool", None])}),
    st.sampled_from([None, None, "stop", "length"]),
    st.sampled_from([0, 0, 1]),
    st.fixed_dictionaries(
        {},
        optional={
            "id": st.sampled_from(["", "chatcmpl-2"]),
            "model": st.sampled_from(["chat-max", None]),
            "created": st.sampled_from([0, 2]),
            "system_fingerprint": st.sampled_from(["fp_1", "fp_2"]),
        },
    ),
)


def _with_text(item: dict, text: str) -> dict:
    delta = item["choices"][0]["delta"]
    if delta.get("content") is None:
        return item
    return {**item, "choices": [{**item["choices"][0], "delta": {**delta, "content": text}}]}


_BACK_AND_FORTH = [(0, "a"), (1, "b"), (0, "c")]  # the first shape, another, the first again (fast, from its template)


@given(st.lists(_STREAM_CHUNK, min_size=1, max_size=4), st.lists(st.tuples(st.integers(0, 3), _TEXT), min_size=1, max_size=24))
@example([chunk({"content": "x"}, system_fingerprint="fp_1"), chunk({"content": None}, system_fingerprint="fp_2")], _BACK_AND_FORTH)
@example([chunk({"content": "x"}, finish="stop"), chunk({"content": None}, finish="length")], _BACK_AND_FORTH)
@example([chunk({"role": "assistant", "content": "x"}), chunk({"role": "tool"})], _BACK_AND_FORTH)
@example([chunk({"content": "x"}, index=1), chunk({"content": None}, model="chat-max")], _BACK_AND_FORTH)
def test_any_stream_assembles_as_the_tolerant_chunks_do(shapes: list[dict], picks: list[tuple[int, str]]) -> None:
    """Chunks that repeat an earlier one but for their text (assembled from their text alone), between chunks
    that change the id, model, extras, choice, role or finish: the same chunks and completion as the tolerant reader's."""
    chunks = [_with_text(shapes[pick % len(shapes)], text) for pick, text in picks]
    body = ("".join(f"data: {json.dumps(item)}\n\n" for item in chunks) + "data: [DONE]\n\n").encode()
    assembler = ChatAssembler()
    for item in chunks:
        assembler.add(tolerant(json.dumps(item)))
    stream = ChatStream(iter([body]), lambda: None)
    assert [state(item) for item in stream] == [state(tolerant(json.dumps(item))) for item in chunks]
    assert stream.final() == assembler.result() and stream.chunks_received == len(chunks)
