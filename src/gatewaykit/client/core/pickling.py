"""Pickling a client: what travels to a worker process, and how it reconnects there.

A pickled client is its settings, **the API key included** (treat the pickle like the key), and its
ledger (its path and in-memory rows). A client on the offline gateway unpickles as a client of that
same gateway, not a new one. The connection pool and catalog cache do not travel; a client built with
``http_transport=`` refuses to pickle. Details: ``docs/internals.md``.
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
