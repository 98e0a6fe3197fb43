"""A middlebox in front of a real offline gateway (imported by the classroom tests): a threaded HTTP server on
loopback that passes each request on with httpx and its answer back; subclasses change what passes.

``PassThrough.forward`` is the one place a request is passed on; ``answer`` the one place an answer is written.
"""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx


class PassThrough:
    """Passes every GET, POST and DELETE on to ``gateway_url`` and its answer back; ``with`` stops it."""

    name = "middlebox"

    def __init__(self, gateway_url: str, timeout: float = 60.0) -> None:
        self._http = httpx.Client(base_url=gateway_url, timeout=timeout, trust_env=False, follow_redirects=False)
        middlebox = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:  # quiet
                pass

            def do_GET(self) -> None:
                middlebox.handle(self, self._body())

            do_POST = do_DELETE = do_GET

            def _body(self) -> bytes:
                return self.rfile.read(int(self.headers.get("content-length") or 0))

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self.base_url = f"http://127.0.0.1:{self._server.server_address[1]}"
        self._thread = threading.Thread(target=self._server.serve_forever, name=self.name, daemon=True)
        self._thread.start()

    def handle(self, handler: BaseHTTPRequestHandler, body: bytes) -> None:
        """One request: passed on, its answer passed back (a subclass may do otherwise)."""
        answer = self.forward(handler, body)
        self.answer(handler, answer.status_code, answer.headers.items(), answer.content)

    def forward(self, handler: BaseHTTPRequestHandler, body: bytes,
                headers: list[tuple[str, str]] | None = None) -> httpx.Response:
        """The request as the gateway gets it: ``headers`` (default: authorization and content-type) and ``body``."""
        if headers is None:
            headers = [(k, v) for k, v in handler.headers.items() if k.lower() in ("authorization", "content-type")]
        return self._http.request(handler.command, handler.path, headers=headers, content=body)

    @staticmethod
    def answer(handler: BaseHTTPRequestHandler, status: int, headers: Any, data: bytes, send: bytes | None = None) -> None:
        """Status, ``headers`` (name, value pairs), a content-length for ``data``, then ``send`` (default: all of it)."""
        handler.send_response(status)
        for name, value in headers:
            handler.send_header(name, value)
        handler.send_header("content-length", str(len(data)))
        handler.end_headers()
        try:
            handler.wfile.write(data if send is None else send)
        except OSError:  # the client gave up waiting
            handler.close_connection = True

    def __enter__(self) -> "PassThrough":
        return self

    def __exit__(self, *exc: Any) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._http.close()
