"""Keep-alive HTTP/1.1 connections from the classroom to the gateway: a deque of idle sockets and h11 framing.

Forwarding is the classroom's per-request cost, so this pool is small (one origin, no redirects,
cookies or decompression) and measured cheaper than httpx here. Tunnels go through the proxy the
environment names. A connection is reused only when nothing is left on it after the answer, so no
student can read another's. Details and figures: ``docs/internals.md``.
"""

from __future__ import annotations

import asyncio
import collections
import select
import ssl
import time
from typing import Any, AsyncGenerator, Iterable, Optional
from urllib.parse import urlsplit

import h11
import orjson

from gatewaykit.classroom.buffered_bytes import AnswerTooLarge, BufferedBytes
from gatewaykit.classroom.outbound_proxy import OutboundProxy, proxy_for

__all__ = ["ConnectionFailed", "KeepAlivePool", "UpstreamHeaders", "UpstreamResponse"]

_READ_BYTES = 256 * 1024
#: An answer's head (status line and headers) at most.
MAX_HEAD_BYTES = 256 * 1024


class ConnectionFailed(Exception):
    """The gateway could not be reached, reset the connection, or did not answer in time.

    ``sent``: the request had been written to the connection (the gateway may have it, and may bill it)."""

    def __init__(self, timed_out: bool, cause: str = "", sent: bool = False) -> None:
        super().__init__(("timeout" if timed_out else "unreachable") + (f" ({cause})" if cause else ""))
        self.timed_out = timed_out
        self.cause = cause
        self.sent = sent


class UpstreamHeaders:
    """An answer's headers: ``get`` by any case, ``items`` in order (names lower case)."""

    __slots__ = ("_items", "_map")

    def __init__(self, items: list[tuple[str, str]]) -> None:
        self._items = items
        self._map = dict(items)

    def get(self, name: str, default: Any = None) -> Any:
        return self._map.get(name.lower(), default)

    def items(self) -> list[tuple[str, str]]:
        return self._items

    def __contains__(self, name: str) -> bool:
        return name.lower() in self._map


class _CountingReader(asyncio.StreamReader):
    """A stream reader that counts the bytes it was given, so a connection can tell whether any are unread."""

    received = 0

    def feed_data(self, data: bytes) -> None:  # type: ignore[override]  # asyncio's stubs: Iterable[SupportsIndex]
        self.received += len(data)
        super().feed_data(data)


async def _open_stream(**where: Any) -> tuple[_CountingReader, asyncio.StreamWriter]:
    """``asyncio.open_connection`` (``where``: its arguments, or ``sock=``) with a counting reader."""
    loop = asyncio.get_running_loop()
    reader = _CountingReader(limit=_READ_BYTES, loop=loop)
    protocol = asyncio.StreamReaderProtocol(reader, loop=loop)
    transport, _ = await loop.create_connection(lambda: protocol, **where)
    return reader, asyncio.StreamWriter(transport, protocol, reader, loop)


def _readable(writer: asyncio.StreamWriter) -> bool:
    """Whether the socket under ``writer`` has bytes (or its end) waiting that the loop has not read yet."""
    sock = writer.get_extra_info("socket")
    fileno = sock.fileno() if sock is not None else -1
    if fileno < 0:
        return True
    poller = select.poll()
    poller.register(fileno, select.POLLIN)
    return bool(poller.poll(0))


