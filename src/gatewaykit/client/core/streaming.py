"""Streamed chat completions: :class:`ChatStream` and :class:`AsyncChatStream`.

Both iterate chunks as they arrive and assemble them; ``final()`` returns the whole
:class:`ChatCompletion`. The connection is closed when the stream ends, on ``close()``, on leaving a
``with`` block or a ``for`` loop; a stream that breaks off raises :class:`StreamInterruptedError` with
the partial completion, recorded with an unknown charge. Details: ``docs/internals.md``.
"""

from __future__ import annotations

import json
from typing import Any, AsyncIterator, Callable, Generator, Iterator, Optional, Union

from gatewaykit.client.core.assembly import ChatAssembler
from gatewaykit.client.core.sse import SSEDecoder, ServerSentEvent
from gatewaykit.client.transports.response_decoding import unexpected_response, why_unusable
from gatewaykit.error_text import leaving_gatewaykit, public_call
from gatewaykit.errors import (
    APIConnectionError,
    GatewayError,
    StreamInterruptedError,
    UnexpectedResponseError,
    error_from_response,
    status_named_in,
)
from gatewaykit.types import ChatCompletion, ChatCompletionChunk
from gatewaykit.types.replayed import mark_replayed
from gatewaykit.types.spec_chunks import SpecChunkReader

__all__ = ["AsyncChatStream", "ChatStream"]

_parse_chunk = ChatCompletionChunk.model_validate
_chunk_from_json = ChatCompletionChunk.model_validate_json
_STREAM_CALL = "client.chat.completions.create(..., stream=True)"
_BROKE_OFF = "The stream broke off before its end ([DONE] never arrived)"
_CLOSED = "The stream was closed before its end"
_SKIP = object()  # an event that is no chunk (a keepalive, a ping)


def error_in_stream(data: str) -> GatewayError:
    """An error sent inside the stream (``{"error": {...}}``), as the matching exception."""
    try:
        body = json.loads(data)
    except ValueError:
        body = data
    return error_from_response(status_named_in(body) or 500, body, call=_STREAM_CALL)


def _read_chunk(data: str) -> tuple[Optional[ChatCompletionChunk], bool]:
    """The chunk in an event's ``data``, read with the rules for foreign servers (``types/lenient.py``)
    (None for an error object: ``{"error": ...}`` without ``choices``), and whether the event names an
    error (OpenRouter's last chunk: ``error`` beside ``finish_reason: "error"``).

    Raises ``ValueError`` (a ``ValidationError``) when ``data`` is not JSON or not a chunk.
    """
    if '"error"' not in data and "\\u" not in data:  # cannot name an "error" key: pydantic reads the JSON itself
        return _chunk_from_json(data), False
    payload = json.loads(data)
    names_error = isinstance(payload, dict) and bool(payload.get("error"))
    if isinstance(payload, dict) and "error" in payload and "choices" not in payload:
        return None, True
    return _parse_chunk(payload), names_error


