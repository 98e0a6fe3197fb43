"""Assembling chunks into a ChatCompletion (pure, no network)."""

from __future__ import annotations

from gatewaykit.client.core.assembly import ChatAssembler
from gatewaykit.types import ChatCompletionChunk

from .chunks import USAGE, chunk


def assemble(*chunks: dict) -> object:
    assembler = ChatAssembler()
    for item in chunks:
        assembler.add(ChatCompletionChunk.model_validate(item))
    return assembler.result()


def test_content_is_concatenated() -> None:
    """Content deltas join into the message content, with role and finish_reason."""
    result = assemble(chunk({"role": "assistant", "content": "Hel"}), chunk({"content": "lo"}), chunk({}, finish="stop"))
    assert (result.content, result.choices[0].message.role, result.choices[0].finish_reason) == ("Hello", "assistant", "stop")


def test_reasoning_and_details_are_merged() -> None:
    """``reasoning`` concatenates; ``reasoning_details`` fragments with one index merge their text."""
    result = assemble(
        chunk({"reasoning": "Think ", "reasoning_details": [{"type": "reasoning.text", "index": 0, "text": "Think "}]}),
        chunk({"reasoning": "hard", "reasoning_details": [{"type": "reasoning.text", "index": 0, "text": "hard"}]}),
        chunk({"content": "ok"}, finish="stop"),
    )
    message = result.choices[0].message
    assert message.reasoning == "Think hard"
    assert [(d.index, d.text) for d in message.reasoning_details] == [(0, "Think hard")]


def test_tool_calls_are_merged_by_index() -> None:
    """Fragments of two tool calls interleaved by index give two whole calls with joined arguments."""
    result = assemble(
        chunk({"tool_calls": [{"index": 0, "id": "call_a", "type": "function", "function": {"name": "f", "arguments": '{"x"'}}]}),
        chunk({"tool_calls": [{"index": 1, "id": "call_b", "type": "function", "function": {"name": "g", "arguments": "{}"}}]}),
        chunk({"tool_calls": [{"index": 0, "function": {"arguments": ": 1}"}}]}, finish="tool_calls"),
    )
    calls = result.choices[0].message.tool_calls
    assert [(c.id, c.function.name, c.function.arguments) for c in calls] == [("call_a", "f", '{"x": 1}'), ("call_b", "g", "{}")]
    assert result.content is None


def test_n_choices_are_kept_apart() -> None:
    """Chunks for choice 0 and 1 assemble into two choices in index order."""
    result = assemble(chunk({"content": "b"}, index=1), chunk({"content": "a"}, index=0), chunk({"content": "!"}, index=1))
    assert [c.message.content for c in result.choices] == ["a", "b!"]


def test_usage_of_the_final_chunk_is_kept() -> None:
    """The usage chunk (no choices) gives usage with its cost."""
    result = assemble(chunk({"content": "x"}, finish="stop"), chunk(None, usage=USAGE))
    assert result.usage.cost.total_cost == 0.25


def test_unknown_top_level_fields_survive() -> None:
    """Fields the gateway adds (citations, search_results) are kept on the final completion."""
    result = assemble(chunk({"content": "x"}, citations=["https://a.example"]))
    assert result.citations == ["https://a.example"]
