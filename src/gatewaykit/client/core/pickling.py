"""Pickling a client: what travels to a worker process, and how it reconnects there.

A pickled :class:`~gatewaykit.Client` (or ``AsyncClient``) is its settings:
the base URL, **the API key** (so treat a pickle like the key itself: send it
only to your own workers, never store or share it), timeout, retry policy,
``validate``, extra default headers, the cassette's path and mode, and its
ledger (a :class:`~gatewaykit.Ledger` pickles as its path plus its in-memory
rows; None means the worker's default ledger): its
:class:`~gatewaykit.client.core.options.ClientOptions` as they are (every keyword:
``strict`` too) plus the resolved connection. A client on the offline gateway
unpickles as a client of that same gateway (its URL and key), not as a new
offline gateway in the worker: the worker must be able to reach it (same
machine). The connection pool, the catalog cache and a custom
``http_transport=`` do not travel; a client built with ``http_transport=``
refuses to pickle rather than lose it. A custom display object is replaced by
the worker's default choice.
"""

from __future__ import annotations

from typing import Any

from gatewaykit.client.core.config import ConnectionSettings
from gatewaykit.client.core.options import ClientOptions

__all__ = ["client_state", "restore_client"]


def client_state(client: Any) -> tuple[ClientOptions, ConnectionSettings]:
    """Everything a worker needs to rebuild ``client``: its options as built and its resolved connection (the key)."""
    return client._options.to_pickle(), client._settings


def restore_client(cls: type[Any], options: ClientOptions, settings: ConnectionSettings) -> Any:
    """A new client of ``cls`` from :func:`client_state` (reconnects lazily, like any new client).

    The connection is the one resolved where the client was built: the same key and URL, and a
    client of the offline gateway stays a client of that same gateway (no new one started here).
    """
    client = object.__new__(cls)
    client._setup(options, settings)
    return client
