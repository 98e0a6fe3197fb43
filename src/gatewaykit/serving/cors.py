"""Browser origins a server allows (CORS), for the offline gateway and the classroom.

A page whose Python runs in the browser (JupyterLite) calls the gateway with ``fetch`` from its own
origin; the browser lets it read an answer only when the server names that origin. None is allowed by
default; ``cors_origins=[...]`` / ``--cors-origin ORIGIN`` (repeatable) lists them, ``"*"`` allows every
origin. Credentials (cookies, HTTP auth) are never allowed: the client sends its key in ``Authorization``,
which a listed origin may send, so no origin, listed or ``*``, ever gets a browser's cookies through.
Starlette's ``CORSMiddleware`` answers the preflight and marks every answer, errors included, so a page
reads the spec's error envelope too.
"""

from __future__ import annotations

from typing import Any, Iterable
from urllib.parse import urlsplit

__all__ = ["add_cors", "browser_origins"]

#: What a page's client reads from an answer beyond the CORS-safelisted headers.
EXPOSED_HEADERS = ["X-Request-Id", "Retry-After", "X-Gateway-Offline", "Location"]
#: A day: how long a browser may keep a preflight's answer.
PREFLIGHT_MAX_AGE = 86400


def browser_origins(origins: Iterable[str] | str | None) -> tuple[str, ...]:
    """``origins`` checked: each ``*`` or ``scheme://host[:port]``; anything else a ValueError saying why."""
    if origins is None:
        return ()
    if isinstance(origins, str):
        origins = [origins]
    checked = []
    for origin in origins:
        if not isinstance(origin, str):
            raise ValueError(f"cors_origins takes origins as strings such as 'http://127.0.0.1:8800'; got {origin!r}")
        if origin == "*":
            checked.append(origin)
            continue
        parts = urlsplit(origin)
        if parts.scheme not in ("http", "https") or not parts.hostname or parts.path not in ("", "/") \
                or parts.query or parts.fragment or parts.username or parts.password:
            raise ValueError(f"a CORS origin is a scheme, a host and an optional port, such as "
                             f"'https://class.example.org' or 'http://127.0.0.1:8800' (no path), or '*'; got {origin!r}")
        checked.append(origin.rstrip("/").lower())
    return tuple(dict.fromkeys(checked))


def add_cors(app: Any, origins: tuple[str, ...]) -> None:
    """Wrap ``app`` (outermost) in Starlette's CORS middleware for ``origins``; nothing when there are none."""
    if not origins:
        return
    from starlette.middleware.cors import CORSMiddleware

    app.add_middleware(CORSMiddleware, allow_origins=list(origins), allow_credentials=False,
                       allow_methods=["GET", "POST", "DELETE"], allow_headers=["*"],
                       expose_headers=EXPOSED_HEADERS, max_age=PREFLIGHT_MAX_AGE)
