"""gatewaykit: a Jupyter-first toolkit for the Multi-modal Generation Gateway.

One key and one prepaid USD balance give chat, image, video and music models::

    import gatewaykit as gk
    client = gk.Client()            # SVC_API_KEY / SVC_BASE_URL, or the offline gateway
    client.chat.ask("Explain SSE in two sentences")

Importing this package loads only its errors and the seams the composition
root (``_wiring``) plugs into; the client and its types (``Client``), the
conversation layer (``ChatSession``), the ledger (``Ledger``, ``ledger``), the
notebook layer, pandas, Pillow and the offline gateway load when first used.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional

from gatewaykit import grading_environment as _grading_environment  # noqa: F401 - the grading switches, as of now
from gatewaykit._version import __version__
from gatewaykit._wiring import install_defaults as _install_defaults
from gatewaykit.errors import (
    APIConnectionError,
    APIStatusError,
    APITimeoutError,
    AuthenticationError,
    BadRequestError,
    BudgetExceededError,
    CassetteMissError,
    ClassPausedError,
    ConfigurationError,
    ConfirmationRequiredError,
    GatewayError,
    InsufficientQuotaError,
    JobFailedError,
    JobTimeoutError,
    ModelNotAllowedError,
    ModelNotFoundError,
    NotFoundError,
    PermissionDeniedError,
    PromptTooLongError,
    RateLimitError,
    RequestTooLargeError,
    ResponseTooLargeError,
    ServerError,
    StreamInterruptedError,
    StructuredOutputError,
    UnexpectedResponseError,
)
from gatewaykit.lazy_names import lazy_names as _lazy_names
from gatewaykit.optional_packages import MissingPackageError

if TYPE_CHECKING:  # pragma: no cover
    from gatewaykit import classroom as classroom
    from gatewaykit import emulator as emulator
    from gatewaykit.classroom import Classroom
    from gatewaykit.client import (
        AsyncChatSession,
        AsyncChatStream,
        AsyncClient,
        BatchResult,
        ChatSession,
        ChatStream,
        CheckpointWarning,
        Client,
        Comparison,
        Display,
        Evaluation,
        Gallery,
        NullDisplay,
        OfflineGatewayWarning,
        RequestOptions,
        RetryPolicy,
        Turn,
        TurnEvent,
        UnknownParameterWarning,
        RegressionError,
        expect,
        image_part,
        judge,
    )
    from gatewaykit.costs import CostRecord, Ledger, ledger
    from gatewaykit.costs.quotes import Quote
    from gatewaykit.telemetry import instrument, uninstrument
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

# Loaded when first named (PEP 562), so that ``import gatewaykit`` builds no pydantic model: the client
# and its types, the conversation layer (``ChatSession``), the ledger (``Ledger``, ``ledger``).
_LAZY = {
    **dict.fromkeys(
        ("AsyncChatSession", "AsyncChatStream", "AsyncClient", "BatchResult", "ChatSession", "ChatStream", "Client",
         "Display", "NullDisplay", "OfflineGatewayWarning", "RequestOptions", "RetryPolicy", "Turn", "TurnEvent",
         "UnknownParameterWarning", "image_part", "CheckpointWarning", "Comparison", "Evaluation", "Gallery", "judge",
         "RegressionError", "expect"),
        "gatewaykit.client",
    ),
    **dict.fromkeys(
        ("ChatCompletion", "ChatCompletionChunk", "ChatMessage", "Cost", "ImageData", "ImageResult", "JobStatus",
         "Message", "Model", "ModelList", "MusicJob", "Tool", "ToolCall", "Usage", "VideoJob"),
        "gatewaykit.types",
    ),
    **dict.fromkeys(("CostRecord", "Ledger", "ledger"), "gatewaykit.costs"),
    "Quote": "gatewaykit.costs.quotes",
    **dict.fromkeys(("instrument", "uninstrument"), "gatewaykit.telemetry"),  # OpenTelemetry, gatewaykit[otel]
    "ChatUI": "gatewaykit.notebook.widgets.chat_box",  # the chat box lives in the notebook layer (ipywidgets)
    "Classroom": "gatewaykit.classroom",  # a class on one paid key: the classroom server
}  # fmt: skip

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
    "ChatUI",
    "CheckpointWarning",
    "ClassPausedError",
    "Classroom",
    "Client",
    "Comparison",
    "ConfigurationError",
    "ConfirmationRequiredError",
    "Cost",
    "CostRecord",
    "Display",
    "Evaluation",
    "Gallery",
    "GatewayError",
    "ImageData",
    "ImageResult",
    "InsufficientQuotaError",
    "JobFailedError",
    "JobStatus",
    "JobTimeoutError",
    "Ledger",
    "Message",
    "MissingPackageError",
    "Model",
    "ModelList",
    "ModelNotAllowedError",
    "ModelNotFoundError",
    "MusicJob",
    "NotFoundError",
    "NullDisplay",
    "OfflineGatewayWarning",
    "PermissionDeniedError",
    "PromptTooLongError",
    "Quote",
    "RateLimitError",
    "RegressionError",
    "RequestOptions",
    "RequestTooLargeError",
    "ResponseTooLargeError",
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
    "chat_ui",
    "classroom",
    "emulator",
    "expect",
    "gallery",
    "image_part",
    "instrument",
    "judge",
    "ledger",
    "load_ipython_extension",
    "playground",
    "uninstrument",
]


_imported, __dir__ = _lazy_names(__name__, _LAZY)


def __getattr__(name: str) -> Any:
    # The offline gateway and the classroom are imported only when asked for (they pull in the server stack).
    if name in ("emulator", "classroom"):
        import importlib

        return importlib.import_module(f"gatewaykit.{name}")
    return _imported(name)


def load_ipython_extension(ipython: Any) -> None:
    """``%load_ext gatewaykit``: registers the ``%%chat`` and ``%%image`` cell magics."""
    from gatewaykit.notebook.magics import load_ipython_extension as _load

    _load(ipython)


def playground(client: Any = None) -> Any:
    """An interactive form over the catalog (model, parameters, Run, result, cost) for a notebook or Voilà.

    ``client=None`` uses ``gk.Client()``. Needs ipywidgets in a kernel; elsewhere
    it returns an object whose text says how to get them.
    """
    from gatewaykit.notebook.widgets.playground import playground as _playground

    return _playground(client)


def chat_ui(client: Any = None, model: Optional[str] = None, **session_options: Any) -> Any:
    """A chat box in a cell (``gk.ChatUI``): transcript, input (Enter sends, Shift+Enter a new line), Send,
    Stop, Undo, Reset, a model picker, image attachments for vision models, each turn's cost and the total.
    ``.session`` is the ``ChatSession`` underneath; ``.send(text)`` does what Send does.
    ``session_options`` go to ``client.chat.session`` (``system=``, ``tools=``, ``temperature=`` ...)."""
    from gatewaykit.notebook.widgets.chat_box import chat_ui as _chat_ui

    return _chat_ui(client, model, **session_options)


def gallery(kind: Optional[str] = None, tag: Optional[str] = None) -> "Gallery":
    """Every image, video and song this session made: thumbnails and players with prompt, model,
    parameters, cost and time (click to enlarge); ``.to_pandas()``; ``.save(folder)`` writes the
    media and a CSV. ``kind="image"|"video"|"music"``, ``tag=`` a ledger tag."""
    from gatewaykit.client.session_tools.gallery import gallery as _gallery

    return _gallery(kind, tag)
