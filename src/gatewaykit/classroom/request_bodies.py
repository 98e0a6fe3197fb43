"""Students' request bodies count in the classroom's buffered bytes while their requests run.

A body is read whole before it is checked and forwarded (up to the body limit,
64 MiB): without a total, a few students' near-limit bodies at once grow the
server by that much each. This pure ASGI middleware takes each body chunk from
the :class:`~gatewaykit.classroom.buffered_bytes.BufferedBytes` as it arrives
and gives it all back when the request's answer is done; a chunk past the total
is a 503 ``classroom_busy`` (before any hold is taken: nothing is charged).
"""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from gatewaykit.classroom.buffered_bytes import BufferedBytes, BuffersFull
from gatewaykit.serving.errors import ApiError

__all__ = ["CountedBodies", "classroom_busy"]


def classroom_busy() -> ApiError:
    return ApiError(503, "The classroom is holding as much data in memory as it may at once (large requests or "
                    "answers of other students); try again in a moment.", type="api_error", code="classroom_busy")


class CountedBodies:
    """Every http request's body chunks are taken from ``buffers`` as the app reads them, given back at its end."""

    def __init__(self, app: ASGIApp, buffers: BufferedBytes) -> None:
        self.app, self.buffers = app, buffers

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        buffers, held = self.buffers, 0

        async def counted() -> Message:
            nonlocal held
            message = await receive()
            size = len(message.get("body", b"")) if message["type"] == "http.request" else 0
            if size:
                try:
                    buffers.take(size)
                except BuffersFull:
                    raise classroom_busy() from None
                held += size
            return message

        try:
            await self.app(scope, counted, send)
        finally:
            buffers.give(held)
