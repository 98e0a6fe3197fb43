"""``client.chat``: ``completions.create`` (buffered or streamed) and ``ask``.

One resource class serves both clients: it builds a flow and hands it to the
client's driver, so ``Client`` returns the value and ``AsyncClient`` an
awaitable of it. Only ``ask`` differs (it consumes a stream) and is overridden
in :class:`AsyncChat`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar, Iterable, Literal, Optional, Union, cast, overload

from typing_extensions import Unpack

from gatewaykit.client.core.base import BaseClient
from gatewaykit.client.resources.chat_fields import CHAT_FIELDS, ChatParams, with_chat_fields
from gatewaykit.client.core.flows import Flow
from gatewaykit.client.resources.media_inputs import normalise_messages
from gatewaykit.client.core.recording import Recording
from gatewaykit.client.core.request_pipeline import Call, Endpoint, build_call, run_call
from gatewaykit.client.resources.session_seam import session_factory
from gatewaykit.client.core.validation import check_chat
from gatewaykit.types import ChatCompletion, Model
from gatewaykit.client.transports.response_decoding import read_model
from gatewaykit.error_text import public_call

if TYPE_CHECKING:
    from gatewaykit.client.core.streaming import AsyncChatStream, ChatStream

__all__ = ["AsyncChat", "AsyncCompletions", "Chat", "ChatParams", "Completions"]




def _parse(response: Any, recording: Recording) -> ChatCompletion:
    completion = read_model(ChatCompletion, response, recording=recording)
    recording.ok(id=completion.id, usage=completion.usage, result=completion)
    return completion


def _dump(items: Any) -> Any:
    if items is None:
        return None
    return [item.model_dump(mode="json", exclude_none=True) if hasattr(item, "model_dump") else item for item in items]


class Completions:
    """``POST /v1/chat/completions``."""

    _parse_with: ClassVar[str] = "parse_completion"  # the function of structured_calls that runs parse()

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

    @public_call
    @with_chat_fields
    def create(self, *, model: str, messages: Iterable[Any], stream: bool = False, **params: Any) -> Any:
        """A chat completion (``stream=True``: a ``ChatStream`` of chunks, asking for ``include_usage``).

        Messages are dicts or :class:`gatewaykit.Message`; content lists may hold
        image inputs (paths, bytes, PIL images), sent as ``data:`` URIs. The
        fields: :class:`~gatewaykit.client.resources.chat_fields.ChatFields`.
        Other ``params``: :class:`~gatewaykit.client.api_request.RequestOptions`
        (``extra_headers``, ``extra_body`` merged last, ``timeout``, ``validate``);
        any other keyword is sent as-is.
        """
        fields: dict[str, Any] = {"model": model, "messages": normalise_messages(messages)}
        pop = params.pop
        for name in _BODY_FIELDS:  # a loop, not a generator: this runs for every call
            fields[name] = pop(name, None)
        fields["tools"] = _dump(fields["tools"])
        stream_options = params.pop("stream_options", None)
        kind = "chat.stream" if stream else "chat"
        call = build_call(
            self._client, CHAT, fields, params, also_typed=("stream", "stream_options"), kind=kind, stream=stream
        )
        if stream:
            call.body["stream"] = True
            options = dict(call.body.get("stream_options") or stream_options or {})
            options.setdefault("include_usage", True)
            call.body["stream_options"] = options
        return self._client._run(self._flow(call))

    @public_call
    def parse(
        self, *, model: str, messages: Iterable[Any], response_format: Any, retries: int = 0, **fields: Any
    ) -> Any:
        """A completion whose ``choices[0].message.parsed`` is ``response_format`` (a pydantic model) validated.

        Sent as a strict ``json_schema`` where the model supports it; a reply that does
        not validate is re-asked ``retries`` times, then raises ``StructuredOutputError``.
        """
        from gatewaykit.client.resources import structured_calls

        parse = getattr(structured_calls, self._parse_with)
        return parse(self, model, messages, response_format, retries, fields)

    def _flow(self, call: Call) -> Flow[Any]:
        response = yield from run_call(self._client, call)
        recording = call.recording
        assert recording is not None  # the pipeline priced the call
        if call.stream:
            return self._client._open_chat_stream(response, recording)
        return _parse(response, recording)


def _check_chat(entry: Optional[Model], body: dict[str, Any], call: Call) -> None:
    check_chat(body)


CHAT = Endpoint("chat.completions.create", "/v1/chat/completions", "chat", _check_chat, uses_catalog=False,
                default_model_kind="chat")  # fmt: skip
_BODY_FIELDS = tuple(name for name in CHAT_FIELDS if name != "stream_options")  # sent only with stream=True


def _ask_messages(prompt: Any, system: Optional[str]) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = []
    if system:
        messages.append({"role": "system", "content": system})
    messages.append({"role": "user", "content": prompt})
    return messages


class AsyncCompletions(Completions):
    """``aclient.chat.completions``: ``await create(...)``; with ``stream=True`` an :class:`AsyncChatStream`."""

    _parse_with = "parse_completion_async"

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
    session_type: ClassVar[str] = "ChatSession"
    """What ``session()`` builds (``AsyncChatSession`` on ``AsyncChat``): the factory the composition root
    registered under this name (:mod:`gatewaykit.client.resources.session_seam`); the conversation layer sits
    above this core and this module never imports it."""

    def __init__(self, client: BaseClient) -> None:
        self._client = client
        self.completions = self._completions_type(client)

    @public_call
    @with_chat_fields
    def ask(
        self,
        prompt: Any,
        *,
        model: Optional[str] = None,
        system: Optional[str] = None,
        stream: bool = True,
        **fields: Unpack[ChatParams],
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

    @with_chat_fields
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
        build = session_factory(self.session_type)
        return build(
            self._client, model=model, system=system, tools=tools, max_steps=max_steps, approve=approve, **defaults
        )


class AsyncChat(Chat):
    """``aclient.chat``: the same, awaitable."""

    _completions_type = AsyncCompletions
    session_type = "AsyncChatSession"
    completions: AsyncCompletions

    @public_call
    @with_chat_fields
    async def ask(  # type: ignore[override]
        self,
        prompt: Any,
        *,
        model: Optional[str] = None,
        system: Optional[str] = None,
        stream: bool = True,
        **fields: Unpack[ChatParams],
    ) -> ChatCompletion:
        """Ask one question; ``await`` the answer (rendered live in a notebook kernel)."""
        messages = _ask_messages(prompt, system)
        result: Any = await self.completions.create(model=model, messages=messages, stream=stream, **fields)  # type: ignore[call-overload,arg-type]
        if not stream:
            return cast(ChatCompletion, result)
        return await self._client.display.async_chat_stream(result)
