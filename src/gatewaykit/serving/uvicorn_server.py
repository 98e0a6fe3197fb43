"""uvicorn for both servers: its config (keep-alive, request deadlines, quiet drops), the port and loopback checks."""

from __future__ import annotations

import ipaddress
import logging
from typing import Any

_LOOPBACK_NAMES = {"localhost", "localhost.localdomain", "ip6-localhost"}


def is_loopback(host: str) -> bool:
    if host in _LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


class _QuietDrops(logging.Filter):
    """Hide uvicorn's complaint about the answers we leave unfinished on purpose (``disconnect``)."""

    def filter(self, record: logging.LogRecord) -> bool:
        return "without completing response" not in record.getMessage()


def check_port(port: Any) -> int:
    """``port`` if it is a TCP port (0 to 65535; 0 picks a free one); ValueError otherwise."""
    if isinstance(port, bool) or not isinstance(port, int) or not 0 <= port <= 65535:
        raise ValueError(f"port must be a whole number from 0 to 65535 (0 picks a free one); got {port!r}")
    return port


def uvicorn_config(app: Any, host: str, port: int, log_level: str = "warning", settings: Any = None) -> Any:
    """uvicorn's config for ``app``; ``settings`` (keep-alive, request-head and request-body seconds) default to the
    offline gateway's own (the classroom server passes its own)."""
    import uvicorn

    from gatewaykit.serving.connection_guard import request_deadline_protocol

    settings = settings or app.state.gateway.settings
    logging.getLogger("uvicorn.error").addFilter(_QuietDrops())
    # Idle keep-alive connections stay open longer than httpx keeps them in its pool (5 s): with
    # uvicorn's default of 5 s the server could close a connection just as a client reused it, and
    # that request's answer was lost (seen on a loaded 2-core machine).
    return uvicorn.Config(app, host=host, port=port, log_level=log_level, access_log=False, lifespan="on",
                          timeout_graceful_shutdown=1, ws="none", timeout_keep_alive=settings.keep_alive_seconds,
                          http=request_deadline_protocol(settings.request_head_seconds,
                                                         settings.request_body_seconds),
                          proxy_headers=False)  # no proxy in front: X-Forwarded-* is never trusted
