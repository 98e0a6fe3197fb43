"""The outbound HTTP proxy the classroom must go through to reach the gateway, read from the environment.

A school's server often reaches the internet only through a proxy named in
``HTTPS_PROXY`` / ``HTTP_PROXY`` / ``ALL_PROXY`` (upper or lower case) with
``NO_PROXY`` listing what stays direct. These are read the way urllib reads them
(``urllib.request.getproxies`` and ``proxy_bypass``; httpx reads the same
variables), once, when a pool is made. One difference: while ``NO_PROXY`` is
not set at all, a loopback gateway (``localhost``, ``127.0.0.0/8``, ``::1``: an
offline gateway on this machine) is reached directly, where httpx would ask the
proxy for it (and the proxy would connect to its own machine, never ours). Once
``NO_PROXY`` is set, its list alone decides, as in urllib and httpx.

Only ``http://`` proxies are spoken to (a CONNECT tunnel; see
:mod:`gatewaykit.classroom.keepalive`). The proxy's user and password become a
``Proxy-Authorization`` header and appear nowhere else: not in ``repr``, not in
``shown``, not in any error.
"""

from __future__ import annotations

import base64
import ipaddress
import re
import urllib.request
from typing import Optional
from urllib.parse import unquote, urlsplit

__all__ = ["OutboundProxy", "proxy_for"]

_STATUS_LINE = re.compile(rb"HTTP/1\.[01] (\d{3})(?: ([^\r\n]*))?\r\n")


class OutboundProxy:
    """An ``http://`` proxy: where it is (``shown``: host and port, never credentials) and how to ask it for a tunnel."""

    __slots__ = ("host", "port", "_authorization")

    def __init__(self, host: str, port: int, user: Optional[str] = None, password: Optional[str] = None) -> None:
        self.host, self.port = host, port
        self._authorization: Optional[bytes] = None
        if user is not None:
            pair = f"{user}:{password or ''}".encode("utf-8")
            self._authorization = b"Basic " + base64.b64encode(pair)

    @property
    def shown(self) -> str:
        return f"[{self.host}]:{self.port}" if ":" in self.host else f"{self.host}:{self.port}"

    def __repr__(self) -> str:
        return f"OutboundProxy({self.shown!r}{', with a password' if self._authorization else ''})"

    def connect_request(self, host: str, port: int) -> bytes:
        """``CONNECT host:port``: the only thing the proxy reads; the teacher's key goes inside the tunnel."""
        name = host if host.isascii() else host.encode("idna").decode("ascii")
        target = f"[{name}]:{port}" if ":" in name else f"{name}:{port}"
        head = f"CONNECT {target} HTTP/1.1\r\nHost: {target}\r\n".encode("ascii")
        if self._authorization is not None:
            head += b"Proxy-Authorization: " + self._authorization + b"\r\n"
        return head + b"\r\n"

    def refusal(self, head: bytes, host: str, port: int) -> Optional[str]:
        """None when the proxy's answer ``head`` (up to the blank line) opened the tunnel, else why not (for logs)."""
        match = _STATUS_LINE.match(head)
        if match is None:
            return f"the proxy {self.shown} did not answer CONNECT in HTTP"
        status = int(match.group(1))
        if 200 <= status < 300:
            return None
        reason = "".join(c for c in (match.group(2) or b"").decode("latin-1") if c.isprintable() and c.isascii())
        why = f"the proxy {self.shown} answered {status} {reason[:60]}".rstrip() + f" to CONNECT {host}:{port}"
        if status == 407:
            why += (" (it wants a user and password: check them in the proxy URL" if self._authorization is None
                    else " (it refused the user and password in the proxy URL")
            why += ", http://user:password@host:port)"
        return why


def _loopback(hostname: str) -> bool:
    name = hostname.lower().rstrip(".")
    if name == "localhost" or name.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def proxy_for(url: str) -> Optional[OutboundProxy]:
    """The proxy the environment names for ``url`` (http or https), or None to connect directly.

    ValueError when the proxy named is not an ``http://`` one (a SOCKS or TLS proxy), saying which variable to change."""
    parts = urlsplit(url)
    hostname = parts.hostname or ""
    if not hostname:
        return None
    proxies = urllib.request.getproxies()
    if "no" not in proxies and _loopback(hostname):
        return None
    named = proxies.get(parts.scheme) or proxies.get("all")
    if not named:
        return None
    if urllib.request.proxy_bypass(parts.netloc.rpartition("@")[2]):
        return None
    proxy = urlsplit(named if "://" in named else f"http://{named}")
    try:
        port = proxy.port
    except ValueError:
        port = -1
    if proxy.scheme != "http" or not proxy.hostname or port == -1:
        where = proxy.hostname or "?"
        raise ValueError(f"The proxy for {parts.scheme} URLs in the environment ({proxy.scheme}://{where}) is not "
                         "an http://host:port proxy; the classroom tunnels only through http:// proxies. Change "
                         f"{parts.scheme.upper()}_PROXY / ALL_PROXY, or list {hostname} in NO_PROXY.")
    user = unquote(proxy.username) if proxy.username is not None else None
    password = unquote(proxy.password) if proxy.password is not None else None
    return OutboundProxy(proxy.hostname, port or 80, user, password)