class _StreamBase:
    def __init__(self, recording: Any = None) -> None:
        self._assembler = ChatAssembler()
        self._decoder = SSEDecoder()
        self._spec_chunks = SpecChunkReader()  # the spec's own shape, fast; any other goes to _read_chunk
        self._recording = recording
        self._state = "open"  # open -> done | closed | failed
        self._error: Optional[BaseException] = None
        self._final: Optional[ChatCompletion] = None

    @property
    def completion(self) -> ChatCompletion:
        """The completion assembled from the chunks received so far."""
        return self._final if self._final is not None else self._assembler.result()

    @property
    def assembly(self) -> ChatAssembler:
        """The stream's own assembly of the chunks so far (live views read it; never feed it)."""
        return self._assembler

    @property
    def chunks_received(self) -> int:
        return self._assembler.count

    def _done(self) -> None:
        self._state = "done"
        self._final = self._assembler.result()
        if self._recording is not None:
            if getattr(self._recording, "replayed", False) is True:  # the cassette's: marked as its JSON answers are
                mark_replayed(self._final)
            self._recording.ok(id=self._assembler.id, usage=self._assembler.usage, result=self._final)

    def _failed(self, exc: BaseException) -> BaseException:
        """Record the failure; return the exception to raise (connection drops become interruptions)."""
        if isinstance(exc, APIConnectionError) and not isinstance(exc, StreamInterruptedError):
            exc = StreamInterruptedError(f"{_BROKE_OFF}: {exc.message}", partial=self._assembler.result())
        self._state = "failed"
        self._error = exc
        if self._recording is not None:
            if isinstance(exc, (StreamInterruptedError, UnexpectedResponseError)) or (
                isinstance(exc, GatewayError) and getattr(exc, "partial", None) is not None  # text had arrived
            ):
                # An unusable chunk after a 200: the answer may have been charged; what arrived is kept.
                self._recording.interrupted(exc.message, id=self._assembler.id, usage=self._assembler.usage)
            elif isinstance(exc, GatewayError):
                self._recording.error(exc)
            else:
                self._recording.interrupted(f"{type(exc).__name__}: {exc}", id=self._assembler.id)
        return exc

    def _abandoned(self) -> None:
        if self._state == "open":
            self._state = "closed"
            if self._recording is not None:
                self._recording.interrupted(
                    _CLOSED + " (closed by the caller)", id=self._assembler.id, usage=self._assembler.usage,
                    received=self._received_text(),  # a Stop: the gateway charged the answer, so it is estimated
                )

    def _received_text(self) -> str:
        """What arrived before the stream ended (answer, reasoning, tool arguments): its cost is estimated from it."""
        try:
            message = self._assembler.result().choices[0].message
        except (IndexError, AttributeError, ValueError):
            return ""
        parts = [message.content or "", getattr(message, "reasoning_content", None) or ""]
        parts += [call.function.arguments or "" for call in (message.tool_calls or [])]
        return "".join(str(part) for part in parts)

    def _result_or_raise(self) -> ChatCompletion:
        if self._state == "done" and self._final is not None:
            return self._final
        if self._state == "failed" and self._error is not None:
            raise self._error
        raise StreamInterruptedError(_CLOSED, partial=self._assembler.result())

    def _tolerant_chunk(self, event: Union[str, ServerSentEvent]) -> Any:
        """The chunk of an event the fast path did not take (assembled); None for ``[DONE]``; ``_SKIP`` for none.
        ``event`` is the data of an unnamed event, or the event.

        Tolerant of what real servers interleave: comments and blank ``data``
        (keepalives), events of other names whose data is not a chunk (skipped),
        chunks with no ``choices`` (Azure's first one, a usage-only last one).
        """
        data, name = (event, None) if event.__class__ is str else (event.data, event.event)  # type: ignore[union-attr]
        stripped = data.strip()
        if stripped == "[DONE]":
            return None
        if not stripped:
            return _SKIP  # an empty keepalive event
        if name == "error":
            raise self._error_event(data)
        try:
            chunk, names_error = _read_chunk(data)
        except ValueError as exc:  # not JSON, or not a chunk (pydantic's ValidationError is a ValueError)
            if name not in (None, "message"):
                return _SKIP  # another kind of event ("ping", ...): not a chunk, not ours to read
            raise self._unusable(data, why_unusable(exc)) from None
        if chunk is None:
            raise self._error_event(data)
        self._assembler.add(chunk)
        if names_error:  # the provider failed mid-answer: its error, not a short answer that reads as complete
            raise self._error_event(data)
        return chunk

    def _error_event(self, data: str) -> GatewayError:
        """The error an event names; after some text, that text is its ``partial`` (and the row is interrupted)."""
        error = error_in_stream(data)
        if self._assembler.count:
            error.partial = self._assembler.result()  # type: ignore[attr-defined]
        return error

    def _unusable(self, data: str, reason: str) -> UnexpectedResponseError:
        return unexpected_response(
            data, f"{reason} (after {self._assembler.count} readable chunks)", call=_STREAM_CALL,
            partial=self._assembler.result(), what="event in the stream",
        )


class ChatStream(_StreamBase):
    """Iterate for :class:`ChatCompletionChunk`s; ``final()`` for the whole completion."""

    def __init__(self, byte_iter: Iterator[bytes], close: Callable[[], None], recording: Any = None) -> None:
        super().__init__(recording)
        self._bytes = byte_iter
        self._close_response = close
        self._iterator: Optional[Generator[ChatCompletionChunk, None, None]] = None

    def __iter__(self) -> Iterator[ChatCompletionChunk]:
        # A fresh generator per loop: when a loop is left with break it is dropped, closing the stream.
        return self._iterator if self._iterator is not None else self._chunks()

    def __next__(self) -> ChatCompletionChunk:
        if self._iterator is None:
            self._iterator = self._chunks()
        try:
            return next(self._iterator)
        except GatewayError as error:
            raise leaving_gatewaykit(error)  # inner frames: GATEWAYKIT_FULL_TRACEBACK=1 shows them

    def _chunks(self) -> Generator[ChatCompletionChunk, None, None]:
        if self._state != "open":
            return
        try:
            spec_chunks, assembler, tolerant_chunk = self._spec_chunks, self._assembler, self._tolerant_chunk
            read_spec_chunk, add, add_text = spec_chunks.read, assembler.add, assembler.add_text
            feed = self._decoder.feed_data
            for raw in self._bytes:
                for event in feed(raw):
                    # A spec chunk is never [DONE], blank or an error: the fast path first (one loop, no call
                    # per chunk beyond the reader and the assembler: this runs for every chunk). An unnamed
                    # event comes as its data alone (a str), a named one as a ServerSentEvent (not a chunk).
                    chunk = read_spec_chunk(event) if event.__class__ is str else None
                    if chunk is not None:
                        if spec_chunks.text is None:
                            add(chunk)
                        else:  # the text of a chunk repeating an added one: all there is to assemble
                            add_text(spec_chunks.index, spec_chunks.text)
                    else:
                        chunk = tolerant_chunk(event)
                        if chunk is None:
                            self._done()
                            return
                        if chunk is _SKIP:
                            continue
                    yield chunk
            if self._assembler.finished():  # no [DONE], but every choice said why it ended
                self._done()
                return
            raise StreamInterruptedError(_BROKE_OFF, partial=self._assembler.result())
        except GeneratorExit:
            self._abandoned()
            raise
        except Exception as exc:  # noqa: BLE001 - recorded, then raised as the right class
            raise leaving_gatewaykit(self._failed(exc), exc)  # inner frames: GATEWAYKIT_FULL_TRACEBACK=1 shows them
        finally:
            self._close_response()

    def iter_text(self) -> Iterator[str]:
        """Only the text of the first choice, piece by piece."""
        try:
            for chunk in self:
                for choice in chunk.choices:
                    if choice.index == 0 and choice.delta.content:
                        yield choice.delta.content
        except GatewayError as error:
            raise leaving_gatewaykit(error)  # inner frames: GATEWAYKIT_FULL_TRACEBACK=1 shows them

    @public_call
    def final(self) -> ChatCompletion:
        """Read the rest of the stream; the assembled completion (content, reasoning, tool calls, usage)."""
        if self._state == "open":
            for _ in self:
                pass
        return self._result_or_raise()

    def close(self) -> None:
        """Close the connection now; what arrived stays in ``completion``."""
        if self._iterator is not None:
            self._iterator.close()
        if self._state == "open":
            self._abandoned()
            self._close_response()

    def __enter__(self) -> "ChatStream":
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<ChatStream {self._state}, {self._assembler.count} chunks>"


