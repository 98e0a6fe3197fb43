"""Building streamed chat chunks for tests that need no network."""

from __future__ import annotations

import json
from typing import Any


def chunk(delta: dict[str, Any] | None = None, *, index: int = 0, finish: str | None = None, **top: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "chat-mini"}
    body["choices"] = [] if delta is None else [{"index": index, "delta": delta, "finish_reason": finish}]
    body.update(top)
    return body


def sse(*chunks: dict[str, Any], done: bool = True) -> bytes:
    text = "".join(f"data: {json.dumps(c)}\n\n" for c in chunks)
    return (text + ("data: [DONE]\n\n" if done else "")).encode()


USAGE = {"prompt_tokens": 3, "completion_tokens": 4, "total_tokens": 7, "cost": {"total_cost": 0.25}}
