"""Fuzzing the hand-written part of the classroom's proxy tunnels (an http proxy's CONNECT answer) and the
python-socks handshake as the classroom wraps it: whatever a proxy answers, split however it arrives, the pool
either opens the tunnel or raises ``ConnectionFailed`` without the proxy's password; it never hangs, and never
raises anything else.

The proxy is a raw socket on loopback that answers with the bytes hypothesis draws (transport edge cases)."""

from __future__ import annotations

import asyncio
import re
from typing import Optional

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from proxy_servers import without_proxy_variables

from gatewaykit.classroom.keepalive import ConnectionFailed, KeepAlivePool
from gatewaykit.classroom.outbound_proxy import OutboundProxy

PASSWORD = "fuzz-Secret-9157"
GATEWAY_ANSWER = b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok"
FUZZ = settings(max_examples=120, deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.function_scoped_fixture])

_token = st.text(st.sampled_from("abcdefghijklmnopqrstuvwxyz-"), min_size=1, max_size=12)
_header = st.tuples(_token, st.text(st.characters(min_codepoint=32, max_codepoint=126), max_size=40))


@st.composite
def _connect_answers(draw: st.DrawFn) -> bytes:
    """An http proxy's answer to CONNECT: a well-formed head (any status, any headers), or bytes."""
    if draw(st.booleans()):
        return draw(st.binary(max_size=300))
    status = draw(st.integers(100, 599))
    version = draw(st.sampled_from([b"HTTP/1.1", b"HTTP/1.0", b"HTTP/2", b"http/1.1"]))
    reason = draw(st.text(st.characters(min_codepoint=32, max_codepoint=126), max_size=30)).encode()
    fields = b"".join(f"{name}: {value}\r\n".encode() for name, value in draw(st.lists(_header, max_size=5)))
    return version + b" " + str(status).encode() + b" " + reason + b"\r\n" + fields + b"\r\n"


def _splits(data: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({cut % (len(data) + 1) for cut in cuts})
    return [data[a:b] for a, b in zip([0, *points], [*points, len(data)]) if data[a:b]]


async def _through(scheme: str, answer: list[bytes], then: Optional[bytes]) -> object:
    """A request through a ``scheme`` proxy (with a login) that answers ``answer`` (in those pieces), then ``then``
    as the gateway (None: it hangs up): the status, or the ConnectionFailed raised."""

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            await reader.read(1024)  # the CONNECT head, or SOCKS5's greeting
            for piece in answer:
                writer.write(piece)
                await writer.drain()
            if then is not None:
                await reader.read(65536)  # the classroom's request, inside the tunnel
                writer.write(then)
                await writer.drain()
            else:  # hang up (half: what the classroom still sends is read, so no reset loses what was sent)
                writer.write_eof()
                while await reader.read(65536):
                    pass
        except (OSError, asyncio.CancelledError):
            pass
        finally:
            writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    pool = KeepAlivePool("http://gateway.example:80", timeout=10, connect_timeout=10)
    pool.proxy = OutboundProxy("127.0.0.1", port, "school", PASSWORD, scheme)
    try:
        response = await pool.request("GET", "/v1/models", [])
        await response.aread()
        return response.status_code
    except ConnectionFailed as failure:
        return failure
    finally:
        await pool.aclose()
        server.close()


@pytest.fixture
def no_proxy_env(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    return without_proxy_variables(monkeypatch)


@FUZZ
@given(answer=_connect_answers(), cuts=st.lists(st.integers(0, 400), max_size=4))
def test_any_connect_answer_opens_the_tunnel_or_is_connection_failed(no_proxy_env: pytest.MonkeyPatch,
                                                                     answer: bytes, cuts: list[int]) -> None:
    """A 2xx head opens the tunnel (split anyhow); anything else is ConnectionFailed without the password."""
    head_ends = answer.find(b"\r\n\r\n") + 4  # a 2xx status line (RFC 9112), and nothing after the head
    opened = re.match(rb"HTTP/1\.[01] 2\d\d( [^\r\n]*)?\r\n", answer) is not None and head_ends == len(answer)
    result = asyncio.run(_through("http", _splits(answer, cuts), GATEWAY_ANSWER if opened else None))
    if opened:
        assert result == 200, result
    else:
        assert isinstance(result, ConnectionFailed), result
        assert PASSWORD not in str(result) and "school:" not in str(result)


@st.composite
def _socks_answers(draw: st.DrawFn) -> bytes:
    """A SOCKS5 proxy's answers: its choice of login, the login's answer, CONNECT's reply, each well-formed or not."""
    if draw(st.booleans()):  # a login and a CONNECT the proxy accepts, then any bound address
        method, login, code = b"\x05\x02", b"\x01\x00", 0
    else:
        method = draw(st.sampled_from([b"\x05\x02", b"\x05\x00", b"\x05\xff", b"\x04\x02"]) | st.binary(max_size=2))
        login = draw(st.sampled_from([b"\x01\x00", b"\x01\x01", b""]) | st.binary(max_size=2))
        code = draw(st.integers(0, 10))
    kind = draw(st.sampled_from([1, 3, 4, 7]))
    address = draw(st.binary(max_size=20))
    reply = bytes([5, code, 0, kind]) + (bytes([len(address)]) if kind == 3 else b"") + address + b"\x01\xbb"
    return method + login + draw(st.sampled_from([reply, reply[:draw(st.integers(0, len(reply)))]]))


@FUZZ
@given(answer=_socks_answers(), cuts=st.lists(st.integers(0, 60), max_size=4))
@example(answer=b"\x05\x02\x01\x00\x05\x00\x00\x03\x02\xff\xfe\x01\xbb", cuts=[])  # a bound name not UTF-8
def test_any_socks5_answer_then_a_hang_up_is_connection_failed_without_the_password(no_proxy_env: pytest.MonkeyPatch,
                                                                    answer: bytes, cuts: list[int]) -> None:
    """Whatever a SOCKS5 proxy answers, split anyhow, then hanging up: ConnectionFailed without the password."""
    result = asyncio.run(_through("socks5h", _splits(answer, cuts), None))
    assert isinstance(result, ConnectionFailed), result  # the proxy hangs up after its answers
    assert PASSWORD not in str(result) and "school:" not in str(result)
