"""gatewaykit: a Jupyter-first toolkit for the Multi-modal Generation Gateway.

One key and one prepaid USD balance give chat, image, video and music models::

    import gatewaykit as gk
    client = gk.Client()            # SVC_API_KEY / SVC_BASE_URL, or the offline gateway
    client.chat.ask("Explain SSE in two sentences")

Importing this package loads only the client core (httpx and pydantic). The
notebook layer, pandas, Pillow and the offline gateway load when first used.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from gatewaykit._version import __version__
from gatewaykit.client import (
    AsyncChatSession,
    AsyncChatStream,
    AsyncClient,
    BatchResult,
    ChatSession,
    ChatStream,
    Client,
    Display,
    NullDisplay,
    OfflineGatewayWarning,
    RequestOptions,
    RetryPolicy,
    Turn,
    TurnEvent,
    UnknownParameterWarning,
    image_part,
)
from gatewaykit.costs import CostRecord, Ledger, ledger
from gatewaykit.errors import (
    APIConnectionError,
    APIStatusError,
    APITimeoutError,
    AuthenticationError,
    BadRequestError,
    BudgetExceededError,
    CassetteMissError,
    ConfigurationError,
    GatewayError,
    InsufficientQuotaError,
    JobFailedError,
    JobTimeoutError,
    ModelNotFoundError,
    NotFoundError,
    PermissionDeniedError,
    PromptTooLongError,
    RateLimitError,
    RequestTooLargeError,
    ServerError,
    StreamInterruptedError,
    StructuredOutputError,
    UnexpectedResponseError,
)
from gatewaykit.types import (
    ChatCompletion,
    ChatCompletionChunk,
    ChatMessage,
    Cost,
    ImageData,
    ImageResult,
    JobStatus,
    Message,
    Model,
    ModelList,
    MusicJob,
    Tool,
    ToolCall,
    Usage,
    VideoJob,
)

from gatewaykit._wiring import install_defaults as _install_defaults

if TYPE_CHECKING:  # pragma: no cover
    from gatewaykit import emulator as emulator

_install_defaults()

__all__ = [
    "APIConnectionError",
    "APIStatusError",
    "APITimeoutError",
    "AsyncChatSession",
    "AsyncChatStream",
    "AsyncClient",
    "AuthenticationError",
    "BadRequestError",
    "BatchResult",
    "BudgetExceededError",
    "CassetteMissError",
    "ChatCompletion",
    "ChatCompletionChunk",
    "ChatMessage",
    "ChatSession",
    "ChatStream",
    "Client",
    "ConfigurationError",
    "Cost",
    "CostRecord",
    "Display",
    "GatewayError",
    "ImageData",
    "ImageResult",
    "InsufficientQuotaError",
    "JobFailedError",
    "JobStatus",
    "JobTimeoutError",
    "Ledger",
    "Message",
    "Model",
    "ModelList",
    "ModelNotFoundError",
    "MusicJob",
    "NotFoundError",
    "NullDisplay",
    "OfflineGatewayWarning",
    "PermissionDeniedError",
    "PromptTooLongError",
    "RateLimitError",
    "RequestOptions",
    "RequestTooLargeError",
    "RetryPolicy",
    "ServerError",
    "StreamInterruptedError",
    "StructuredOutputError",
    "Tool",
    "ToolCall",
    "Turn",
    "TurnEvent",
    "UnexpectedResponseError",
    "UnknownParameterWarning",
    "Usage",
    "VideoJob",
    "__version__",
    "emulator",
    "image_part",
    "ledger",
    "load_ipython_extension",
    "playground",
]


def __getattr__(name: str) -> Any:
    # The offline gateway is imported only when asked for (it pulls in the server stack).
    if name == "emulator":
        import importlib

        return importlib.import_module("gatewaykit.emulator")
    raise AttributeError(f"module 'gatewaykit' has no attribute {name!r}")


def load_ipython_extension(ipython: Any) -> None:
    """``%load_ext gatewaykit``: registers the ``%%chat`` and ``%%image`` cell magics."""
    from gatewaykit.notebook.magics import load_ipython_extension as _load

    _load(ipython)


def playground(client: Any = None) -> Any:
    """An interactive form over the catalog (model, parameters, Run, result, cost) for a notebook or Voilà.

    ``client=None`` uses ``gk.Client()``. Needs ipywidgets in a kernel; elsewhere
    it returns an object whose text says how to get them.
    """
    from gatewaykit.notebook.playground import playground as _playground

    return _playground(client)
