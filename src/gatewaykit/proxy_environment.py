"""Which proxy the environment names for a URL: one reading for the client and the classroom server.

``HTTP_PROXY`` / ``HTTPS_PROXY`` / ``ALL_PROXY`` and ``NO_PROXY`` (either case), read with the standard
library's rules (``urllib.request.getproxies`` and ``proxy_bypass``, as ``requests`` reads them). The
client's cache and cassettes use it for their own network transport
(``client/transports/environment_proxies.py``); the classroom for its tunnels to the gateway
(``classroom/outbound_proxy.py``). Standard library only: both may import it.
"""

from __future__ import annotations

import urllib.request
from typing import Mapping, Optional
from urllib.parse import urlsplit

__all__ = ["named_proxy", "shown_proxy"]


def named_proxy(scheme: str, netloc: str, proxies: Optional[Mapping[str, str]] = None) -> Optional[str]:
    """The proxy URL the environment names for a ``scheme://netloc`` URL (``http://`` added when it names
    none), or None: direct. ``proxies``: ``urllib.request.getproxies()``, when the caller has read it."""
    if proxies is None:
        proxies = urllib.request.getproxies()
    named = proxies.get(scheme) or proxies.get("all")
    if not named or urllib.request.proxy_bypass(netloc.rpartition("@")[2]):
        return None
    return named if "://" in named else f"http://{named}"


def shown_proxy(url: str) -> str:
    """``scheme://host:port`` of a proxy URL, for messages: never its user or password."""
    parts = urlsplit(url if "://" in url else f"http://{url}")
    shown = f"{parts.scheme}://{parts.hostname or '?'}"
    try:
        port = parts.port
    except ValueError:  # a port that is not a number: the host alone
        return shown
    return f"{shown}:{port}" if port else shown
