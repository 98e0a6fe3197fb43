"""The network under a cassette or the response cache: direct, or through the proxy the environment names.

``httpx.Client(trust_env=True)`` reads ``HTTP_PROXY`` / ``HTTPS_PROXY`` / ``ALL_PROXY`` / ``NO_PROXY``
only for the transports it builds itself; a transport handed to it (the cassette, which the response
cache is) is used as it is. So the cassette's own network transport reads them here, once for each
origin it is sent to (a content redirect can go to another host, which ``NO_PROXY`` may name), with
``gatewaykit/proxy_environment.py`` (the classroom reads them the same way). Without this, a
notebook at a school whose network has only a proxy way out worked with ``cache=False`` and failed with
``cache=True``.

The offline gateway never comes here with a proxy: it runs in this process on loopback, where no proxy can
reach it (``trust_env=False`` for it, see ``client/clients.py``).
"""

from __future__ import annotations

import importlib.util
import threading
import urllib.request
from typing import Callable, Generic, Optional, TypeVar
from urllib.parse import urlsplit

import httpx

from gatewaykit.errors import ConfigurationError
from gatewaykit.proxy_environment import named_proxy, shown_proxy

__all__ = ["AsyncEnvironmentNetwork", "EnvironmentNetwork", "check_environment_proxies", "environment_proxy"]

_SCHEMES = ("http", "https", "socks5", "socks5h")  # the proxies httpx speaks to

T = TypeVar("T")


def environment_proxy(url: httpx.URL) -> Optional[str]:
    """The proxy URL the environment names for ``url``, or None: direct."""
    return named_proxy(url.scheme, url.netloc.decode("ascii"))


def check_environment_proxies() -> None:
    """:class:`ConfigurationError` naming the variable when the environment names a proxy httpx cannot use.

    httpx builds a transport for every proxy the environment names when a client is made (or, under the cache,
    at the first call), and fails with a bare ``ImportError`` for a SOCKS proxy without the socksio package,
    or a ``ValueError`` for a scheme it does not speak (``socks4://``): said here, before anything is sent,
    with what to change and never the proxy's login."""
    proxies = urllib.request.getproxies()
    if proxies.get("no", "").strip() == "*":
        return
    for scheme in ("http", "https", "all"):
        named = proxies.get(scheme)
        if not named:
            continue
        kind = urlsplit(named if "://" in named else f"http://{named}").scheme.lower()
        variable = f"{scheme.upper()}_PROXY"
        if kind not in _SCHEMES:
            raise ConfigurationError(
                f"{variable} names a proxy gatewaykit cannot talk to ({shown_proxy(named)}): httpx speaks to "
                f"http://, https://, socks5:// and socks5h:// proxies. Change {variable}, or unset it for this "
                "program.")
        if kind.startswith("socks") and importlib.util.find_spec("socksio") is None:
            raise ConfigurationError(
                f"{variable} names a SOCKS proxy ({shown_proxy(named)}), and talking to one needs the socksio "
                f'package: pip install "httpx[socks]". Or unset {variable} for this program.')


class _ByProxy(Generic[T]):
    """One transport per proxy (None: direct), made on first use; the environment read once per origin (as
    ``httpx.Client`` reads it once), not on every request."""

    def __init__(self, make: Callable[[Optional[str]], T]) -> None:
        self._make = make
        self._made: dict[Optional[str], T] = {}
        self._by_origin: dict[tuple[str, bytes], T] = {}
        # map/compare/evaluate send their first requests from several threads at once: without the lock each
        # made its own transport, only the last was kept, and the others' pools (and sockets) were never closed.
        self._making = threading.Lock()

    def _for(self, url: httpx.URL) -> T:
        origin = (url.scheme, url.netloc)
        transport = self._by_origin.get(origin)
        if transport is None:
            with self._making:
                transport = self._by_origin.get(origin)
                if transport is None:
                    proxy = environment_proxy(url)
                    transport = self._made.get(proxy)
                    if transport is None:
                        transport = self._made[proxy] = self._make(proxy)
                    self._by_origin[origin] = transport
        return transport


class EnvironmentNetwork(_ByProxy[httpx.HTTPTransport], httpx.BaseTransport):
    """A blocking network transport that goes through the environment's proxy for each origin."""

    def __init__(self) -> None:
        super().__init__(lambda proxy: httpx.HTTPTransport(proxy=proxy))

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        return self._for(request.url).handle_request(request)

    def close(self) -> None:
        for transport in list(self._made.values()):
            transport.close()


class AsyncEnvironmentNetwork(_ByProxy[httpx.AsyncHTTPTransport], httpx.AsyncBaseTransport):
    """The awaitable twin of :class:`EnvironmentNetwork`."""

    def __init__(self) -> None:
        super().__init__(lambda proxy: httpx.AsyncHTTPTransport(proxy=proxy))

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        return await self._for(request.url).handle_async_request(request)

    async def aclose(self) -> None:
        for transport in list(self._made.values()):
            await transport.aclose()