class AsyncChatStream(_StreamBase):
    """``async for`` chunks; ``await final()`` for the whole completion."""

    def __init__(self, byte_iter: AsyncIterator[bytes], close: Callable[[], Any], recording: Any = None) -> None:
        super().__init__(recording)
        self._bytes = byte_iter
        self._close_response = close
        self._iterator: Optional[AsyncIterator[ChatCompletionChunk]] = None

    def __aiter__(self) -> AsyncIterator[ChatCompletionChunk]:
        if self._iterator is None:
            self._iterator = self._chunks()
        return self._iterator

    async def __anext__(self) -> ChatCompletionChunk:
        try:
            return await self.__aiter__().__anext__()
        except GatewayError as error:
            raise leaving_gatewaykit(error)  # inner frames: GATEWAYKIT_FULL_TRACEBACK=1 shows them

    async def _chunks(self) -> AsyncIterator[ChatCompletionChunk]:
        if self._state != "open":
            return
        try:
            spec_chunks, assembler, tolerant_chunk = self._spec_chunks, self._assembler, self._tolerant_chunk
            read_spec_chunk, add, add_text = spec_chunks.read, assembler.add, assembler.add_text
            feed = self._decoder.feed_data
            async for raw in self._bytes:
                for event in feed(raw):
                    chunk = read_spec_chunk(event) if event.__class__ is str else None  # as ChatStream
                    if chunk is not None:
                        if spec_chunks.text is None:
                            add(chunk)
                        else:  # the text of a chunk repeating an added one: all there is to assemble
                            add_text(spec_chunks.index, spec_chunks.text)
                    else:
                        chunk = tolerant_chunk(event)
                        if chunk is None:
                            self._done()
                            return
                        if chunk is _SKIP:
                            continue
                    yield chunk
            if self._assembler.finished():  # no [DONE], but every choice said why it ended
                self._done()
                return
            raise StreamInterruptedError(_BROKE_OFF, partial=self._assembler.result())
        except GeneratorExit:
            self._abandoned()
            raise
        except Exception as exc:  # noqa: BLE001
            raise leaving_gatewaykit(self._failed(exc), exc)  # inner frames: GATEWAYKIT_FULL_TRACEBACK=1 shows them
        finally:
            await self._close_response()

    async def iter_text(self) -> AsyncIterator[str]:
        try:
            async for chunk in self:
                for choice in chunk.choices:
                    if choice.index == 0 and choice.delta.content:
                        yield choice.delta.content
        except GatewayError as error:
            raise leaving_gatewaykit(error)  # inner frames: GATEWAYKIT_FULL_TRACEBACK=1 shows them

    @public_call
    async def final(self) -> ChatCompletion:
        if self._state == "open":
            async for _ in self:
                pass
        return self._result_or_raise()

    async def close(self) -> None:
        if self._iterator is not None:
            await self._iterator.aclose()  # type: ignore[attr-defined]
        if self._state == "open":
            self._abandoned()
            await self._close_response()

    aclose = close

    async def __aenter__(self) -> "AsyncChatStream":
        return self

    async def __aexit__(self, *exc_info: Any) -> None:
        await self.close()

    def __repr__(self) -> str:
        return f"<AsyncChatStream {self._state}, {self._assembler.count} chunks>"
