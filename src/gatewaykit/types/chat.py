"""Chat completions: request parts, the answer, and streamed chunks."""

from __future__ import annotations

from typing import Any, List, Literal, Optional, Union

from pydantic import Field, model_validator

from gatewaykit.types.common import GatewayModel, Usage
from gatewaykit.types.lenient import drop_nulls, json_arguments, reasoning_from_alias, text_from_parts
from gatewaykit.types.text_views import completion_repr, completion_text


class ImageURL(GatewayModel):
    url: str
    detail: Optional[Literal["low", "high", "auto"]] = None


class ContentPart(GatewayModel):
    """A multimodal content part: ``text`` or ``image_url``."""

    type: Literal["text", "image_url"]
    text: Optional[str] = None
    image_url: Optional[ImageURL] = None


class FunctionCall(GatewayModel):
    name: Optional[str] = None
    arguments: str = ""

    @model_validator(mode="before")
    @classmethod
    def _object_arguments(cls, value: Any) -> Any:
        return json_arguments(value)


class ToolCall(GatewayModel):
    """A tool call; ``function.arguments`` is a JSON-encoded string. ``index`` on streamed deltas."""

    id: Optional[str] = None
    type: Optional[str] = "function"
    index: Optional[int] = None
    function: FunctionCall = Field(default_factory=FunctionCall)

    @model_validator(mode="before")
    @classmethod
    def _null_function(cls, value: Any) -> Any:
        return drop_nulls(value, ("function",))


class FunctionDefinition(GatewayModel):
    name: str
    description: Optional[str] = None
    parameters: Optional[dict[str, Any]] = None
    strict: Optional[bool] = None


class Tool(GatewayModel):
    type: Literal["function"] = "function"
    function: FunctionDefinition


class ReasoningDetail(GatewayModel):
    id: Optional[str] = None
    index: Optional[int] = None
    type: Optional[str] = None
    summary: Optional[str] = None
    text: Optional[str] = None
    signature: Optional[str] = None
    data: Optional[str] = None


class Annotation(GatewayModel):
    type: str
    url_citation: Optional[dict[str, Any]] = None


class Message(GatewayModel):
    """A request message: ``role`` is system, user, assistant or tool."""

    role: Literal["system", "user", "assistant", "tool"]
    content: Union[str, List[ContentPart], None] = None
    name: Optional[str] = None
    tool_call_id: Optional[str] = None
    tool_calls: Optional[List[ToolCall]] = None
    refusal: Optional[str] = None
    reasoning: Optional[str] = None
    reasoning_details: Optional[List[ReasoningDetail]] = None
    annotations: Optional[List[Annotation]] = None


class ChatMessage(GatewayModel):
    """The assistant message of a choice. The trace is ``reasoning``/``reasoning_details``.

    ``parsed`` is set by ``completions.parse``: the validated value (never sent or dumped).
    """

    role: str = "assistant"
    content: Optional[str] = None
    refusal: Optional[str] = None
    reasoning: Optional[str] = None
    reasoning_details: Optional[List[ReasoningDetail]] = None
    tool_calls: Optional[List[ToolCall]] = None
    annotations: Optional[List[Annotation]] = None
    parsed: Any = Field(default=None, exclude=True)

    @model_validator(mode="before")
    @classmethod
    def _foreign_shapes(cls, value: Any) -> Any:
        return text_from_parts(reasoning_from_alias(drop_nulls(value, ("role",))))


class ChoiceLogprobs(GatewayModel):
    content: Optional[List[dict[str, Any]]] = None
    refusal: Optional[List[dict[str, Any]]] = None


class Choice(GatewayModel):
    index: int = 0
    finish_reason: Optional[str] = None
    message: ChatMessage = Field(default_factory=ChatMessage)
    logprobs: Optional[ChoiceLogprobs] = None

    @model_validator(mode="before")
    @classmethod
    def _null_fields(cls, value: Any) -> Any:
        return drop_nulls(value, ("index", "message"))


class ChatCompletion(GatewayModel):
    """``POST /v1/chat/completions`` answer (``object: "chat.completion"``)."""

    id: str = ""
    object: str = "chat.completion"
    created: int = 0
    model: Optional[str] = None
    choices: List[Choice] = Field(default_factory=list)
    usage: Optional[Usage] = None
    system_fingerprint: Optional[str] = None
    service_tier: Optional[str] = None

    @model_validator(mode="before")
    @classmethod
    def _null_fields(cls, value: Any) -> Any:
        return drop_nulls(value, ("id", "object", "created", "choices"))

    @property
    def content(self) -> Optional[str]:
        """The first choice's message content (None when there is no choice)."""
        return self.choices[0].message.content if self.choices else None

    @property
    def message(self) -> Optional[ChatMessage]:
        return self.choices[0].message if self.choices else None

    def __str__(self) -> str:
        return completion_text(self)

    def __repr__(self) -> str:
        return completion_repr(self)


class Delta(GatewayModel):
    role: Optional[str] = None
    content: Optional[str] = None
    reasoning: Optional[str] = None
    reasoning_details: Optional[List[ReasoningDetail]] = None
    tool_calls: Optional[List[ToolCall]] = None
    refusal: Optional[str] = None
    audio: Optional[dict[str, Any]] = None

    @model_validator(mode="before")
    @classmethod
    def _reasoning_content(cls, value: Any) -> Any:
        return reasoning_from_alias(value)


class ChunkChoice(GatewayModel):
    index: int = 0
    finish_reason: Optional[str] = None
    delta: Delta = Field(default_factory=Delta)
    logprobs: Optional[ChoiceLogprobs] = None

    @model_validator(mode="before")
    @classmethod
    def _null_fields(cls, value: Any) -> Any:
        return drop_nulls(value, ("index", "delta"))


class ChatCompletionChunk(GatewayModel):
    """One streamed event (``object: "chat.completion.chunk"``); ``usage`` only on the last."""

    id: str = ""
    object: str = "chat.completion.chunk"
    created: int = 0
    model: Optional[str] = None
    choices: List[ChunkChoice] = Field(default_factory=list)
    usage: Optional[Usage] = None

    @model_validator(mode="before")
    @classmethod
    def _null_fields(cls, value: Any) -> Any:
        return drop_nulls(value, ("id", "object", "created", "choices"))
