"""Streamed chats: SSE framing, delta order, tool call deltas, usage only with include_usage."""

from __future__ import annotations

import json


def events(http, **fields) -> list:
    body = {"model": "chat-mini", "messages": [{"role": "user", "content": "Explain SSE"}], "stream": True, **fields}
    with http.stream("POST", "/v1/chat/completions", json=body) as stream:
        assert stream.headers["content-type"].startswith("text/event-stream")
        raw = stream.read().decode()
    assert raw.endswith("data: [DONE]\n\n")
    blocks = [block for block in raw.split("\n\n") if block]
    assert all(block.startswith("data: ") for block in blocks)
    return [json.loads(block[6:]) for block in blocks[:-1]]


def test_stream_starts_with_role_and_ends_with_finish_reason(http):
    """The first delta carries the role, the last choice chunk the finish_reason."""
    chunks = events(http)
    assert chunks[0]["choices"][0]["delta"]["role"] == "assistant"
    assert chunks[-1]["choices"][0]["finish_reason"] == "stop"
    assert all(c["object"] == "chat.completion.chunk" for c in chunks)


def test_stream_content_equals_the_plain_answer(http):
    """Concatenated content deltas equal the non-streamed content for the same seed."""
    chunks = events(http, seed=11)
    streamed = "".join(c["choices"][0]["delta"].get("content") or "" for c in chunks)
    plain = http.post("/v1/chat/completions", json={"model": "chat-mini", "seed": 11, "messages": [
        {"role": "user", "content": "Explain SSE"}]}).json()["choices"][0]["message"]["content"]
    assert streamed == plain
    assert sum(1 for c in chunks if c["choices"][0]["delta"].get("content")) > 10


def test_no_usage_without_include_usage(http):
    """Without stream_options.include_usage no chunk carries usage."""
    assert all(c.get("usage") is None for c in events(http))


def test_usage_with_cost_only_on_the_final_chunk(http):
    """With include_usage only the last chunk (choices empty) carries usage with cost."""
    chunks = events(http, stream_options={"include_usage": True})
    assert chunks[-1]["choices"] == [] and chunks[-1]["usage"]["cost"]["total_cost"] > 0
    assert all(c.get("usage") is None for c in chunks[:-1])


def test_reasoning_deltas_come_before_content(http):
    """On chat-reasoner, reasoning deltas all come before the first content delta."""
    chunks = events(http, model="chat-reasoner", reasoning_effort="low")
    kinds = [("r" if c["choices"][0]["delta"].get("reasoning") else "c")
             for c in chunks if c["choices"] and (c["choices"][0]["delta"].get("reasoning")
                                                  or c["choices"][0]["delta"].get("content"))]
    assert kinds[0] == "r" and "c" in kinds and kinds == sorted(kinds, reverse=True)


def test_tool_call_deltas_carry_index_id_then_arguments(http):
    """Tool call deltas: id and name first, then argument fragments, all with index."""
    tools = [{"type": "function", "function": {"name": "get_weather", "parameters": {
        "type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}]
    chunks = events(http, tools=tools, tool_choice="required",
                    messages=[{"role": "user", "content": "Weather in Paris?"}])
    calls = [c["choices"][0]["delta"]["tool_calls"][0] for c in chunks if c["choices"][0]["delta"].get("tool_calls")]
    assert calls[0]["id"] and calls[0]["function"]["name"] == "get_weather"
    assert all(call["index"] == 0 for call in calls)
    arguments = json.loads("".join(call["function"]["arguments"] for call in calls))
    assert arguments == {"city": "Paris"}
    assert chunks[-1]["choices"][0]["finish_reason"] == "tool_calls"
