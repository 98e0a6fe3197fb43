"""Pickling a client: what travels to a worker process, and how it reconnects there.

A pickled :class:`~gatewaykit.Client` (or ``AsyncClient``) is its settings:
the base URL, **the API key** (so treat a pickle like the key itself: send it
only to your own workers, never store or share it), timeout, retry policy,
``validate``, extra default headers, the cassette's path and mode, and its
ledger (a :class:`~gatewaykit.Ledger` pickles as its path plus its in-memory
rows; None means the worker's default ledger). A client on the offline gateway
unpickles as a client of that same gateway (its URL and key), not as a new
offline gateway in the worker: the worker must be able to reach it (same
machine). The connection pool, the catalog cache and a custom
``http_transport=`` do not travel; a client built with ``http_transport=``
refuses to pickle rather than lose it. A custom display object is replaced by
the worker's default choice.
"""

from __future__ import annotations

import dataclasses
from typing import Any

__all__ = ["client_state", "restore_client"]


def client_state(client: Any) -> dict[str, Any]:
    """Everything a worker needs to rebuild ``client`` (includes the API key)."""
    if client._custom_transport:
        raise TypeError(
            "a client built with http_transport= cannot be pickled (the transport cannot travel); "
            "build the client in the worker, or leave http_transport out"
        )
    settings = client._settings
    cassette = client._cassette
    return {
        "api_key": settings.api_key,
        "base_url": settings.base_url,
        "offline": settings.offline,
        "key_source": settings.key_source,
        "cassette": str(cassette.path) if cassette is not None else None,
        "cassette_mode": cassette.mode if cassette is not None else "auto",
        "ledger": client._ledger,
        **client._options,
    }


def restore_client(cls: type, state: dict[str, Any]) -> Any:
    """A new client of ``cls`` from :func:`client_state` (reconnects lazily, like any new client)."""
    state = dict(state)
    offline, key_source = state.pop("offline"), state.pop("key_source")
    client = cls(**state)
    if offline:  # the same offline gateway, reached by URL and key (no new one started here)
        client._settings = dataclasses.replace(client._settings, offline=True, key_source=key_source)
    return client
