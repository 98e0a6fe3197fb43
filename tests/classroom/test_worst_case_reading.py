"""The worst case a classroom holds reads a request as the gateway does: numbers by the gateway's own rule
(``8.0`` is eight), tool schemas in the longest encoding the gateway may count them in."""

from __future__ import annotations

from typing import Any

import httpx
from classroom_fixtures import auth, chat, upstream_spent

LONG = "Explain in detail how tides work, with examples"  # an answer longer than max_tokens: each choice runs to it


def _tools(text: str) -> list[dict[str, Any]]:
    return [{"type": "function", "function": {"name": "lookup", "description": text,
                                              "parameters": {"type": "object", "properties": {}}}}]


def test_an_integral_float_n_is_held_as_that_many_choices(upstream: Any, rooms: Any) -> None:
    """``"n": 8.0`` is eight choices to the gateway, so it is held as eight: over the cap it is refused, unsent."""
    room = rooms(roster=["ana"], cap=0.004)
    answer = httpx.post(f"{room.base_url}/v1/chat/completions", headers=auth(room.keys.key[0]),
                        json=chat("chat-reasoner", LONG, max_tokens=300, n=8.0))
    assert answer.status_code == 402, answer.text
    assert upstream_spent(upstream) == 0.0


def test_an_integral_float_max_tokens_is_read_as_the_gateway_reads_it(upstream: Any, rooms: Any) -> None:
    """``"max_tokens": 40.0`` is accepted and bounds the answer, as the gateway reads it (not a 400 of its own)."""
    room = rooms(roster=["ana"], cap=0.5)
    answer = httpx.post(f"{room.base_url}/v1/chat/completions", headers=auth(room.keys.key[0]),
                        json=chat("chat-mini", LONG, max_tokens=40.0))
    assert answer.status_code == 200, answer.text
    assert answer.json()["usage"]["completion_tokens"] <= 40


def test_a_number_the_gateway_would_not_read_is_refused_before_anything_is_held(upstream: Any, rooms: Any) -> None:
    """``"n": "8"`` (a string) is a 400 naming ``n`` from the classroom itself."""
    room = rooms(roster=["ana"], cap=0.5)
    answer = httpx.post(f"{room.base_url}/v1/chat/completions", headers=auth(room.keys.key[0]),
                        json=chat(n="8"))
    assert answer.status_code == 400 and answer.json()["error"]["param"] == "n", answer.text
    assert "whole number" in answer.json()["error"]["message"]


def test_non_ascii_tool_text_is_held_at_its_escaped_length(upstream: Any, rooms: Any) -> None:
    """Tools in Vietnamese: the gateway counts ``ơ`` as ``\\u01a1`` (5 tokens), so the hold counts it so too."""
    room = rooms(roster=["ana"], cap=0.30)
    answer = httpx.post(f"{room.base_url}/v1/chat/completions", headers=auth(room.keys.key[0]),
                        json=chat("chat-vision", "Hi", max_tokens=16, tools=_tools("ơ" * 40_000)))
    assert answer.status_code == 402, answer.text
    assert upstream_spent(upstream) == 0.0


def test_non_ascii_tool_text_is_counted_against_the_request_limit(upstream: Any, rooms: Any) -> None:
    """``max_request_cost`` sees the same escaped length: a request whose tools cost past it is refused."""
    room = rooms(roster=["ana"], cap=10.0, max_request_cost=0.30)
    answer = httpx.post(f"{room.base_url}/v1/chat/completions", headers=auth(room.keys.key[0]),
                        json=chat("chat-vision", "Hi", max_tokens=16, tools=_tools("ơ" * 40_000)))
    assert answer.status_code == 402, answer.text
    assert "per request" in answer.json()["error"]["message"]
    assert upstream_spent(upstream) == 0.0
