"""A middlebox in front of a real offline gateway that records every request it passes on (imported by the
classroom tests): ``requests`` holds ``(method, path with query, headers, body)`` of each, as the gateway got it.

Answers are passed back whole (a stream arrives at once), with their headers but the hop-by-hop ones; redirects
are passed back, not followed.
"""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx

_HOP_BY_HOP = {"connection", "keep-alive", "transfer-encoding", "content-length", "content-encoding", "te",
               "trailer", "upgrade", "proxy-authenticate", "proxy-authorization", "date", "server"}


class RecordingGateway:
    def __init__(self, gateway_url: str) -> None:
        self.requests: list[tuple[str, str, list[tuple[str, str]], bytes]] = []
        self._http = httpx.Client(base_url=gateway_url, timeout=120, trust_env=False, follow_redirects=False)
        middlebox = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:  # quiet
                pass

            def do_GET(self) -> None:
                self._pass_on()

            def do_POST(self) -> None:
                self._pass_on()

            def do_DELETE(self) -> None:
                self._pass_on()

            def _pass_on(self) -> None:
                body = self.rfile.read(int(self.headers.get("content-length") or 0))
                headers = [(k, v) for k, v in self.headers.items() if k.lower() not in _HOP_BY_HOP | {"host"}]
                middlebox.requests.append((self.command, self.path, list(self.headers.items()), body))
                answer = middlebox._http.request(self.command, self.path, headers=headers, content=body)
                data = answer.content
                self.send_response(answer.status_code)
                for name, value in answer.headers.items():
                    if name.lower() not in _HOP_BY_HOP:
                        self.send_header(name, value)
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self.base_url = f"http://127.0.0.1:{self._server.server_address[1]}"
        self._thread = threading.Thread(target=self._server.serve_forever, name="recording-gateway", daemon=True)
        self._thread.start()

    def __enter__(self) -> "RecordingGateway":
        return self

    def __exit__(self, *exc: Any) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._http.close()
