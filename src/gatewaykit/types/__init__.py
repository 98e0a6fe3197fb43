"""Pydantic models for every resource of the gateway API (spec v1).

Shared by the client core, which parses answers into them, and the offline
gateway, which builds its answers from them. Every model keeps unknown fields
(``extra="allow"``): the gateway adds fields over time and nothing is lost.
"""

from gatewaykit.types.catalog import EditSupport, Model, ModelList, ParameterMap, ParameterSpec
from gatewaykit.types.chat import (
    Annotation,
    ChatCompletion,
    ChatCompletionChunk,
    ChatMessage,
    Choice,
    ChoiceLogprobs,
    ChunkChoice,
    ContentPart,
    Delta,
    FunctionCall,
    FunctionDefinition,
    ImageURL,
    Message,
    ReasoningDetail,
    Tool,
    ToolCall,
)
from gatewaykit.types.common import (
    CompletionTokensDetails,
    Cost,
    ErrorBody,
    ErrorEnvelope,
    GatewayModel,
    PromptTokensDetails,
    Usage,
)
from gatewaykit.types.images import ImageData, ImageResult
from gatewaykit.types.jobs import (
    FINISHED_STATES,
    AsyncMusicJob,
    AsyncVideoJob,
    Job,
    JobError,
    JobStatus,
    MediaLink,
    MusicJob,
    VideoJob,
    is_finished,
)

__all__ = [
    "FINISHED_STATES",
    "AsyncMusicJob",
    "AsyncVideoJob",
    "Annotation",
    "ChatCompletion",
    "ChatCompletionChunk",
    "ChatMessage",
    "Choice",
    "ChoiceLogprobs",
    "ChunkChoice",
    "CompletionTokensDetails",
    "ContentPart",
    "Cost",
    "Delta",
    "EditSupport",
    "ErrorBody",
    "ErrorEnvelope",
    "FunctionCall",
    "FunctionDefinition",
    "GatewayModel",
    "ImageData",
    "ImageResult",
    "ImageURL",
    "Job",
    "JobError",
    "JobStatus",
    "MediaLink",
    "Message",
    "Model",
    "ModelList",
    "MusicJob",
    "ParameterMap",
    "ParameterSpec",
    "PromptTokensDetails",
    "ReasoningDetail",
    "Tool",
    "ToolCall",
    "Usage",
    "VideoJob",
    "is_finished",
]
