"""The classroom's connections to the gateway: reused while they are clean, never past their limit, and a
gateway that closes or breaks off is a ``ConnectionFailed`` (the routes turn it into 502/504 and release the hold)."""

from __future__ import annotations

import asyncio
from typing import Any, Awaitable, Callable

import orjson
import pytest
from classroom_fixtures import TEACHER_KEY, chat

from gatewaykit.classroom.keepalive import ConnectionFailed, KeepAlivePool

AUTH = [("authorization", f"Bearer {TEACHER_KEY}"), ("content-type", "application/json")]


def test_sequential_requests_share_one_connection_and_concurrent_ones_stay_within_the_limit(upstream: Any) -> None:
    async def run() -> tuple[list[int], int, list[int], int]:
        pool = KeepAlivePool(upstream.base_url, timeout=60, max_connections=3)
        try:
            sequential = []
            for _ in range(10):
                answer = await pool.request("POST", "/v1/chat/completions", AUTH, orjson.dumps(chat()))
                await answer.aread()
                sequential.append(answer.status_code)
            after_sequential = pool.open_connections
            most = 0

            async def models() -> int:
                nonlocal most
                answer = await pool.request("GET", "/v1/models", AUTH)
                most = max(most, pool.open_connections)
                await answer.aread()
                assert answer.json()["data"]
                return answer.status_code

            concurrent = await asyncio.gather(*(models() for _ in range(12)))
            return sequential, after_sequential, concurrent, most
        finally:
            await pool.aclose()

    sequential, after_sequential, concurrent, most = asyncio.run(run())
    assert sequential == [200] * 10 and after_sequential == 1
    assert concurrent == [200] * 12 and 1 <= most <= 3


async def _serve_once(answer: Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]],
                      client: Callable[[str], Awaitable[Any]]) -> Any:
    """A raw socket 'gateway' on loopback that answers each connection with ``answer`` (transport edge cases)."""
    connections = 0

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        nonlocal connections
        connections += 1
        await answer(reader, writer)

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        return await client(f"http://127.0.0.1:{port}"), connections
    finally:
        server.close()


async def _read_head(reader: asyncio.StreamReader) -> None:
    await reader.readuntil(b"\r\n\r\n")


def test_a_connection_the_gateway_closes_is_not_reused() -> None:
    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await _read_head(reader)
        writer.write(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\nconnection: close\r\n\r\nok")
        await writer.drain()
        writer.close()

    async def client(url: str) -> list[bytes]:
        pool = KeepAlivePool(url, timeout=10)
        bodies = []
        for _ in range(3):
            bodies.append(await (await pool.request("GET", "/v1/models", AUTH)).aread())
        assert pool.open_connections == 0
        return bodies

    bodies, connections = asyncio.run(_serve_once(answer, client))
    assert bodies == [b"ok"] * 3 and connections == 3


def test_an_answer_cut_off_mid_body_or_never_sent_is_connection_failed() -> None:
    async def cut_off(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await _read_head(reader)
        writer.write(b"HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\n{\"partial\":")
        await writer.drain()
        writer.close()

    async def read_all(url: str) -> Any:
        pool = KeepAlivePool(url, timeout=10)
        answer = await pool.request("GET", "/v1/models", AUTH)
        with pytest.raises(ConnectionFailed) as failed:
            await answer.aread()
        assert pool.open_connections == 0
        return failed.value

    failure, _ = asyncio.run(_serve_once(cut_off, read_all))
    assert not failure.timed_out

    async def silent(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            await _read_head(reader)
            await asyncio.sleep(5)
        finally:
            writer.close()

    async def wait_for_head(url: str) -> Any:
        pool = KeepAlivePool(url, timeout=0.3)
        with pytest.raises(ConnectionFailed) as failed:
            await pool.request("POST", "/v1/chat/completions", AUTH, b"{}")
        assert pool.open_connections == 0
        return failed.value

    failure, _ = asyncio.run(_serve_once(silent, wait_for_head))
    assert failure.timed_out


def test_an_unreachable_gateway_is_connection_failed_not_timed_out() -> None:
    import socket

    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]

    async def run() -> ConnectionFailed:
        pool = KeepAlivePool(f"http://127.0.0.1:{port}", timeout=10)
        with pytest.raises(ConnectionFailed) as failed:
            await pool.request("GET", "/v1/models", AUTH)
        return failed.value

    assert not asyncio.run(run()).timed_out
