"""Cookies on the client's wire: a gateway's ``Set-Cookie`` is never sent back, a ``Cookie`` of the user's is.

The client builds its requests itself, so the jar ``httpx.Client.send`` files answers' cookies in
was never sent; the transport's jar now files nothing (``client/transports/http.py``, ``_NoCookies``:
filing cost about 20 us a request). These tests hold the wire to what it always was.
"""

from __future__ import annotations

import asyncio
from typing import Any

import httpx

import gatewaykit as gk

COMPLETION = {
    "id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "chat-mini",
    "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "Hi"}}],
    "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2, "cost": {"total_cost": 0.000001}},
}  # fmt: skip
MESSAGES = [{"role": "user", "content": "Hi"}]


def _gateway(seen: list[httpx.Request]) -> httpx.MockTransport:
    """A gateway that sets a session cookie on every answer and keeps the requests it got."""

    def answer(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json=COMPLETION, headers={"set-cookie": "route=replica-2; Path=/"})

    return httpx.MockTransport(answer)


def _client(transport: Any, cls: Any = gk.Client, **options: Any) -> Any:
    return cls(api_key="sk-bf-cookies", base_url="http://gw.test", http_transport=transport, ledger=gk.Ledger(path=None),
               max_retries=0, **options)  # fmt: skip


def test_a_gateways_cookie_is_not_sent_back_and_the_answer_still_reads() -> None:
    seen: list[httpx.Request] = []
    with _client(_gateway(seen)) as client:
        for _ in range(3):
            answer = client.chat.completions.create(model="chat-mini", messages=MESSAGES)
            assert answer.choices[0].message.content == "Hi"
    assert len(seen) == 3
    assert all("cookie" not in request.headers for request in seen)


def test_a_cookie_the_user_sets_goes_with_every_request() -> None:
    seen: list[httpx.Request] = []
    with _client(_gateway(seen), default_headers={"Cookie": "sso=abc"}) as client:
        client.chat.completions.create(model="chat-mini", messages=MESSAGES)
        client.chat.completions.create(model="chat-mini", messages=MESSAGES)
    assert [request.headers.get("cookie") for request in seen] == ["sso=abc", "sso=abc"]


def test_async_client_neither_files_nor_sends_a_gateways_cookie() -> None:
    seen: list[httpx.Request] = []

    async def run() -> None:
        async with _client(_gateway(seen), gk.AsyncClient) as client:
            for _ in range(2):
                answer = await client.chat.completions.create(model="chat-mini", messages=MESSAGES)
                assert answer.choices[0].message.content == "Hi"

    asyncio.run(run())
    assert len(seen) == 2 and all("cookie" not in request.headers for request in seen)


def test_the_transports_jar_stays_empty() -> None:
    """What a later build_request() could have sent: nothing (the jar files no cookie)."""
    from gatewaykit.client.transports.http import SyncTransport

    seen: list[httpx.Request] = []
    transport = SyncTransport("http://gw.test", {"Authorization": "Bearer sk-bf-cookies"}, 10.0, _gateway(seen))
    try:
        request = transport._client.build_request("GET", "http://gw.test/v1/models")
        transport._client.send(request).read()
        assert len(transport._client.cookies) == 0
        assert "cookie" not in transport._client.build_request("GET", "http://gw.test/v1/models").headers
    finally:
        transport.close()
