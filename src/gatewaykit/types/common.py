"""Types shared by every endpoint: the base model, usage and cost, the error envelope."""

from __future__ import annotations

from typing import Any, Optional

from pydantic import BaseModel, ConfigDict, field_validator, model_validator

from gatewaykit.presentation import rich_bundle
from gatewaykit.types.lenient import cost_from_number, drop_nulls


class GatewayModel(BaseModel):
    """Base of every gateway type: unknown fields are kept, never dropped."""

    model_config = ConfigDict(extra="allow", populate_by_name=True, protected_namespaces=(), defer_build=True)

    def to_dict(self) -> dict:
        """The JSON-ready dict, without fields that were never set."""
        return self.model_dump(mode="json", exclude_none=True)

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        """Rich display in Jupyter from the registered presentation layer; ``text/plain`` without one."""
        return rich_bundle(self)


class Cost(GatewayModel):
    """``usage.cost``: ``total_cost`` is the exact USD deducted for the request (None: not reported).

    Unknown breakdown fields are kept (``model_extra``).
    """

    total_cost: Optional[float] = None
    input_tokens_cost: Optional[float] = None
    output_tokens_cost: Optional[float] = None
    reasoning_tokens_cost: Optional[float] = None
    citation_tokens_cost: Optional[float] = None
    search_queries_cost: Optional[float] = None
    request_cost: Optional[float] = None


class PromptTokensDetails(GatewayModel):
    cached_tokens: Optional[int] = None
    cached_read_tokens: Optional[int] = None
    cached_write_tokens: Optional[int] = None
    image_tokens: Optional[int] = None
    text_tokens: Optional[int] = None
    audio_tokens: Optional[int] = None


class CompletionTokensDetails(GatewayModel):
    reasoning_tokens: Optional[int] = None
    image_tokens: Optional[int] = None
    text_tokens: Optional[int] = None
    accepted_prediction_tokens: Optional[int] = None
    rejected_prediction_tokens: Optional[int] = None
    audio_tokens: Optional[int] = None
    citation_tokens: Optional[int] = None
    num_search_queries: Optional[int] = None


class Usage(GatewayModel):
    """Token counts and the cost of one request."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    total_tokens: int = 0
    prompt_tokens_details: Optional[PromptTokensDetails] = None
    completion_tokens_details: Optional[CompletionTokensDetails] = None
    cost: Optional[Cost] = None

    @model_validator(mode="before")
    @classmethod
    def _null_counts(cls, value: Any) -> Any:
        return drop_nulls(value, ("prompt_tokens", "completion_tokens", "total_tokens"))

    @field_validator("cost", mode="before")
    @classmethod
    def _cost_as_number(cls, value: Any) -> Any:
        return cost_from_number(value)

    @property
    def total_cost(self) -> Optional[float]:
        """``cost.total_cost``, or None when the answer carried no cost."""
        return self.cost.total_cost if self.cost is not None else None

    def __repr__(self) -> str:
        from gatewaykit.types.text_views import usage_repr  # text_views is leaf; imported here to keep common first

        return usage_repr(self)

    __str__ = __repr__


class ErrorBody(GatewayModel):
    message: str
    type: str
    code: Optional[str] = None
    param: Optional[str] = None


class ErrorEnvelope(GatewayModel):
    """``{"error": {"message", "type", "code", "param"}}``."""

    error: ErrorBody
