"""The optional fields of a chat request, written once.

:class:`ChatFields` is the one list: ``chat.completions.create`` sends them
(:data:`CHAT_FIELDS`, in this order), and its signature, ``chat.ask``'s and
``chat.session``'s are built from it (:func:`with_chat_fields`: what
``help()``, a notebook's completion and ``inspect`` show; type checkers read
``**params: Unpack[ChatParams]``). Adding a field is one line here.
"""

from __future__ import annotations

import inspect
from typing import Any, Callable, ForwardRef, Iterable, Mapping, Optional, TypedDict, TypeVar, Union

from gatewaykit.client.api_request import RequestOptions

__all__ = ["CHAT_FIELDS", "ChatFields", "ChatParams", "with_chat_fields"]

F = TypeVar("F", bound=Callable[..., Any])


class ChatFields(TypedDict, total=False):
    """The optional body fields of ``POST /v1/chat/completions`` (``model``, ``messages`` and ``stream`` aside)."""

    temperature: Optional[float]
    top_p: Optional[float]
    max_tokens: Optional[int]
    max_completion_tokens: Optional[int]
    reasoning_effort: Optional[str]
    stop: Union[str, list[str], None]
    stream_options: Optional[Mapping[str, Any]]
    seed: Optional[int]
    n: Optional[int]
    frequency_penalty: Optional[float]
    presence_penalty: Optional[float]
    logit_bias: Optional[Mapping[str, float]]
    logprobs: Optional[bool]
    top_logprobs: Optional[int]
    response_format: Optional[Mapping[str, Any]]
    tools: Optional[Iterable[Any]]
    tool_choice: Union[str, Mapping[str, Any], None]
    parallel_tool_calls: Optional[bool]
    user: Optional[str]
    include_svc_system_prompt: Optional[bool]
    fallbacks: Optional[list[str]]
    metadata: Optional[Mapping[str, Any]]
    modalities: Optional[list[str]]
    prompt_cache_key: Optional[str]
    prompt_cache_retention: Optional[str]
    reasoning: Optional[Mapping[str, Any]]
    safety_identifier: Optional[str]
    service_tier: Optional[str]
    store: Optional[bool]
    prediction: Optional[Mapping[str, Any]]
    web_search_options: Optional[Mapping[str, Any]]
    truncation: Optional[str]
    verbosity: Optional[str]


class ChatParams(ChatFields, RequestOptions, total=False):
    """The optional fields of ``chat.completions.create`` and the request options, for type checkers."""


CHAT_FIELDS: tuple[str, ...] = tuple(ChatFields.__annotations__)


def _annotation(value: Any) -> Any:
    return value.__forward_arg__ if isinstance(value, ForwardRef) else value


_FIELD_PARAMETERS = [
    inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=None, annotation=_annotation(annotation))
    for name, annotation in ChatFields.__annotations__.items()
]


def with_chat_fields(function: F) -> F:
    """``function``, its ``**`` parameter shown as the chat fields (keyword-only, default None) then ``**`` itself."""
    own = inspect.signature(function)
    taken = set(own.parameters)
    before = [each for each in own.parameters.values() if each.kind is not inspect.Parameter.VAR_KEYWORD]
    rest = [each for each in own.parameters.values() if each.kind is inspect.Parameter.VAR_KEYWORD]
    fields = [each for each in _FIELD_PARAMETERS if each.name not in taken]
    function.__signature__ = own.replace(parameters=[*before, *fields, *rest])  # type: ignore[attr-defined]
    return function
