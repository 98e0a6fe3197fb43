"""Chat answers as JSON: the ``chat.completion`` object, its usage, and streamed chunks."""

from __future__ import annotations

import random
from typing import Any, Iterator

from gatewaykit.emulator.chat.engine import ChatResult, ChoiceResult
from gatewaykit.emulator.pricing import cost_object


def usage_body(result: ChatResult, components: dict[str, int], cached_read: int = 0,
               cached_write: int = 0) -> dict[str, Any]:
    """``usage``; ``cached_tokens`` = ``cached_read_tokens`` are part of ``prompt_tokens``, billed at cache-read."""
    return {
        "prompt_tokens": result.prompt_tokens,
        "completion_tokens": result.completion_tokens,
        "total_tokens": result.prompt_tokens + result.completion_tokens,
        "prompt_tokens_details": {
            "cached_tokens": cached_read, "cached_read_tokens": cached_read, "cached_write_tokens": cached_write,
            "image_tokens": result.image_tokens, "text_tokens": result.prompt_tokens - result.image_tokens,
            "audio_tokens": 0,
        },
        "completion_tokens_details": {
            "reasoning_tokens": result.reasoning_tokens, "text_tokens": result.text_tokens,
            "image_tokens": 0, "audio_tokens": 0, "accepted_prediction_tokens": 0,
            "rejected_prediction_tokens": 0, "citation_tokens": 0, "num_search_queries": 0,
        },
        "cost": cost_object(components),
    }


def reasoning_details(choice: ChoiceResult, completion_id: str) -> list[dict[str, Any]] | None:
    if not choice.reasoning_tokens:
        return None
    return [{"type": "reasoning.text", "id": f"rs_{completion_id[9:]}_{choice.index}", "index": 0,
             "format": "svc-offline-v1", "text": choice.reasoning, "summary": None,
             "signature": f"sig_{abs(hash(choice.reasoning)) % 10**12:012d}", "data": None}]


def completion_body(model: str, result: ChatResult, usage: dict[str, Any], completion_id: str,
                    created: int) -> dict[str, Any]:
    choices = []
    for choice in result.choices:
        message: dict[str, Any] = {"role": "assistant", "content": choice.content, "refusal": None}
        if choice.reasoning_tokens:
            message["reasoning"] = choice.reasoning
            message["reasoning_details"] = reasoning_details(choice, completion_id)
        if choice.tool_calls:
            message["tool_calls"] = choice.tool_calls
        choices.append({
            "index": choice.index,
            "finish_reason": choice.finish_reason,
            "message": message,
            "logprobs": {"content": choice.logprobs, "refusal": None} if choice.logprobs is not None else None,
        })
    return {
        "id": completion_id, "object": "chat.completion", "created": created, "model": model,
        "choices": choices, "usage": usage, "system_fingerprint": "fp_svc_offline", "service_tier": "default",
        "extra_fields": extra_fields(result, model),
    }


def extra_fields(result: ChatResult, model: str) -> dict[str, Any]:
    """``extra_fields``; ``offline_content`` says the answer is ``synthetic`` or ``scripted`` (for a footer)."""
    return {"request_type": "chat.completion", "model_requested": model, "model_deployment": "offline",
            "offline_content": result.source}


def _groups(tokens: list[str], rng: random.Random) -> Iterator[tuple[int, int]]:
    start = 0
    while start < len(tokens):
        end = min(len(tokens), start + rng.randint(1, 4))
        yield start, end
        start = end


def chunk_deltas(result: ChatResult, completion_id: str) -> Iterator[tuple[int, dict[str, Any], int]]:
    """(choice index, chunk choice, tokens it carries) in stream order: role, reasoning, content, tools, finish."""
    for choice in result.choices:
        rng = random.Random(choice.index * 7919 + len(choice.content_tokens))
        yield choice.index, {"index": choice.index, "delta": {"role": "assistant", "content": ""},
                             "finish_reason": None}, 0
        details = reasoning_details(choice, completion_id)
        for start, end in _groups(choice.reasoning_tokens, rng):
            piece = "".join(choice.reasoning_tokens[start:end])
            detail = {"type": "reasoning.text", "index": 0, "text": piece}
            if end == len(choice.reasoning_tokens) and details:
                detail.update(id=details[0]["id"], format=details[0]["format"], signature=details[0]["signature"])
            yield choice.index, {"index": choice.index, "delta": {"reasoning": piece, "reasoning_details": [detail]},
                                 "finish_reason": None}, end - start
        for start, end in _groups(choice.content_tokens, rng):
            chunk: dict[str, Any] = {"index": choice.index,
                                     "delta": {"content": "".join(choice.content_tokens[start:end])},
                                     "finish_reason": None}
            if choice.logprobs is not None:
                chunk["logprobs"] = {"content": choice.logprobs[start:end], "refusal": None}
            yield choice.index, chunk, end - start
        for number, call in enumerate(choice.tool_calls):
            head = {"index": number, "id": call["id"], "type": "function",
                    "function": {"name": call["function"]["name"], "arguments": ""}}
            yield choice.index, {"index": choice.index, "delta": {"tool_calls": [head]}, "finish_reason": None}, 1
            arguments = call["function"]["arguments"]
            for start in range(0, len(arguments), 12):
                fragment = {"index": number, "function": {"arguments": arguments[start:start + 12]}}
                yield choice.index, {"index": choice.index, "delta": {"tool_calls": [fragment]},
                                     "finish_reason": None}, 3
        yield choice.index, {"index": choice.index, "delta": {}, "finish_reason": choice.finish_reason}, 0
