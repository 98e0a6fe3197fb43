"""Closing connections that never finish a request head (idle sockets, trickled headers).

uvicorn's keep-alive timer only starts after a response, and any byte received cancels it:
a connection that sends nothing, or one header byte every few seconds, stayed open for
ever (80 of 80 such sockets were still open 45 s past the 30 s keep-alive). This h11
protocol arms uvicorn's keep-alive timer when a connection opens too, and gives a
request ``head_seconds`` from its first byte to finish its head; otherwise the
connection is closed. Bodies are read by the app and are not limited here.
"""

from __future__ import annotations

import asyncio
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol


class _HeadDeadlineProtocol(H11Protocol):
    head_seconds: float = 10.0

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._head_deadline: asyncio.TimerHandle | None = None
        # The same idle limit as between requests, from the moment the connection opens.
        self.timeout_keep_alive_task = self.loop.call_later(self.timeout_keep_alive, self.timeout_keep_alive_handler)

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        waiting_for_head = self.conn.their_state is h11.IDLE and not self.transport.is_closing()
        if waiting_for_head and self._head_deadline is None:
            self._head_deadline = self.loop.call_later(self.head_seconds, self._head_too_slow)
        elif not waiting_for_head:
            self._cancel_head_deadline()

    def on_response_complete(self) -> None:
        self._cancel_head_deadline()
        super().on_response_complete()

    def connection_lost(self, exc: Exception | None) -> None:
        self._cancel_head_deadline()
        super().connection_lost(exc)

    def _cancel_head_deadline(self) -> None:
        if getattr(self, "_head_deadline", None) is not None:
            self._head_deadline.cancel()  # type: ignore[union-attr]
            self._head_deadline = None

    def _head_too_slow(self) -> None:
        self._head_deadline = None
        if self.conn.their_state is h11.IDLE and not self.transport.is_closing():
            self.transport.close()


def head_deadline_protocol(head_seconds: float) -> type[Any]:
    """uvicorn's h11 protocol, closing a connection whose request head is not complete ``head_seconds``
    after its first byte, or that sends nothing for the keep-alive time after it opens."""
    return type("HeadDeadlineProtocol", (_HeadDeadlineProtocol,), {"head_seconds": head_seconds})
