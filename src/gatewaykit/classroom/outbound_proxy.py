"""The outbound HTTP proxy the classroom must go through to reach the gateway, read from the environment.

``HTTPS_PROXY`` / ``HTTP_PROXY`` / ``ALL_PROXY`` / ``NO_PROXY`` are read as urllib reads them (a
loopback gateway stays direct while ``NO_PROXY`` is unset); ``http(s)://`` proxies are spoken to
with CONNECT, ``socks5(h)://`` with python-socks. The proxy's login appears in no repr or error.
Details: ``docs/internals.md``.
"""

from __future__ import annotations

import base64
import ipaddress
import re
import urllib.request
from typing import Optional
from urllib.parse import unquote, urlsplit

from gatewaykit.proxy_environment import named_proxy

__all__ = ["OutboundProxy", "proxy_for"]

_STATUS_LINE = re.compile(rb"HTTP/1\.[01] (\d{3})(?: ([^\r\n]*))?\r\n")
_SCHEMES = ("http", "https", "socks5", "socks5h")
_DEFAULT_PORTS = {"http": 80, "https": 443, "socks5": 1080, "socks5h": 1080}
_SOCKS_REPLIES = {
    0x01: "a general failure", 0x02: "not allowed by its rules", 0x03: "network unreachable",
    0x04: "host unreachable", 0x05: "connection refused", 0x06: "TTL expired", 0x07: "command not supported",
    0x08: "address type not supported",
}  # fmt: skip


class OutboundProxy:
    """An outbound proxy: its kind (``scheme``), where it is (``shown``: host and port, never credentials) and how to
    ask it for a tunnel (an ``http`` / ``https`` proxy's CONNECT; a ``socks5`` / ``socks5h`` proxy's handshake)."""

    __slots__ = ("host", "port", "scheme", "_authorization", "_user", "_password")

    def __init__(self, host: str, port: int, user: Optional[str] = None, password: Optional[str] = None,
                 scheme: str = "http") -> None:
        if scheme not in _SCHEMES:
            raise ValueError(f"not a proxy the classroom speaks to: {scheme}:// (http://, https://, socks5h:// or "
                             "socks5://)")
        self.host, self.port, self.scheme = host, port, scheme
        self._authorization: Optional[bytes] = None
        self._user, self._password = user, (password or "") if user is not None else None
        if user is not None:
            pair = f"{user}:{password or ''}".encode("utf-8")
            self._authorization = b"Basic " + base64.b64encode(pair)
            if scheme.startswith("socks") and not all(
                    0 < len(part) < 256 and part.isascii() for part in (user, password or "")):
                raise ValueError(f"A SOCKS5 proxy's user and password are each 1 to 255 bytes of ASCII (RFC 1929); "
                                 f"the ones in the proxy URL for {self.shown} are not: change them in the URL.")

    @property
    def socks(self) -> bool:
        """Whether this is a SOCKS5 proxy (else an http one, or https: the same inside TLS to the proxy)."""
        return self.scheme.startswith("socks")

    @property
    def tls(self) -> bool:
        """Whether the connection to the proxy itself is TLS (an ``https://`` proxy)."""
        return self.scheme == "https"

    @property
    def shown(self) -> str:
        return f"[{self.host}]:{self.port}" if ":" in self.host else f"{self.host}:{self.port}"

    def __repr__(self) -> str:
        kind = "" if self.scheme == "http" else f", {self.scheme}"  # never the login
        return f"OutboundProxy({self.shown!r}{kind}{', with a password' if self._authorization else ''})"

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

    @property
    def login(self) -> tuple[Optional[str], Optional[str]]:
        """The user and password in the proxy URL (None, None: none), for the SOCKS5 login."""
        return self._user, self._password

    def socks_refusal(self, failure: Exception, host: str, port: int) -> str:
        """Why a SOCKS5 proxy did not open the tunnel, from python-socks' ``ProxyError`` (for logs; never the
        login)."""
        code = getattr(failure, "error_code", None)
        if isinstance(code, int) and code > 0:
            why = _SOCKS_REPLIES.get(code, "an unknown refusal")
            return f"the proxy {self.shown} answered {code} ({why}) to SOCKS5 CONNECT {host}:{port}"
        said = str(failure).lower()
        if "authentication failure" in said:
            return f"the proxy {self.shown} refused the user and password in the proxy URL"
        if "no acceptable authentication" in said:
            if self._user is None:
                return (f"the proxy {self.shown} wants a login (a user and password: "
                        f"{self.scheme}://user:password@host:port)")
            return f"the proxy {self.shown} accepts none of the logins offered"
        if "closed unexpectedly" in said:
            hint = " (check the user and password in the proxy URL)" if self._user is not None else ""
            return f"the proxy {self.shown} closed the connection during the SOCKS5 handshake{hint}"
        return f"the proxy {self.shown} did not answer in SOCKS5"


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

    ValueError when the proxy named is not one the classroom speaks to (a SOCKS4 one, say), saying which
    variable to change."""
    parts = urlsplit(url)
    hostname = parts.hostname or ""
    if not hostname:
        return None
    proxies = urllib.request.getproxies()
    if "no" not in proxies and _loopback(hostname):
        return None
    named = named_proxy(parts.scheme, parts.netloc, proxies)
    if named is None:
        return None
    proxy = urlsplit(named)
    try:
        port = proxy.port
    except ValueError:
        port = -1
    scheme = proxy.scheme.lower()
    if scheme not in _SCHEMES or not proxy.hostname or port == -1:
        where = proxy.hostname or "?"
        raise ValueError(f"The proxy for {parts.scheme} URLs in the environment ({proxy.scheme}://{where}) is not "
                         "one the classroom can tunnel through (http://host:port, https://host:port, "
                         f"socks5h://host:port or socks5://host:port). Change {parts.scheme.upper()}_PROXY / "
                         f"ALL_PROXY, or list {hostname} in NO_PROXY.")
    user = unquote(proxy.username) if proxy.username is not None else None
    password = unquote(proxy.password) if proxy.password is not None else None
    return OutboundProxy(proxy.hostname, port or _DEFAULT_PORTS[scheme], user, password, scheme)
