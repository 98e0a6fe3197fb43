"""The client core: typed sync and async clients for every endpoint of the gateway.

Layers, top to bottom, each importing only those below (an import-linter contract in pyproject.toml):
``conversation/``, ``clients`` / ``terminal_display``, ``session_tools/``, ``resources/``, ``core/``,
``transports/`` (the only modules that import httpx), ``api_request``. It never imports the notebook
layer or the offline gateway; those plug in through seams (``core/display``, ``core/config``,
``resources/session_seam``). Public names are imported on first use (``lazy_names``).
"""

from typing import TYPE_CHECKING

from gatewaykit.lazy_names import lazy_names

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

# Each public name and the module it comes from, imported when first asked for: importing this package
# (which every ``gatewaykit.client.*`` import does first) builds no model and no resource.
_HERE = "gatewaykit.client."
_HOMES = {
    "RequestOptions": _HERE + "api_request",
    "BatchResult": _HERE + "session_tools.batch",
    "CheckpointWarning": _HERE + "session_tools.checkpoint_values",
    "Comparison": _HERE + "session_tools.comparison",
    "ComparisonEntry": _HERE + "session_tools.comparison",
    "Evaluation": _HERE + "session_tools.evaluation",
    "EvaluationCell": _HERE + "session_tools.evaluation",
    "RegressionError": _HERE + "session_tools.evaluation_stats",
    "Expectation": _HERE + "session_tools.expectations",
    "expect": _HERE + "session_tools.expectations",
    "Gallery": _HERE + "session_tools.gallery",
    "Judge": _HERE + "session_tools.scoring",
    "judge": _HERE + "session_tools.scoring",
    "AsyncClient": _HERE + "clients",
    "Client": _HERE + "clients",
    "OfflineGatewayWarning": _HERE + "core.config",
    "AsyncChatSession": _HERE + "conversation",
    "ChatSession": _HERE + "conversation",
    "Turn": _HERE + "conversation",
    "TurnEvent": _HERE + "conversation",
    "Display": _HERE + "core.display",
    "NullDisplay": _HERE + "core.display",
    "RetryPolicy": _HERE + "core.flows",
    "image_part": _HERE + "resources.media_inputs",
    "UnknownParameterWarning": _HERE + "core.parameter_names",
    "AsyncChatStream": _HERE + "core.streaming",
    "ChatStream": _HERE + "core.streaming",
}

__all__ = sorted(_HOMES)
__getattr__, __dir__ = lazy_names(__name__, _HOMES)
