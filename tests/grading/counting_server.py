"""A server on 127.0.0.1 that answers nothing useful and counts every connection and request it gets.

Set as ``SVC_BASE_URL`` (with a key in ``SVC_API_KEY``) it stands for the real gateway a grader's
environment points at: with a grading switch on, its counts must stay at zero. Without the switch the
client reaches it (the tests check that too, so a count of zero means something).
"""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class CountingServer:
    """``with CountingServer() as server: ... server.url, server.connections, server.requests``."""

    def __init__(self) -> None:
        counts = self
        self.connections = 0
        self.requests: list[str] = []
        self._lock = threading.Lock()

        class Handler(BaseHTTPRequestHandler):
            def _answer(self) -> None:
                with counts._lock:
                    counts.requests.append(f"{self.command} {self.path}")
                body = b'{"error": {"message": "the counting server answers nothing", "type": "server_error"}}'
                self.send_response(503)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            do_GET = do_POST = do_DELETE = do_PUT = _answer

            def log_message(self, *args: Any) -> None:
                pass

        class Server(ThreadingHTTPServer):
            daemon_threads = True

            def verify_request(self, request: Any, client_address: Any) -> bool:
                with counts._lock:
                    counts.connections += 1
                return True

        self._server = Server(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def __enter__(self) -> "CountingServer":
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._server.shutdown()
        self._server.server_close()

    @property
    def total(self) -> int:
        """Connections plus requests: zero means nothing reached this server at all."""
        with self._lock:
            return self.connections + len(self.requests)
