"""JSON and SSE responses (orjson-encoded), and the header that marks every answer of an offline server."""

from __future__ import annotations

from typing import Any

import orjson
from starlette.responses import Response, StreamingResponse

from gatewaykit.serving.holds import Hold

OFFLINE_HEADER = "X-Gateway-Offline"  # "1" on every answer of the offline gateway (and of a classroom on it)


class JSONResponse(Response):
    media_type = "application/json"

    def render(self, content: Any) -> bytes:
        return orjson.dumps(content)


def sse_data(payload: Any) -> bytes:
    return b"data: " + orjson.dumps(payload) + b"\n\n"


SSE_DONE = b"data: [DONE]\n\n"
SSE_HEADERS = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}


class HeldStreamingResponse(StreamingResponse):
    """A paid SSE answer: its generator charges ``hold`` once the last event is sent; if the stream never
    gets that far (the client left, the generator never started), the hold is released here."""

    def __init__(self, content: Any, hold: Hold, **kwargs: Any) -> None:
        super().__init__(content, **kwargs)
        self.hold = hold

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        try:
            await super().__call__(scope, receive, send)
        finally:
            self.hold.release()  # nothing happens when the generator charged it
