"""Clients on the real offline gateway whose transport keeps a copy of every JSON request body sent."""

from __future__ import annotations

import json
from typing import Any

import httpx

import gatewaykit as gk

from .conftest import FAST_RETRIES


class SpyTransport(httpx.HTTPTransport):
    """A real HTTP transport that remembers each chat request body (then sends it on unchanged)."""

    def __init__(self) -> None:
        super().__init__()
        self.bodies: list[dict[str, Any]] = []

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("/chat/completions"):
            self.bodies.append(json.loads(request.read()))
        return super().handle_request(request)


class AsyncSpyTransport(httpx.AsyncHTTPTransport):
    def __init__(self) -> None:
        super().__init__()
        self.bodies: list[dict[str, Any]] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("/chat/completions"):
            self.bodies.append(json.loads(await request.aread()))
        return await super().handle_async_request(request)


def spy_client(emulator: Any, key: str, ledger: Any, **options: Any) -> tuple[gk.Client, SpyTransport]:
    spy = SpyTransport()
    client = gk.Client(api_key=key, base_url=emulator.base_url, ledger=ledger, retry_policy=FAST_RETRIES,
                       http_transport=spy, **options)  # fmt: skip
    return client, spy


def async_spy_client(emulator: Any, key: str, ledger: Any) -> tuple[gk.AsyncClient, AsyncSpyTransport]:
    spy = AsyncSpyTransport()
    client = gk.AsyncClient(api_key=key, base_url=emulator.base_url, ledger=ledger, retry_policy=FAST_RETRIES,
                            http_transport=spy)  # fmt: skip
    return client, spy
