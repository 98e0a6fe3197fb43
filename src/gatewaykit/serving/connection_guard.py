"""Closing connections that never finish a request: idle sockets, trickled headers, trickled bodies.

uvicorn's keep-alive timer only starts after a response and any byte cancels it, so this h11
protocol (a subclass of uvicorn's ``H11Protocol``, pinned in pyproject.toml) arms it at connect and
gives a request's head and body deadlines (the body's grows with the bytes received). A slow body
gets a 408 in the error envelope, then a lingering close so the client reads it. Measurements:
``docs/internals.md``.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

import h11
import orjson
from uvicorn.protocols.http.h11_impl import H11Protocol

from gatewaykit.serving.errors import error_envelope

#: The least upload speed a body's deadline assumes: each 64 KiB received adds a second to it.
BODY_BYTES_PER_SECOND = 64 * 1024
#: How long a connection answered 408 keeps reading (and dropping) what its client still sends before it closes.
LINGER_SECONDS = 2.0


def timeout_answer(message: str) -> bytes:
    """A complete ``408 Request Timeout`` HTTP/1.1 answer (error envelope, ``Connection: close``)."""
    body = orjson.dumps(error_envelope(message, "invalid_request_error", "request_timeout"))
    head = (f"HTTP/1.1 408 Request Timeout\r\ncontent-type: application/json\r\ncontent-length: {len(body)}\r\n"
            "connection: close\r\nx-gateway-offline: 1\r\n\r\n")
    return head.encode() + body


class _RequestDeadlineProtocol(H11Protocol):
    head_seconds: float = 10.0
    body_seconds: float = 10.0

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._head_deadline: asyncio.TimerHandle | None = None
        self._body_deadline: asyncio.TimerHandle | None = None
        self._body_started = 0.0
        self._body_bytes = 0
        self._body_waited = 0.0  # seconds the server was not reading: not the client's fault
        self._lingering = False  # answered 408 and shut for writing: what arrives is dropped until the close
        # The same idle limit as between requests, from the moment the connection opens.
        self.timeout_keep_alive_task = self.loop.call_later(self.timeout_keep_alive, self.timeout_keep_alive_handler)

    def data_received(self, data: bytes) -> None:
        if self._lingering:
            return  # the rest of a body already answered 408: read, so the close stays a FIN, and dropped
        super().data_received(data)
        if self.transport.is_closing():
            return
        state = self.conn.their_state
        if state is h11.IDLE and self._head_deadline is None:
            self._head_deadline = self.loop.call_later(self.head_seconds, self._head_too_slow)
        elif state is not h11.IDLE:
            self._cancel_head_deadline()
        if state is h11.SEND_BODY:
            if self._body_deadline is None:
                self._body_started, self._body_bytes, self._body_waited = time.monotonic(), 0, 0.0
                self._body_deadline = self.loop.call_later(self.body_seconds, self._check_body)
            self._body_bytes += len(data)
        else:
            self._cancel_body_deadline()

    def on_response_complete(self) -> None:
        self._cancel_head_deadline()
        super().on_response_complete()

    def connection_lost(self, exc: Exception | None) -> None:
        self._cancel_head_deadline()
        self._cancel_body_deadline()
        super().connection_lost(exc)

    def _cancel_head_deadline(self) -> None:
        if getattr(self, "_head_deadline", None) is not None:
            self._head_deadline.cancel()  # type: ignore[union-attr]
            self._head_deadline = None

    def _cancel_body_deadline(self) -> None:
        if getattr(self, "_body_deadline", None) is not None:
            self._body_deadline.cancel()  # type: ignore[union-attr]
            self._body_deadline = None

    def _head_too_slow(self) -> None:
        self._head_deadline = None
        if self.conn.their_state is h11.IDLE and not self.transport.is_closing():
            self.transport.close()  # no request to answer yet

    def _server_not_reading(self) -> bool:
        cycle = self.cycle
        return bool(self.flow.read_paused or (cycle is not None and cycle.waiting_for_100_continue))

    def _check_body(self) -> None:
        self._body_deadline = None
        if self.conn.their_state is not h11.SEND_BODY or self.transport.is_closing():
            return
        step = 0.5
        if self._server_not_reading():
            self._body_waited += step
            self._body_deadline = self.loop.call_later(step, self._check_body)
            return
        allowed = self.body_seconds + self._body_bytes / BODY_BYTES_PER_SECOND + self._body_waited
        left = self._body_started + allowed - time.monotonic()
        if left > 0:
            self._body_deadline = self.loop.call_later(left, self._check_body)
            return
        if self.cycle is not None and not self.cycle.response_started:
            self.transport.write(timeout_answer(
                f"The request body arrived too slowly: it must arrive within {self.body_seconds:g} s of the headers, "
                f"plus 1 s per {BODY_BYTES_PER_SECOND // 1024} KiB. The connection is closed; send the body at once."))
            if self.transport.can_write_eof():
                self._linger()
                return
        self.transport.close()

    def _linger(self) -> None:
        """Shut for writing after the 408 and drop what still arrives; close after :data:`LINGER_SECONDS`
        (or when the client closes first: its end of file closes the transport)."""
        self._lingering = True
        self.flow.resume_reading()  # keep reading: unread bytes at the close would turn it into a reset
        self.transport.write_eof()
        self.loop.call_later(LINGER_SECONDS, self._end_linger)

    def _end_linger(self) -> None:
        if not self.transport.is_closing():
            self.transport.close()


def request_deadline_protocol(head_seconds: float, body_seconds: float) -> type[Any]:
    """uvicorn's h11 protocol, closing a connection whose request head is not complete ``head_seconds``
    after its first byte, whose body is not complete ``body_seconds`` (plus a second per
    :data:`BODY_BYTES_PER_SECOND` received) after its head, or that sends nothing for the keep-alive time
    after it opens."""
    return type("RequestDeadlineProtocol", (_RequestDeadlineProtocol,),
                {"head_seconds": head_seconds, "body_seconds": body_seconds})


def head_deadline_protocol(head_seconds: float) -> type[Any]:
    """:func:`request_deadline_protocol` with the default body deadline."""
    return request_deadline_protocol(head_seconds, _RequestDeadlineProtocol.body_seconds)
