"""Sending one request from synchronous code, for either client: quick, once, never in the way.

Some requests are asked for by code that cannot await and must not wait long: a
ledger read that brings pending jobs up to date
(:mod:`~gatewaykit.client.resources.pending_refresh`), a stream closed early
that needs the catalog's price (:mod:`~gatewaykit.client.resources.stop_pricing`).
:func:`blocking_runner` runs such a flow with blocking I/O: the sync client's own
driver, or for an ``AsyncClient`` (perhaps inside its running event loop) a
blocking transport of its own, on the same gateway with the same headers,
cassette or cache (closed with the client). With a custom ``http_transport=``
(an async one, which cannot send blockingly), or once the client is closed,
there is none: the caller leaves things as they are. :func:`send_once` sends without retries and with a short
timeout (:data:`QUICK_TIMEOUT`): a display does not wait out a retry or a
``Retry-After``.
"""

from __future__ import annotations

import time
from typing import Any, Callable, Optional

from gatewaykit.client.api_request import ApiRequest
from gatewaykit.client.core.base import BaseClient, raise_for_status
from gatewaykit.client.core.flows import Flow, RetryPolicy, run_sync, send_with_retries

__all__ = ["QUICK_TIMEOUT", "blocking_runner", "close_blocking_transport", "send_once"]

QUICK_TIMEOUT = 5.0
"""Seconds such a request may take before it is given up (and what it was for left as it was)."""
_ONCE = RetryPolicy(max_retries=0)


def send_once(path: str) -> Flow[Any]:
    """``GET path`` once, with :data:`QUICK_TIMEOUT`; the response (an error answer raised)."""
    request = ApiRequest("GET", path, timeout=QUICK_TIMEOUT, replay_safe=True)
    response, _ = yield from send_with_retries(request, _ONCE)
    raise_for_status(response)
    return response


def blocking_runner(client: BaseClient) -> Optional[Callable[[Flow[Any]], Any]]:
    """Runs a flow with blocking I/O for ``client``; None when its requests cannot be sent blockingly (or the
    client was closed: what it was asked for is left as it is)."""
    if client.__dict__.get("_closed"):
        return None
    if not getattr(client, "_is_async", False):
        return client._run
    transport = client.__dict__.get("_blocking_transport")
    if transport is None:
        if client.options.http_transport is not None:
            return None  # an async transport of the user's: it cannot send blockingly
        transport = client.__dict__.setdefault("_blocking_transport", _blocking_transport(client))
    return lambda flow: run_sync(flow, transport, time.sleep)


def close_blocking_transport(client: BaseClient) -> None:
    """Close the blocking transport an ``AsyncClient`` made, if it made one."""
    transport = client.__dict__.pop("_blocking_transport", None)
    if transport is not None:
        transport.close()


def _blocking_transport(client: BaseClient) -> Any:
    from gatewaykit.client.transports.http import SyncTransport  # as the sync client loads it

    asynchronous = client._transport
    store = client.cassette or client.cache
    network = None
    if store is not None:
        from gatewaykit.client.transports.cassette import cassette_transport

        network = cassette_transport(store, client.base_url, None, is_async=False)
    transport = SyncTransport(asynchronous.base_url, asynchronous._headers, QUICK_TIMEOUT, network)
    transport.max_response_bytes = asynchronous.max_response_bytes
    return transport
