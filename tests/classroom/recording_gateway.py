"""A middlebox in front of a real offline gateway that records every request it passes on (imported by the
classroom tests): ``requests`` holds ``(method, path with query, headers, body)`` of each, as the gateway got it.

Answers are passed back whole (a stream arrives at once), with their headers but the hop-by-hop ones; redirects
are passed back, not followed.
"""

from __future__ import annotations

from http.server import BaseHTTPRequestHandler

from middlebox import PassThrough

_HOP_BY_HOP = {"connection", "keep-alive", "transfer-encoding", "content-length", "content-encoding", "te",
               "trailer", "upgrade", "proxy-authenticate", "proxy-authorization", "date", "server"}


class RecordingGateway(PassThrough):
    name = "recording-gateway"

    def __init__(self, gateway_url: str) -> None:
        self.requests: list[tuple[str, str, list[tuple[str, str]], bytes]] = []
        super().__init__(gateway_url, timeout=120)

    def handle(self, handler: BaseHTTPRequestHandler, body: bytes) -> None:
        self.requests.append((handler.command, handler.path, list(handler.headers.items()), body))
        headers = [(k, v) for k, v in handler.headers.items() if k.lower() not in _HOP_BY_HOP | {"host"}]
        answer = self.forward(handler, body, headers)
        kept = [(name, value) for name, value in answer.headers.items() if name.lower() not in _HOP_BY_HOP]
        self.answer(handler, answer.status_code, kept, answer.content)
