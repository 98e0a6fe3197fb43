"""The client core: typed sync and async clients for every endpoint of the gateway.

Layout (like httpx):

- ``options``: :class:`~gatewaykit.client.core.options.ClientOptions`, the one list of
  ``Client(...)``'s keywords (the constructor, the pickle and ``repr`` read it);
- ``clients``: ``Client`` and ``AsyncClient``, which differ only by class
  attributes (their resource classes, transport and flow driver); ``base``:
  what they share, doing no I/O (settings, headers, the catalog cache);
- the resources: ``chat`` (its fields written once in ``chat_fields``),
  ``images``, ``videos``, ``music``, ``models``, ``pending_jobs``;
- ``request_pipeline``: every creating call's path in one place, top to
  bottom (normalise -> check against the spec and the catalog -> encode ->
  price and record -> send); ``validation`` and ``parameter_names`` are its
  checks, ``recording`` its hand-over to the ledger;
- ``flows``: multi-step behaviour as generators (retries, job polling) with a
  sync and an async driver; ``job_flows`` creates, polls (one
  :class:`~gatewaykit.client.resources.job_flows.PollSchedule`), downloads and cancels jobs;
- ``sse``, ``assembly`` and ``streaming`` decode and assemble streams;
- ``transports/``: the only modules that import httpx (and the cassette);
  ``api_request``: the plain-data request and :class:`RequestOptions`.

Above the core, ``conversation/`` (sessions, tool loops, transcripts) is built on
the public client; the core never imports it (``chat.session()`` goes through
``session_seam``). Inside ``client/`` the order is ``conversation`` -> the HTTP
core -> ``transports`` -> ``api_request`` (an import-linter contract in
pyproject.toml).

Seams (objects handed in, never module names looked up): ``display`` (the
:class:`Display` Protocol a client shows its work through), the offline
gateway provider in ``config`` and the session factories in ``session_seam``.
This package never imports the notebook layer or the offline gateway.

Every public name here is imported on first use (``__getattr__``), so that
``import gatewaykit`` builds no pydantic model and loads neither httpx nor pydantic.
"""

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from gatewaykit.client.api_request import RequestOptions
    from gatewaykit.client.session_tools.batch import BatchResult
    from gatewaykit.client.session_tools.checkpoint_values import CheckpointWarning
    from gatewaykit.client.session_tools.comparison import Comparison, ComparisonEntry
    from gatewaykit.client.session_tools.gallery import Gallery
    from gatewaykit.client.clients import AsyncClient, Client
    from gatewaykit.client.core.config import OfflineGatewayWarning
    from gatewaykit.client.conversation import AsyncChatSession, ChatSession, Turn, TurnEvent
    from gatewaykit.client.core.display import Display, NullDisplay
    from gatewaykit.client.core.flows import RetryPolicy
    from gatewaykit.client.resources.media_inputs import image_part
    from gatewaykit.client.core.parameter_names import UnknownParameterWarning
    from gatewaykit.client.core.streaming import AsyncChatStream, ChatStream

# Each public name and the module it comes from, imported when first asked for (PEP 562): importing
# this package (which every ``gatewaykit.client.*`` import does first) builds no model and no resource.
_HOMES = {
    "RequestOptions": "api_request",
    "BatchResult": "batch",
    "CheckpointWarning": "checkpoint_values",
    "Comparison": "comparison",
    "ComparisonEntry": "comparison",
    "Gallery": "gallery",
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
    value = getattr(_module(home), name)
    globals()[name] = value
    return value


def _module(home: str) -> Any:
    # Written out (no importlib) so that the import contracts and the cycle check see every import.
    if home == "api_request":
        from gatewaykit.client import api_request

        return api_request
    if home == "batch":
        from gatewaykit.client.session_tools import batch

        return batch
    if home == "clients":
        from gatewaykit.client import clients

        return clients
    if home == "config":
        from gatewaykit.client.core import config

        return config
    if home == "checkpoint_values":
        from gatewaykit.client.session_tools import checkpoint_values

        return checkpoint_values
    if home == "comparison":
        from gatewaykit.client.session_tools import comparison

        return comparison
    if home == "gallery":
        from gatewaykit.client.session_tools import gallery

        return gallery
    if home == "conversation":
        from gatewaykit.client import conversation

        return conversation
    if home == "display":
        from gatewaykit.client.core import display

        return display
    if home == "flows":
        from gatewaykit.client.core import flows

        return flows
    if home == "media_inputs":
        from gatewaykit.client.resources import media_inputs

        return media_inputs
    if home == "parameter_names":
        from gatewaykit.client.core import parameter_names

        return parameter_names
    from gatewaykit.client.core import streaming

    return streaming


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