class _Connection:
    __slots__ = ("reader", "writer", "h11", "idle_since", "consumed")

    def __init__(self, reader: _CountingReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer
        self.h11 = h11.Connection(h11.CLIENT, max_incomplete_event_size=MAX_HEAD_BYTES)
        self.idle_since = 0.0
        self.consumed = reader.received  # what came before (a proxy's answer) was read by the tunnel

    def clean(self) -> bool:
        """Nothing is left on the connection after the last answer: not in h11, not in the reader."""
        return not self.h11.trailing_data[0] and self.reader.received == self.consumed

    def usable(self, now: float, keepalive: float) -> bool:
        return (now - self.idle_since < keepalive and self.clean() and not self.reader.at_eof()
                and not self.writer.is_closing() and not _readable(self.writer))

    def close(self) -> None:
        self.writer.close()

    async def next_event(self, timeout: float) -> Any:
        conn = self.h11
        while True:
            event = conn.next_event()
            if event is not h11.NEED_DATA:
                return event
            try:
                async with asyncio.timeout(timeout):
                    data = await self.reader.read(_READ_BYTES)
            except TimeoutError:
                raise ConnectionFailed(True, "ReadTimeout") from None
            except OSError as exc:
                raise ConnectionFailed(False, type(exc).__name__) from None
            self.consumed += len(data)
            conn.receive_data(data)


class UpstreamResponse:
    """The gateway's answer; the body is read with ``aread()`` (then ``content``, ``json()``) or ``aiter_raw()``."""

    def __init__(self, pool: "KeepAlivePool", connection: _Connection, status: int, headers: UpstreamHeaders) -> None:
        self.status_code = status
        self.headers = headers
        self._pool = pool
        self._connection: Optional[_Connection] = connection
        self._content: Optional[bytes] = None
        self._buffers: Optional[BufferedBytes] = None
        self._held = 0  # bytes of the body counted in _buffers

    @property
    def content(self) -> bytes:
        if self._content is None:
            raise RuntimeError("the answer's body was not read (aread)")
        return self._content

    def json(self) -> Any:
        return orjson.loads(self.content)

    async def aread(self, buffers: Optional[BufferedBytes] = None) -> bytes:
        """The whole body; with ``buffers``, counted in it (:meth:`release` gives it back) and bounded by it:
        :class:`~gatewaykit.classroom.buffered_bytes.AnswerTooLarge` or ``BuffersFull`` (the connection closed)."""
        if self._content is not None:
            return self._content
        if buffers is None:
            self._content = b"".join([chunk async for chunk in self.aiter_raw()])
            return self._content
        self._buffers = buffers
        declared = self.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > buffers.per_answer:
            await self.aclose()
            raise AnswerTooLarge(buffers.per_answer)
        chunks = []
        body = self.aiter_raw()
        try:
            async for chunk in body:
                if self._held + len(chunk) > buffers.per_answer:
                    raise AnswerTooLarge(buffers.per_answer)
                buffers.take(len(chunk))
                self._held += len(chunk)
                chunks.append(chunk)
        except BaseException:
            await body.aclose()  # the connection closes: its answer was not read to the end
            self.release()
            raise
        self._content = b"".join(chunks)
        return self._content

    def release(self) -> None:
        """The body read by ``aread(buffers)`` is no longer held (it was passed on): its bytes are given back."""
        if self._buffers is not None and self._held:
            self._buffers.give(self._held)
        self._held = 0

    async def aiter_raw(self) -> AsyncGenerator[bytes, None]:
        """The body as it arrives (de-chunked, not decompressed); the connection goes back to the pool at its end."""
        connection = self._connection
        if connection is None:
            return
        timeout = self._pool.read_timeout
        try:
            while True:
                try:
                    event = await connection.next_event(timeout)
                except h11.RemoteProtocolError as exc:
                    raise ConnectionFailed(False, f"RemoteProtocolError: {exc}"[:200]) from None
                if type(event) is h11.Data:
                    yield bytes(event.data)
                elif type(event) is h11.EndOfMessage:
                    break
                elif type(event) is h11.ConnectionClosed:
                    raise ConnectionFailed(False, "the gateway closed the connection mid-answer")
        except BaseException as exc:
            if isinstance(exc, ConnectionFailed):
                exc.sent = True  # an answer had begun: the gateway had the request
            self._finish(reusable=False)
            raise
        self._finish(reusable=True)

    def _finish(self, reusable: bool) -> None:
        connection, self._connection = self._connection, None
        if connection is not None:
            self._pool.give_back(connection, reusable)

    async def aclose(self) -> None:
        """Done with the answer: an unread body closes the connection (it cannot be reused)."""
        self._finish(reusable=False)


class KeepAlivePool:
    """Up to ``max_connections`` keep-alive connections to the origin of ``base_url`` (http or https)."""

    def __init__(self, base_url: str, *, timeout: float, connect_timeout: float = 30.0, max_connections: int = 512,
                 keepalive_seconds: float = 20.0, trust_env: bool = True) -> None:
        parts = urlsplit(base_url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"not an http(s) URL: {base_url!r}")
        self.tls = parts.scheme == "https"
        self.hostname = parts.hostname
        self.port = parts.port or (443 if self.tls else 80)
        self.host_header = parts.netloc.rpartition("@")[2]
        self.base_path = parts.path.rstrip("/")
        self.read_timeout = timeout
        self.connect_timeout = connect_timeout
        self.max_connections = max_connections
        self.keepalive_seconds = keepalive_seconds
        self._idle: collections.deque[_Connection] = collections.deque()
        self._open = 0
        self._waiters: collections.deque[asyncio.Future[None]] = collections.deque()
        self._ssl: Optional[ssl.SSLContext] = ssl.create_default_context() if self.tls else None
        self._closed = False
        #: The proxy every connection tunnels through (None: direct); ``trust_env=False`` ignores the environment.
        self.proxy: Optional[OutboundProxy] = proxy_for(base_url) if trust_env else None
        self._proxy_ssl = ssl.create_default_context() if self.proxy is not None and self.proxy.tls else None

    @property
    def open_connections(self) -> int:
        """Connections open now (in use or idle)."""
        return self._open

    # -- connections -----------------------------------------------------------------------------------------------
    async def _slot(self) -> None:
        """Wait (up to the read time-out) until fewer than ``max_connections`` are in use."""
        while self._open >= self.max_connections and not self._idle:
            waiter = asyncio.get_running_loop().create_future()
            self._waiters.append(waiter)
            try:
                async with asyncio.timeout(self.read_timeout):
                    await waiter
            except TimeoutError:
                raise ConnectionFailed(True, "PoolTimeout") from None
            finally:
                if waiter in self._waiters:
                    self._waiters.remove(waiter)

    def _wake_one(self) -> None:
        while self._waiters:
            waiter = self._waiters.popleft()
            if not waiter.done():
                waiter.set_result(None)
                return

    async def _connection(self) -> tuple[_Connection, bool]:
        """An idle connection (reused: True) or a new one."""
        now = time.monotonic()
        idle = self._idle
        while idle:
            connection = idle.pop()  # the most recently used: the warmest
            if connection.usable(now, self.keepalive_seconds):
                return connection, True
            connection.close()
            self._open -= 1
        await self._slot()
        if self._idle:
            return await self._connection()
        self._open += 1
        try:
            for attempt in (1, 2):  # nothing was sent yet: once more is safe
                try:
                    async with asyncio.timeout(self.connect_timeout):
                        if self.proxy is not None:
                            reader, writer = await self._tunnel(self.proxy)
                        else:
                            reader, writer = await _open_stream(
                                host=self.hostname, port=self.port, ssl=self._ssl,
                                server_hostname=self.hostname if self.tls else None)
                    return _Connection(reader, writer), False
                except TimeoutError:
                    if attempt == 2:
                        raise ConnectionFailed(True, "ConnectTimeout" + self._via()) from None
                except OSError as exc:
                    if attempt == 2:
                        raise ConnectionFailed(False, f"ConnectError: {type(exc).__name__}{self._via()}") from None
            raise AssertionError("unreachable")
        except BaseException:
            self._open -= 1
            self._wake_one()
            raise

    def _via(self) -> str:
        return f" via the proxy {self.proxy.shown}" if self.proxy is not None else ""

    async def _tunnel(self, proxy: OutboundProxy) -> tuple[_CountingReader, asyncio.StreamWriter]:
        """A connection to the gateway through ``proxy``: CONNECT (an http proxy's, or SOCKS5's), the proxy's yes,
        then TLS for an https gateway. A refusal is a :class:`ConnectionFailed` (not tried again: the proxy will
        say the same)."""
        if proxy.socks:
            return await _open_stream(sock=await self._socks_tunnel(proxy), ssl=self._ssl,
                                      server_hostname=self.hostname if self.tls else None)
        reader, writer = await _open_stream(  # an https proxy: TLS to it first, its name checked
            host=proxy.host, port=proxy.port, ssl=self._proxy_ssl,
            server_hostname=proxy.host if self._proxy_ssl is not None else None)
        try:
            await self._http_connect(proxy, reader, writer)
            if self._ssl is not None:
                await writer.start_tls(self._ssl, server_hostname=self.hostname)
        except BaseException:
            writer.close()
            raise
        return reader, writer

    async def _http_connect(self, proxy: OutboundProxy, reader: _CountingReader,
                            writer: asyncio.StreamWriter) -> None:
        """An http(s) proxy's ``CONNECT host:port`` and its 2xx."""
        writer.write(proxy.connect_request(self.hostname, self.port))
        await writer.drain()
        try:
            head = await reader.readuntil(b"\r\n\r\n")
        except asyncio.IncompleteReadError:
            raise ConnectionFailed(False, f"the proxy {proxy.shown} closed the connection instead of answering "
                                          "CONNECT") from None
        except asyncio.LimitOverrunError:
            raise ConnectionFailed(False, f"the proxy {proxy.shown} sent an over-long answer to CONNECT") from None
        refusal = proxy.refusal(head, self.hostname, self.port)
        if refusal is not None:
            raise ConnectionFailed(False, refusal)
        if reader.received != len(head):  # the gateway speaks only when spoken to: these are not its bytes
            raise ConnectionFailed(False, f"the proxy {proxy.shown} sent more than its answer to CONNECT")

    async def _socks_tunnel(self, proxy: OutboundProxy) -> Any:
        """A socket connected to the gateway through a SOCKS5 proxy (python-socks' handshake: its logins, the
        user/password one if chosen (RFC 1929), then CONNECT); its refusals said in our words."""
        try:
            from python_socks import ProxyError, ProxyType
            from python_socks.async_.asyncio import Proxy as SocksProxy
        except ImportError:  # the classroom extra brings it
            raise ConnectionFailed(False, f"the proxy {proxy.shown} is a SOCKS5 one, which needs python-socks: "
                                          "pip install 'gatewaykit[classroom]'") from None
        user, password = proxy.login
        socks = SocksProxy(ProxyType.SOCKS5, proxy.host, proxy.port, user, password,
                           rdns=proxy.scheme == "socks5h", loop=asyncio.get_running_loop())
        try:
            return await socks.connect(self.hostname, self.port, timeout=self.connect_timeout)
        except ProxyError as exc:
            raise ConnectionFailed(False, proxy.socks_refusal(exc, self.hostname, self.port)) from None
        except (ValueError, IndexError):  # an answer python-socks could not read (a bound name not UTF-8, say)
            raise ConnectionFailed(False, f"the proxy {proxy.shown} did not answer in SOCKS5") from None

    def give_back(self, connection: _Connection, reusable: bool) -> None:
        conn = connection.h11
        if (reusable and not self._closed and conn.our_state is h11.DONE and conn.their_state is h11.DONE
                and connection.clean()):
            conn.start_next_cycle()
            connection.idle_since = time.monotonic()
            self._idle.append(connection)
        else:
            connection.close()
            self._open -= 1
        self._wake_one()

    # -- requests --------------------------------------------------------------------------------------------------
    async def request(self, method: str, target: str, headers: Iterable[tuple[str, str]],
                      content: Optional[bytes] = None) -> UpstreamResponse:
        """Send one request; returns once the answer's head arrived (read the body, or ``aclose``)."""
        connection, _ = await self._connection()
        conn = connection.h11
        sent = False
        try:
            head = [("host", self.host_header), *headers]
            if content is not None or method in ("POST", "PUT", "PATCH"):
                head.append(("content-length", str(len(content or b""))))
            data = conn.send(h11.Request(method=method, target=self.base_path + target, headers=head))
            if content:
                data += conn.send(h11.Data(data=content))  # type: ignore[operator]
            data += conn.send(h11.EndOfMessage())  # type: ignore[operator]
            writer = connection.writer
            writer.write(data)  # type: ignore[arg-type]
            sent = True  # from here on the gateway may have the request
            try:
                await writer.drain()
            except OSError as exc:
                raise ConnectionFailed(False, type(exc).__name__) from None
            while True:
                try:
                    event = await connection.next_event(self.read_timeout)
                except h11.RemoteProtocolError as exc:
                    raise ConnectionFailed(False, f"RemoteProtocolError: {exc}"[:200]) from None
                if type(event) is h11.Response:
                    break
                if type(event) is h11.ConnectionClosed:
                    raise ConnectionFailed(False, "the gateway closed the connection without answering")
                # an InformationalResponse (100 Continue): the real answer follows
        except BaseException as exc:
            if isinstance(exc, ConnectionFailed):
                exc.sent = sent
            self.give_back(connection, reusable=False)
            raise
        if sum(len(name) + len(value) + 4 for name, value in event.headers) > MAX_HEAD_BYTES:
            self.give_back(connection, reusable=False)
            raise ConnectionFailed(False, f"the gateway's answer head is over {MAX_HEAD_BYTES // 1024} KiB", sent=True)
        headers_out = UpstreamHeaders([(name.decode("latin-1"), value.decode("latin-1"))
                                       for name, value in event.headers])
        return UpstreamResponse(self, connection, event.status_code, headers_out)

    async def aclose(self) -> None:
        self._closed = True
        closing = []
        while self._idle:
            connection = self._idle.pop()
            connection.close()
            closing.append(connection.writer)
            self._open -= 1
        if (self.tls or self._proxy_ssl is not None) and closing:  # TLS to the gateway, or to an https proxy
            # TLS closes with an exchange of close_notify: wait a moment for it, then drop what is left, so that no
            # socket outlives the loop that would close it
            waits = [asyncio.ensure_future(writer.wait_closed()) for writer in closing]
            done, pending = await asyncio.wait(waits, timeout=1.0)
            for wait in pending:
                wait.cancel()
            for wait in done:
                wait.exception()  # a TLS error while closing is of no interest now
            for writer in closing:
                writer.transport.abort()
            await asyncio.sleep(0)
