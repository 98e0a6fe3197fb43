"""The network under a cassette or the response cache: direct, or through the proxy the environment names.

``httpx.Client(trust_env=True)`` reads ``HTTP_PROXY`` / ``HTTPS_PROXY`` / ``ALL_PROXY`` / ``NO_PROXY``
only for the transports it builds itself; a transport handed to it (the cassette, which the response
cache is) is used as it is. So the cassette's own network transport reads them here, per request URL
(a content redirect can go to another host, which ``NO_PROXY`` may name), with the standard library's
rules (``urllib.request.getproxies`` and ``proxy_bypass``, as ``requests`` reads them). Without this, a
notebook at a school whose network has only a proxy way out worked with ``cache=False`` and failed with
``cache=True``.

The offline gateway never comes here with a proxy: it runs in this process on loopback, where no proxy can
reach it (``trust_env=False`` for it, see ``client/clients.py``).
"""

from __future__ import annotations

import urllib.request
from typing import Callable, Generic, Optional, TypeVar

import httpx

__all__ = ["AsyncEnvironmentNetwork", "EnvironmentNetwork", "environment_proxy"]

T = TypeVar("T")


def environment_proxy(url: httpx.URL) -> Optional[str]:
    """The proxy URL the environment names for ``url`` (``http://`` when it names none), or None: direct."""
    proxies = urllib.request.getproxies()
    named = proxies.get(url.scheme) or proxies.get("all")
    if not named:
        return None
    if "no" in proxies and urllib.request.proxy_bypass(url.netloc.decode("ascii")):
        return None
    return named if "://" in named else f"http://{named}"


class _ByProxy(Generic[T]):
    """One transport per proxy (None: direct), made on first use."""

    def __init__(self, make: Callable[[Optional[str]], T]) -> None:
        self._make = make
        self._made: dict[Optional[str], T] = {}

    def _for(self, url: httpx.URL) -> T:
        proxy = environment_proxy(url)
        transport = self._made.get(proxy)
        if transport is None:
            transport = self._made[proxy] = self._make(proxy)
        return transport


class EnvironmentNetwork(_ByProxy[httpx.HTTPTransport], httpx.BaseTransport):
    """A blocking network transport that goes through the environment's proxy for each URL."""

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
