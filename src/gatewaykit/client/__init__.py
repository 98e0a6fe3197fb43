"""The client core: typed sync and async clients for every endpoint of the gateway.

Layout (like httpx): ``base`` does no I/O (configuration, request building,
response -> model, status -> exception); ``flows`` holds multi-step behaviour
as generators (retries, job polling) with a sync and an async driver;
``_transport`` is the only module that imports httpx; ``sse``, ``assembly``
and ``streaming`` decode and assemble streams; ``validation`` checks requests
against the catalog before sending; ``recording`` hands costs to the ledger;
``job_flows`` creates, polls (one :class:`~gatewaykit.client.job_flows.PollSchedule`),
downloads and cancels jobs; ``api_request`` is the plain-data request and the
shared :class:`RequestOptions`.

Seams (objects handed in, never module names looked up): ``display`` (the
:class:`Display` Protocol a client shows its work through) and the offline
gateway provider in ``config``. This package never imports the notebook layer
or the offline gateway.
"""

from gatewaykit.client.api_request import RequestOptions
from gatewaykit.client.batch import BatchResult
from gatewaykit.client.clients import AsyncClient, Client
from gatewaykit.client.config import OfflineGatewayWarning
from gatewaykit.client.parameter_names import UnknownParameterWarning
from gatewaykit.client.conversation import AsyncChatSession, ChatSession
from gatewaykit.client.display import Display, NullDisplay
from gatewaykit.client.flows import RetryPolicy
from gatewaykit.client.media_inputs import image_part
from gatewaykit.client.streaming import AsyncChatStream, ChatStream
from gatewaykit.client.tool_loop import Turn, TurnEvent

__all__ = [
    "AsyncChatSession",
    "AsyncChatStream",
    "AsyncClient",
    "BatchResult",
    "ChatSession",
    "ChatStream",
    "Client",
    "Display",
    "NullDisplay",
    "OfflineGatewayWarning",
    "RequestOptions",
    "RetryPolicy",
    "Turn",
    "TurnEvent",
    "UnknownParameterWarning",
    "image_part",
]
