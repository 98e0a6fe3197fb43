"""A middlebox in front of a real offline gateway that loses chat answers after the gateway billed them
(imported by the classroom tests).

Every request is passed on to the gateway and its answer passed back, except that a non-streamed
``POST /v1/chat/completions`` answer, once the gateway has answered (and billed it), is lost the way
``mode`` says: ``"slow"`` sends it only after ``delay`` seconds, ``"close"`` closes the connection without
a byte of it, ``"cut"`` sends its head and half its body, then closes. ``lost`` counts the answers lost.
"""

from __future__ import annotations

import time
from http.server import BaseHTTPRequestHandler

from middlebox import PassThrough

_PASSED_BACK = ("content-type", "x-request-id", "x-gateway-offline")


class LossyGateway(PassThrough):
    name = "lossy-gateway"

    def __init__(self, gateway_url: str, mode: str, delay: float = 0.0) -> None:
        assert mode in ("slow", "close", "cut"), mode
        self.mode, self.delay, self.lost = mode, delay, 0
        super().__init__(gateway_url)

    def handle(self, handler: BaseHTTPRequestHandler, body: bytes) -> None:
        answer = self.forward(handler, body)
        data, chat = answer.content, handler.path == "/v1/chat/completions"
        if chat and b'"stream":true' not in body.replace(b" ", b""):
            self.lost += 1
            if self.mode == "close":
                handler.close_connection = True
                return
            if self.mode == "slow":
                time.sleep(self.delay)
        headers = [(name, answer.headers[name]) for name in _PASSED_BACK if name in answer.headers]
        cut = self.mode == "cut" and chat
        self.answer(handler, answer.status_code, headers, data, send=data[: len(data) // 2] if cut else None)
        if cut:
            handler.close_connection = True
