"""The client core: typed sync and async clients for every endpoint of the gateway.

The tree draws the layers, top to bottom; each package imports only those below
it (an exhaustive import-linter contract in pyproject.toml):

- ``conversation/``: sessions, tool loops, transcripts, built on the public
  client; the core never imports it (``chat.session()`` goes through
  ``resources/session_seam``);
- ``clients``: ``Client`` and ``AsyncClient``, which differ only by class
  attributes (their resource classes, transport and flow driver), composing
  the resources and the session tools; ``terminal_display``: the
  :class:`Display` outside a kernel;
- ``session_tools/``: ``compare``, ``gk.gallery()``, ``map``/``batch`` and
  their checkpoints;
- ``resources/``: ``chat``, ``images``, ``videos``, ``music``, ``models``,
  ``jobs``, and the job flows videos and music share;
- ``core/``: one request from keyword to typed response: the options, the
  request pipeline and its checks, flows (retries, polling), streams, the
  :class:`Display` Protocol;
- ``transports/``: the only modules that import httpx (and the cassette);
- ``api_request``: the plain-data request and :class:`RequestOptions`.

Seams (objects handed in, never module names looked up): ``core/display`` (the
:class:`Display` Protocol a client shows its work through), the offline
gateway provider in ``core/config`` and the session factories in
``resources/session_seam``. This package never imports the notebook layer or
the offline gateway.

Every public name here is imported on first use (``__getattr__``), so that
``import gatewaykit`` builds no pydantic model and loads neither httpx nor pydantic.
"""

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from gatewaykit.client.api_request import RequestOptions
    from gatewaykit.client.session_tools.batch import BatchResult
    from gatewaykit.client.session_tools.checkpoint_values import CheckpointWarning
    from gatewaykit.client.session_tools.comparison import Comparison, ComparisonEntry
    from gatewaykit.client.session_tools.evaluation import Evaluation, EvaluationCell
    from gatewaykit.client.session_tools.evaluation_stats import RegressionError
    from gatewaykit.client.session_tools.expectations import Expectation, expect
    from gatewaykit.client.session_tools.gallery import Gallery
    from gatewaykit.client.session_tools.scoring import Judge, judge
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
    "Evaluation": "evaluation",
    "EvaluationCell": "evaluation",
    "RegressionError": "evaluation_stats",
    "Expectation": "expectations",
    "expect": "expectations",
    "Gallery": "gallery",
    "Judge": "scoring",
    "judge": "scoring",
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
    if home == "evaluation":
        from gatewaykit.client.session_tools import evaluation

        return evaluation
    if home == "evaluation_stats":
        from gatewaykit.client.session_tools import evaluation_stats

        return evaluation_stats
    if home == "expectations":
        from gatewaykit.client.session_tools import expectations

        return expectations
    if home == "scoring":
        from gatewaykit.client.session_tools import scoring

        return scoring
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
