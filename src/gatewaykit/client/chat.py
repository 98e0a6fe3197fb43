"""``client.chat``: ``completions.create`` (buffered or streamed) and ``ask``.

One resource class serves both clients: it builds a flow and hands it to the
client's driver, so ``Client`` returns the value and ``AsyncClient`` an
awaitable of it. Only ``ask`` differs (it consumes a stream) and is overridden
in :class:`AsyncChat`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar, Iterable, Literal, Mapping, Optional, Union, cast, overload

from typing_extensions import Unpack

from gatewaykit.client.base import BaseClient
from gatewaykit.client.flows import Flow
from gatewaykit.client.media_inputs import normalise_messages
from gatewaykit.client.recording import Recording
from gatewaykit.client.api_request import RequestOptions, call_options, merge_body
from gatewaykit.client.parameter_names import KeywordCheck, check_keywords, keyword_check
from gatewaykit.client.validation import check_chat
from gatewaykit.types import ChatCompletion
from gatewaykit.client.transports.response_decoding import read_model

if TYPE_CHECKING:
    from gatewaykit.client.streaming import AsyncChatStream, ChatStream

__all__ = ["AsyncChat", "AsyncCompletions", "Chat", "ChatParams", "Completions"]


class ChatParams(RequestOptions, total=False):
    """The optional fields of ``chat.completions.create`` (and the request options), for type checkers."""

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



def _parse(response: Any, recording: Recording) -> ChatCompletion:
    completion = read_model(ChatCompletion, response, recording=recording)
    recording.ok(id=completion.id, usage=completion.usage)
    return completion


def _dump(items: Any) -> Any:
    if items is None:
        return None
    return [item.model_dump(mode="json", exclude_none=True) if hasattr(item, "model_dump") else item for item in items]


class Completions:
    """``POST /v1/chat/completions``."""

    def __init__(self, client: BaseClient) -> None:
        self._client = client

    @overload
    def create(
        self, *, model: str, messages: Iterable[Any], stream: Literal[False] = False, **params: Unpack[ChatParams]
    ) -> ChatCompletion: ...

    @overload
    def create(
        self, *, model: str, messages: Iterable[Any], stream: Literal[True], **params: Unpack[ChatParams]
    ) -> ChatStream: ...

    @overload
    def create(
        self, *, model: str, messages: Iterable[Any], stream: bool, **params: Unpack[ChatParams]
    ) -> Union[ChatCompletion, ChatStream]: ...

    def create(
        self,
        *,
        model: str,
        messages: Iterable[Any],
        temperature: Optional[float] = None,
        top_p: Optional[float] = None,
        max_tokens: Optional[int] = None,
        max_completion_tokens: Optional[int] = None,
        reasoning_effort: Optional[str] = None,
        stop: Union[str, list[str], None] = None,
        stream: bool = False,
        stream_options: Optional[Mapping[str, Any]] = None,
        seed: Optional[int] = None,
        n: Optional[int] = None,
        frequency_penalty: Optional[float] = None,
        presence_penalty: Optional[float] = None,
        logit_bias: Optional[Mapping[str, float]] = None,
        logprobs: Optional[bool] = None,
        top_logprobs: Optional[int] = None,
        response_format: Optional[Mapping[str, Any]] = None,
        tools: Optional[Iterable[Any]] = None,
        tool_choice: Union[str, Mapping[str, Any], None] = None,
        parallel_tool_calls: Optional[bool] = None,
        user: Optional[str] = None,
        include_svc_system_prompt: Optional[bool] = None,
        fallbacks: Optional[list[str]] = None,
        metadata: Optional[Mapping[str, Any]] = None,
        modalities: Optional[list[str]] = None,
        prompt_cache_key: Optional[str] = None,
        prompt_cache_retention: Optional[str] = None,
        reasoning: Optional[Mapping[str, Any]] = None,
        safety_identifier: Optional[str] = None,
        service_tier: Optional[str] = None,
        store: Optional[bool] = None,
        prediction: Optional[Mapping[str, Any]] = None,
        web_search_options: Optional[Mapping[str, Any]] = None,
        truncation: Optional[str] = None,
        verbosity: Optional[str] = None,
        **options: Any,
    ) -> Any:
        """A chat completion (``stream=True``: a ``ChatStream`` of chunks, asking for ``include_usage``).

        Messages are dicts or :class:`gatewaykit.Message`; content lists may hold
        image inputs (paths, bytes, PIL images), sent as ``data:`` URIs.
        ``options``: :class:`~gatewaykit.client.api_request.RequestOptions`
        (``extra_headers``, ``extra_body`` merged last, ``timeout``, ``validate``);
        any other keyword is sent as-is.
        """
        fields = {
            "model": model,
            "messages": normalise_messages(messages),
            "temperature": temperature,
            "top_p": top_p,
            "max_tokens": max_tokens,
            "max_completion_tokens": max_completion_tokens,
            "reasoning_effort": reasoning_effort,
            "stop": stop,
            "seed": seed,
            "n": n,
            "frequency_penalty": frequency_penalty,
            "presence_penalty": presence_penalty,
            "logit_bias": logit_bias,
            "logprobs": logprobs,
            "top_logprobs": top_logprobs,
            "response_format": response_format,
            "tools": _dump(tools),
            "tool_choice": tool_choice,
            "parallel_tool_calls": parallel_tool_calls,
            "user": user,
            "include_svc_system_prompt": include_svc_system_prompt,
            "fallbacks": fallbacks,
            "metadata": metadata,
            "modalities": modalities,
            "prompt_cache_key": prompt_cache_key,
            "prompt_cache_retention": prompt_cache_retention,
            "reasoning": reasoning,
            "safety_identifier": safety_identifier,
            "service_tier": service_tier,
            "store": store,
            "prediction": prediction,
            "web_search_options": web_search_options,
            "truncation": truncation,
            "verbosity": verbosity,
        }
        call = call_options(options)
        body = merge_body(fields, call.passthrough, call.extra_body)
        if stream:
            body["stream"] = True
            options = dict(body.get("stream_options") or stream_options or {})
            options.setdefault("include_usage", True)
            body["stream_options"] = options
        checked = self._client._checks_on(call.validate)
        keywords = keyword_check("chat.completions.create", (*fields, "stream", "stream_options"), call.passthrough)
        flow = self._flow(body, stream, call.extra_headers, call.timeout, checked, keywords)
        return self._client._run(flow)

    def parse(
        self, *, model: str, messages: Iterable[Any], response_format: Any, retries: int = 0, **fields: Any
    ) -> Any:
        """A completion whose ``choices[0].message.parsed`` is ``response_format`` (a pydantic model) validated.

        Sent as a strict ``json_schema`` where the model supports it; a reply that does
        not validate is re-asked ``retries`` times, then raises ``StructuredOutputError``.
        """
        from gatewaykit.client.structured_calls import parse_completion

        return parse_completion(self, model, messages, response_format, retries, fields)

    def _flow(
        self,
        body: dict[str, Any],
        stream: bool,
        extra_headers: Any,
        timeout: Any,
        checked: bool,
        keywords: Optional[KeywordCheck] = None,
    ) -> Flow[Any]:
        client = self._client
        if body.get("model") is None:
            body["model"] = yield from _default_chat_model(client)
        if checked:
            yield from check_keywords(client, body["model"], keywords)
            check_chat(body)
        recording = client._recording("chat.stream" if stream else "chat", body["model"], body)
        request = client._json_request(
            "POST", "/v1/chat/completions", body, extra_headers=extra_headers, timeout=timeout, stream=stream
        )
        response = yield from client._billable_send(request, recording)
        if stream:
            return client._open_chat_stream(response, recording)
        return _parse(response, recording)


def _default_chat_model(client: BaseClient) -> Flow[str]:
    """The first chat model of the catalog (for ``ask`` without ``model=``)."""
    yield from client._catalog_entry(None)
    catalog = client._catalog
    if catalog is not None:
        for entry in catalog.data:
            if entry.kind == "chat":
                return entry.id
    raise TypeError("ask() needs model=: the catalog lists no chat model to default to")


def _ask_messages(prompt: Any, system: Optional[str]) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = []
    if system:
        messages.append({"role": "system", "content": system})
    messages.append({"role": "user", "content": prompt})
    return messages


class AsyncCompletions(Completions):
    """``aclient.chat.completions``: ``await create(...)``; with ``stream=True`` an :class:`AsyncChatStream`."""

    if TYPE_CHECKING:

        @overload  # type: ignore[override]
        async def create(
            self, *, model: str, messages: Iterable[Any], stream: Literal[False] = False, **params: Unpack[ChatParams]
        ) -> ChatCompletion: ...

        @overload
        async def create(
            self, *, model: str, messages: Iterable[Any], stream: Literal[True], **params: Unpack[ChatParams]
        ) -> AsyncChatStream: ...

        @overload
        async def create(
            self, *, model: str, messages: Iterable[Any], stream: bool, **params: Unpack[ChatParams]
        ) -> Union[ChatCompletion, AsyncChatStream]: ...

        async def create(self, **params: Any) -> Any: ...


class Chat:
    """``client.chat``: ``completions`` and the one-line ``ask``."""

    _completions_type: type[Completions] = Completions
    session_type: ClassVar[Optional[type]] = None
    """What ``session()`` builds: ``ChatSession`` (``AsyncChatSession`` on ``AsyncChat``), plugged in by the
    composition root (``gatewaykit._wiring``): the conversation layer sits above this core and this
    module never imports it."""

    def __init__(self, client: BaseClient) -> None:
        self._client = client
        self.completions = self._completions_type(client)

    def ask(
        self,
        prompt: Any,
        *,
        model: Optional[str] = None,
        system: Optional[str] = None,
        stream: bool = True,
        **fields: Any,
    ) -> ChatCompletion:
        """Ask one question; the answer as a ``ChatCompletion``.

        The client's display shows the stream as it arrives (live Markdown in a
        notebook kernel); with no display the stream is read to its end. ``prompt`` may be a list of content parts (text and images).
        Without ``model=``, the catalog's first chat model answers.
        """
        messages = _ask_messages(prompt, system)
        result: Any = self.completions.create(model=model, messages=messages, stream=stream, **fields)  # type: ignore[arg-type]
        if not stream:
            return cast(ChatCompletion, result)
        return self._client.display.chat_stream(result)

    def session(
        self,
        *,
        model: Optional[str] = None,
        system: Optional[str] = None,
        tools: Iterable[Any] = (),
        max_steps: int = 8,
        approve: Any = None,
        **defaults: Any,
    ) -> Any:
        """A conversation (``ChatSession``): ``reply = chat("...")`` sends the history plus the prompt,
        runs ``tools`` (Python functions) the model calls, up to ``max_steps`` requests a turn.

        ``approve``: a callable ``(name, arguments) -> bool`` asked before each tool call, or
        True to ask on the console. ``on_event=`` receives each step (``TurnEvent``).
        Other keywords are sent with every request (``temperature=``, ...).
        """
        kind = self.session_type
        if kind is None:  # pragma: no cover - the composition root always plugs it in
            raise RuntimeError("no conversation layer is installed (gatewaykit._wiring.install_defaults plugs it in)")
        return kind(
            self._client, model=model, system=system, tools=tools, max_steps=max_steps, approve=approve, **defaults
        )


class AsyncChat(Chat):
    """``aclient.chat``: the same, awaitable."""

    _completions_type = AsyncCompletions
    completions: AsyncCompletions

    async def ask(  # type: ignore[override]
        self,
        prompt: Any,
        *,
        model: Optional[str] = None,
        system: Optional[str] = None,
        stream: bool = True,
        **fields: Any,
    ) -> ChatCompletion:
        """Ask one question; ``await`` the answer (rendered live in a notebook kernel)."""
        messages = _ask_messages(prompt, system)
        result: Any = await self.completions.create(model=model, messages=messages, stream=stream, **fields)  # type: ignore[call-overload,arg-type]
        if not stream:
            return cast(ChatCompletion, result)
        return await self._client.display.async_chat_stream(result)
