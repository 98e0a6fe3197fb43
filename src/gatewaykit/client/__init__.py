"""The client core: typed sync and async clients for every endpoint of the gateway.

Layout (like httpx): ``base`` does no I/O (configuration, request building,
response -> model, status -> exception); ``flows`` holds multi-step behaviour
as generators (retries, job polling) with a sync and an async driver;
``transports/`` holds the only modules that import httpx (and the cassette); ``sse``, ``assembly``
and ``streaming`` decode and assemble streams; ``validation`` checks requests
against the catalog before sending; ``recording`` hands costs to the ledger;
``job_flows`` creates, polls (one :class:`~gatewaykit.client.job_flows.PollSchedule`),
downloads and cancels jobs; ``api_request`` is the plain-data request and the
shared :class:`RequestOptions`.

Every public name here is imported on first use (``__getattr__``), so that
``import gatewaykit`` stays as light as ``import httpx, pydantic``.

Above the core, ``conversation/`` (sessions, tool loops, transcripts) is built on
the public client; the core never imports it. Inside ``client/`` the order is
``conversation`` -> the HTTP core -> ``transports`` -> ``api_request``
(an import-linter contract in pyproject.toml).

Seams (objects handed in, never module names looked up): ``display`` (the
:class:`Display` Protocol a client shows its work through) and the offline
gateway provider in ``config``. This package never imports the notebook layer
or the offline gateway.
"""

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from gatewaykit.client.api_request import RequestOptions
    from gatewaykit.client.batch import BatchResult
    from gatewaykit.client.clients import AsyncClient, Client
    from gatewaykit.client.config import OfflineGatewayWarning
    from gatewaykit.client.conversation import AsyncChatSession, ChatSession, Turn, TurnEvent
    from gatewaykit.client.display import Display, NullDisplay
    from gatewaykit.client.flows import RetryPolicy
    from gatewaykit.client.media_inputs import image_part
    from gatewaykit.client.parameter_names import UnknownParameterWarning
    from gatewaykit.client.streaming import AsyncChatStream, ChatStream

# Each public name and the module it comes from, imported when first asked for (PEP 562): importing
# this package (which every ``gatewaykit.client.*`` import does first) builds no model and no resource.
_HOMES = {
    "RequestOptions": "api_request",
    "BatchResult": "batch",
    "AsyncClient": "clients",
    "Client": "clients",
    "OfflineGatewayWarning": "config",
    "AsyncChatSession": "conversation",
    "ChatSession": "conversation",
    "Turn": "conversation",
    "TurnEvent": "conversation",
    "Display": "display",
    "NullDisplay": "display",
    "RetryPolicy": "flows",
    "image_part": "media_inputs",
    "UnknownParameterWarning": "parameter_names",
    "AsyncChatStream": "streaming",
    "ChatStream": "streaming",
}

__all__ = sorted(_HOMES)


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'gatewaykit.client' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(f"gatewaykit.client.{home}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
