"""Serving foreign servers' bodies to gatewaykit's client through ``httpx.MockTransport``.

``recorded(name)`` reads a body recorded from a real server (``recorded/<server>/``);
``foreign_client(routes)`` is a client whose every request is answered from ``routes``:
``{"POST /v1/chat/completions": Answer(...)}``. ``GET /v1/models`` answers LiteLLM's
recorded catalog unless a route says otherwise.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional, Union

import httpx

import gatewaykit as gk

from tests.client.conftest import RecordingLedger

RECORDED = Path(__file__).parent / "recorded"
BASE_URL = "http://foreign.test"
KEY = "sk-foreign-test-key-0123456789"


def recorded(name: str) -> bytes:
    """A body recorded from a real server: ``recorded("litellm/chat.json")``."""
    return (RECORDED / name).read_bytes()


def sse(*events: Union[dict, str], done: bool = True, newline: str = "\n") -> bytes:
    """A ``text/event-stream`` body: each dict as a ``data:`` event (a str is sent verbatim)."""
    parts = [event if isinstance(event, str) else f"data: {json.dumps(event)}{newline}{newline}" for event in events]
    if done:
        parts.append(f"data: [DONE]{newline}{newline}")
    return "".join(parts).encode()


def chunk(content: Optional[str] = None, *, finish: Optional[str] = None, **delta: Any) -> dict:
    """A chat.completion.chunk with one choice."""
    if content is not None:
        delta["content"] = content
    return {
        "id": "chatcmpl-foreign", "object": "chat.completion.chunk", "created": 1, "model": "mock-chat",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }


@dataclass
class Answer:
    """One canned HTTP answer."""

    body: Union[bytes, str, dict, list, None] = None
    status: int = 200
    content_type: str = "application/json"
    headers: dict[str, str] = field(default_factory=dict)

    def response(self) -> httpx.Response:
        body = self.body
        if isinstance(body, (dict, list)):
            content = json.dumps(body).encode()
        elif isinstance(body, str):
            content = body.encode()
        else:
            content = body or b""
        return httpx.Response(
            self.status, content=content, headers={"content-type": self.content_type, **self.headers}
        )


def streamed(body: bytes) -> Answer:
    return Answer(body, content_type="text/event-stream")


def _handler(routes: dict[str, Answer], seen: list[httpx.Request]) -> Any:
    def answer(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        route = routes.get(f"{request.method} {request.url.path}")
        if route is None and request.url.path == "/v1/models":
            route = Answer(recorded("litellm/models.json"))
        if route is None:
            return httpx.Response(404, json={"detail": "Not Found"})
        return route.response()

    return answer


def foreign_client(routes: dict[str, Answer], ledger: Optional[RecordingLedger] = None, **options: Any) -> gk.Client:
    """A sync client whose requests the ``routes`` answer (no retries, recording into ``ledger``)."""
    seen: list[httpx.Request] = []
    options.setdefault("max_retries", 0)
    options.setdefault("display", False)  # the shapes are scripted per request: no live view asks for streams
    client = gk.Client(
        api_key=KEY, base_url=BASE_URL, ledger=ledger if ledger is not None else RecordingLedger(),
        http_transport=httpx.MockTransport(_handler(routes, seen)), **options,
    )
    client.requests_seen = seen  # type: ignore[attr-defined]
    return client


def foreign_async_client(routes: dict[str, Answer], ledger: Optional[RecordingLedger] = None, **options: Any) -> gk.AsyncClient:
    """The same, async."""
    seen: list[httpx.Request] = []
    options.setdefault("max_retries", 0)
    options.setdefault("display", False)
    return gk.AsyncClient(
        api_key=KEY, base_url=BASE_URL, ledger=ledger if ledger is not None else RecordingLedger(),
        http_transport=httpx.MockTransport(_handler(routes, seen)), **options,
    )
