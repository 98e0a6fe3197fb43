"""Connections that never finish a request head are closed by the gateway: idle sockets and trickled headers."""

from __future__ import annotations

import socket
import time
from typing import Any, Iterator

import httpx
import pytest

import gatewaykit as gk

KEEP_ALIVE = 2.0
HEAD = 2.0
DEADLINE = 120.0  # generous: the condition is "closed by the server", on a busy machine


@pytest.fixture(scope="module")
def gateway() -> Iterator[Any]:
    with gk.emulator.start(time_scale=0, keep_alive_seconds=KEEP_ALIVE, request_head_seconds=HEAD) as running:
        yield running


def _connect(gateway: Any) -> socket.socket:
    sock = socket.create_connection((gateway.host, gateway.port), timeout=DEADLINE)
    sock.setblocking(False)
    return sock


def _closed_by_server(sock: socket.socket) -> bool:
    try:
        return sock.recv(4096) == b""
    except BlockingIOError:
        return False
    except ConnectionResetError:
        return True


def _wait_all_closed(sockets: list[socket.socket], what: str, trickle: bool = False) -> None:
    deadline = time.monotonic() + DEADLINE
    open_ = list(sockets)
    while open_:
        if trickle:
            for sock in open_:
                try:
                    sock.send(b"X")  # one more header byte: each byte keeps a naive server waiting
                except OSError:
                    pass
        open_ = [sock for sock in open_ if not _closed_by_server(sock)]
        assert time.monotonic() < deadline, f"{len(open_)} of {len(sockets)} {what} still open after {DEADLINE:g} s"
        time.sleep(0.2)


def test_connections_that_send_nothing_are_closed(gateway):
    """Twenty sockets that never send a byte are closed by the server (after the keep-alive time)."""
    sockets = [_connect(gateway) for _ in range(20)]
    try:
        _wait_all_closed(sockets, "silent connections")
    finally:
        for sock in sockets:
            sock.close()


def test_connections_that_trickle_headers_are_closed(gateway):
    """Twenty sockets sending their headers a byte at a time are closed once the head deadline passes."""
    sockets = [_connect(gateway) for _ in range(20)]
    try:
        for sock in sockets:
            sock.send(b"GET /v1/models HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
        _wait_all_closed(sockets, "trickling connections", trickle=True)
    finally:
        for sock in sockets:
            sock.close()


def test_a_served_connection_is_still_kept_alive_and_reused(gateway):
    """Closing stalled connections does not close a working one between quick requests."""
    with httpx.Client(base_url=gateway.base_url, headers={"Authorization": f"Bearer {gateway.api_key}"},
                      timeout=60) as http:
        first = http.get("/v1/models")
        second = http.get("/v1/models")
    assert first.status_code == second.status_code == 200
