"""A middlebox in front of a real offline gateway that loses chat answers after the gateway billed them
(imported by the classroom tests).

Every request is passed on to the gateway and its answer passed back, except that a non-streamed
``POST /v1/chat/completions`` answer, once the gateway has answered (and billed it), is lost the way
``mode`` says: ``"slow"`` sends it only after ``delay`` seconds, ``"close"`` closes the connection without
a byte of it, ``"cut"`` sends its head and half its body, then closes. ``lost`` counts the answers lost.
"""

from __future__ import annotations

import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx

_PASSED_BACK = ("content-type", "x-request-id", "x-gateway-offline")


class LossyGateway:
    def __init__(self, gateway_url: str, mode: str, delay: float = 0.0) -> None:
        assert mode in ("slow", "close", "cut"), mode
        self.mode, self.delay, self.lost = mode, delay, 0
        self._http = httpx.Client(base_url=gateway_url, timeout=60, trust_env=False)
        middlebox = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:  # quiet
                pass

            def do_GET(self) -> None:
                self._pass_on(b"")

            def do_POST(self) -> None:
                self._pass_on(self.rfile.read(int(self.headers.get("content-length") or 0)))

            def _pass_on(self, body: bytes) -> None:
                headers = {k: v for k, v in self.headers.items() if k.lower() in ("authorization", "content-type")}
                answer = middlebox._http.request(self.command, self.path, headers=headers, content=body)
                data = answer.content
                if self.path == "/v1/chat/completions" and b'"stream":true' not in body.replace(b" ", b""):
                    middlebox.lost += 1
                    if middlebox.mode == "close":
                        self.close_connection = True
                        return
                    if middlebox.mode == "slow":
                        time.sleep(middlebox.delay)
                self.send_response(answer.status_code)
                for name in _PASSED_BACK:
                    if name in answer.headers:
                        self.send_header(name, answer.headers[name])
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                try:
                    if middlebox.mode == "cut" and self.path == "/v1/chat/completions":
                        self.wfile.write(data[: len(data) // 2])
                        self.close_connection = True
                        return
                    self.wfile.write(data)
                except OSError:  # the classroom gave up waiting (slow)
                    self.close_connection = True

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self.base_url = f"http://127.0.0.1:{self._server.server_address[1]}"
        self._thread = threading.Thread(target=self._server.serve_forever, name="lossy-gateway", daemon=True)
        self._thread.start()

    def __enter__(self) -> "LossyGateway":
        return self

    def __exit__(self, *exc: Any) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._http.close()
