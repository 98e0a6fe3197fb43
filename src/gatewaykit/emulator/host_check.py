"""The gateway answers only to its own address: DNS rebinding and Host-header links are refused.

A web page on another site can make a browser send requests to ``127.0.0.1:8000`` under
its own host name (DNS rebinding) and read the answers, using the demo key. Every HTTP
request must therefore name, in ``Host``, the address the connection came in on (the
bound host and port, from the ASGI ``server`` of the connection) or ``localhost``,
``127.0.0.1`` or ``[::1]`` on that port; anything else is a 421 in the error envelope.
Media links are built from the same address (:func:`own_origin`), never from ``Host``
or ``X-Forwarded-*`` headers.
"""

from __future__ import annotations

from typing import Any

import orjson
from starlette.types import ASGIApp, Receive, Scope, Send

from gatewaykit.serving.errors import error_envelope

_LOOPBACK_NAMES = ("localhost", "127.0.0.1", "[::1]")


def _shown(host: str) -> str:
    return f"[{host}]" if ":" in host and not host.startswith("[") else host


def own_origin(scope: Scope) -> str | None:
    """``http://host:port`` of the address this connection came in on (None when the server does not say)."""
    server = scope.get("server")
    if not server or server[1] is None:
        return None
    return f"http://{_shown(str(server[0]))}:{server[1]}"


def allowed_hosts(scope: Scope) -> frozenset[str] | None:
    """The ``Host`` values this connection may send (lower case), or None when any is fine (no bound address)."""
    server = scope.get("server")
    if not server or server[1] is None:
        return None
    port = int(server[1])
    names = {_shown(str(server[0])).lower(), *_LOOPBACK_NAMES}
    hosts = {f"{name}:{port}" for name in names}
    if port == 80:  # the default port may be left out
        hosts |= names
    return frozenset(hosts)


def _host_header(scope: Scope) -> str | None:
    values = [value for name, value in scope.get("headers", ()) if name == b"host"]
    return values[0].decode("latin-1").strip().lower() if len(values) == 1 else None


class OwnHostOnly:
    """Pure ASGI middleware: 421 ``misdirected_request`` unless ``Host`` names this gateway's own address."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            allowed = allowed_hosts(scope)
            host = _host_header(scope)
            if allowed is not None and host not in allowed:
                await _refuse(send, host, allowed)
                return
        await self.app(scope, receive, send)


async def _refuse(send: Send, host: str | None, allowed: frozenset[str]) -> None:
    shown = "no single Host header" if host is None else f"Host {host[:100]!r}"
    example = sorted(allowed)[0]
    body = orjson.dumps(error_envelope(
        f"This offline gateway only answers requests addressed to itself; this request had {shown}. "
        f"Use its own address, e.g. http://{example}.", "invalid_request_error", "misdirected_request"))
    headers: list[Any] = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": 421, "headers": headers})
    await send({"type": "http.response.body", "body": body})
