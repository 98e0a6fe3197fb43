"""An error answer never costs the client its pooled keep-alive connection.

Every error either leaves the connection usable or says ``Connection: close``;
a socket closed silently after a complete answer makes the client's next request
on the pool fail (it was written to a dead socket).
"""

from __future__ import annotations

from typing import Any, Callable, Iterator

import httpx
import pytest
from starlette.routing import Route

from gatewaykit import emulator

CHAT = {"model": "chat-mini", "messages": [{"role": "user", "content": "hello again"}]}


async def _broken(request: Any) -> Any:
    raise RuntimeError("deliberately broken route")


@pytest.fixture(scope="module")
def gateway() -> Iterator[emulator.Emulator]:
    """A gateway with a tiny body limit (for 413) and one deliberately broken route (a genuine 500)."""
    with emulator.start(time_scale=0, max_body_bytes=2000) as running:
        running.app.router.routes.append(Route("/v1/broken", _broken, methods=["GET", "POST"]))
        yield running


def _chunks() -> Iterator[bytes]:
    for _ in range(10):
        yield b"x" * 1000


_ERRORS: dict[str, Callable[[httpx.Client], Any]] = {
    "fault 500": lambda c: c.post("/v1/chat/completions", json=CHAT, headers={"X-Emulator-Fault": "500"}),
    "fault 503": lambda c: c.post("/v1/chat/completions", json=CHAT, headers={"X-Emulator-Fault": "503"}),
    "internal error": lambda c: c.post("/v1/broken", json=CHAT),
    "413 declared": lambda c: c.post("/v1/chat/completions", content=b"x" * 5000,
                                     headers={"Content-Type": "application/json"}),
    "413 chunked": lambda c: c.post("/v1/chat/completions", content=_chunks(),
                                    headers={"Content-Type": "application/json"}),
    "400": lambda c: c.post("/v1/chat/completions", content=b"{not json",
                            headers={"Content-Type": "application/json"}),
    "404": lambda c: c.get("/v1/nothing-here"),
}


def _ten_chats(client: httpx.Client) -> list[str]:
    """The outcome of 10 follow-up chats: a status code, or the transport error's name."""
    outcomes = []
    for _ in range(10):
        try:
            outcomes.append(str(client.post("/v1/chat/completions", json=CHAT).status_code))
        except httpx.TransportError as exc:
            outcomes.append(type(exc).__name__)
    return outcomes


@pytest.mark.parametrize("kind", list(_ERRORS))
def test_follow_up_requests_on_the_pool_succeed_after_an_error(gateway, kind):
    """After each kind of error answer, 10 follow-up chats on the same keep-alive pool all succeed."""
    with httpx.Client(base_url=gateway.base_url, headers={"Authorization": f"Bearer {gateway.api_key}"},
                      timeout=30) as client:
        for _ in range(3):
            answer = _ERRORS[kind](client)
            assert answer.status_code >= 400 and answer.json()["error"]["message"]
            assert answer.headers["X-Gateway-Offline"] == "1"
            assert _ten_chats(client) == ["200"] * 10


def test_internal_error_keeps_the_connection_or_says_close(gateway):
    """A genuine internal error answers the 500 envelope and leaves the very same connection usable."""
    with httpx.Client(base_url=gateway.base_url, headers={"Authorization": f"Bearer {gateway.api_key}"},
                      timeout=30, limits=httpx.Limits(max_connections=1)) as client:
        before = client.get("/v1/models").extensions["network_stream"].get_extra_info("client_addr")
        answer = client.get("/v1/broken")
        assert answer.status_code == 500 and answer.json()["error"]["type"] == "api_error"
        closing = answer.headers.get("connection", "").lower() == "close"
        after = client.get("/v1/models").extensions["network_stream"].get_extra_info("client_addr")
    assert closing or after == before


def test_disconnect_fault_drops_only_its_own_request(gateway):
    """The 'disconnect' fault fails that request alone; the next 10 chats on the pool succeed."""
    with httpx.Client(base_url=gateway.base_url, headers={"Authorization": f"Bearer {gateway.api_key}"},
                      timeout=30) as client:
        for _ in range(3):
            with pytest.raises(httpx.TransportError):
                client.post("/v1/chat/completions", json=CHAT, headers={"X-Emulator-Fault": "disconnect"})
            assert _ten_chats(client) == ["200"] * 10
