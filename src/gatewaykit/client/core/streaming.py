"""Streamed chat completions: :class:`ChatStream` and :class:`AsyncChatStream`.

Both iterate :class:`ChatCompletionChunk`s as they arrive and assemble them;
``final()`` reads the rest and returns the whole :class:`ChatCompletion`.
The connection is closed when the stream ends, on ``close()``, when leaving a
``with`` block, when an exception escapes the loop, and (on CPython) as soon as
a ``for`` loop over the stream is left with ``break``. A stream that breaks
off before ``data: [DONE]`` raises :class:`StreamInterruptedError` carrying
the partial completion, and the ledger records it as ``interrupted`` with an
unknown charge (``charged`` None): a fast gateway may have sent, and charged,
the whole answer before the caller closed it; the client cannot tell.
"""

from __future__ import annotations

import json
from typing import Any, AsyncIterator, Callable, Generator, Iterator, Optional

from gatewaykit.client.core.assembly import ChatAssembler
from gatewaykit.client.core.sse import SSEDecoder
from gatewaykit.client.transports.response_decoding import unexpected_response, why_unusable
from gatewaykit.errors import (
    APIConnectionError,
    GatewayError,
    StreamInterruptedError,
    UnexpectedResponseError,
    error_from_response,
)
from gatewaykit.types import ChatCompletion, ChatCompletionChunk

__all__ = ["AsyncChatStream", "ChatStream"]

_parse_chunk = ChatCompletionChunk.model_validate
_chunk_from_json = ChatCompletionChunk.model_validate_json
_STREAM_CALL = "client.chat.completions.create(..., stream=True)"
_BROKE_OFF = "The stream broke off before its end ([DONE] never arrived)"
_CLOSED = "The stream was closed before its end"


def error_in_stream(data: str) -> GatewayError:
    """An error sent inside the stream (``{"error": {...}}``), as the matching exception."""
    try:
        body = json.loads(data)
    except ValueError:
        body = data
    status = 500
    if isinstance(body, dict) and isinstance(body.get("error"), dict):
        for raw_status in (body["error"].get("status"), body["error"].get("code")):
            # an int status, or a code that is one ("400", as LiteLLM's proxy sends it)
            if isinstance(raw_status, str) and raw_status.isdigit():
                raw_status = int(raw_status)
            if isinstance(raw_status, int) and not isinstance(raw_status, bool) and 400 <= raw_status < 600:
                status = raw_status
                break
    return error_from_response(status, body, call=_STREAM_CALL)


def _read_chunk(data: str) -> Optional[ChatCompletionChunk]:
    """The chunk in an event's ``data``; None for an error object (``{"error": ...}`` without ``choices``).

    Raises ``ValueError`` (a ``ValidationError``) when ``data`` is not JSON or not a chunk.
    """
    if '"error"' not in data and "\\u" not in data:  # cannot name an "error" key: pydantic reads the JSON itself
        return _chunk_from_json(data)
    payload = json.loads(data)
    if isinstance(payload, dict) and "error" in payload and "choices" not in payload:
        return None
    return _parse_chunk(payload)


class _StreamBase:
    def __init__(self, recording: Any = None) -> None:
        self._assembler = ChatAssembler()
        self._decoder = SSEDecoder()
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
            self._recording.ok(id=self._assembler.id, usage=self._assembler.usage)

    def _failed(self, exc: BaseException) -> BaseException:
        """Record the failure; return the exception to raise (connection drops become interruptions)."""
        if isinstance(exc, APIConnectionError) and not isinstance(exc, StreamInterruptedError):
            exc = StreamInterruptedError(f"{_BROKE_OFF}: {exc.message}", partial=self._assembler.result())
        self._state = "failed"
        self._error = exc
        if self._recording is not None:
            if isinstance(exc, (StreamInterruptedError, UnexpectedResponseError)):
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

    def _chunks_of(self, raw: bytes) -> Iterator[Optional[ChatCompletionChunk]]:
        """Chunks completed by ``raw``; None marks ``[DONE]``.

        Tolerant of what real servers interleave: comments and blank ``data``
        (keepalives), events of other names whose data is not a chunk (skipped),
        chunks with no ``choices`` (Azure's first one, a usage-only last one).
        """
        for event in self._decoder.feed(raw):
            data = event.data
            stripped = data.strip()
            if stripped == "[DONE]":
                yield None
                return
            if not stripped:
                continue  # an empty keepalive event
            if event.event == "error":
                raise error_in_stream(data)
            try:
                chunk = _read_chunk(data)
            except ValueError as exc:  # not JSON, or not a chunk (pydantic's ValidationError is a ValueError)
                if event.event not in (None, "message"):
                    continue  # another kind of event ("ping", ...): not a chunk, not ours to read
                raise self._unusable(data, why_unusable(exc)) from None
            if chunk is None:
                raise error_in_stream(data)
            self._assembler.add(chunk)
            yield chunk

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
        return next(self._iterator)

    def _chunks(self) -> Generator[ChatCompletionChunk, None, None]:
        if self._state != "open":
            return
        try:
            for raw in self._bytes:
                for chunk in self._chunks_of(raw):
                    if chunk is None:
                        self._done()
                        return
                    yield chunk
            if self._assembler.finished():  # no [DONE], but every choice said why it ended
                self._done()
                return
            raise StreamInterruptedError(_BROKE_OFF, partial=self._assembler.result())
        except GeneratorExit:
            self._abandoned()
            raise
        except Exception as exc:  # noqa: BLE001 - recorded, then raised as the right class
            failure = self._failed(exc)
            if failure is exc:
                raise
            raise failure from exc
        finally:
            self._close_response()

    def iter_text(self) -> Iterator[str]:
        """Only the text of the first choice, piece by piece."""
        for chunk in self:
            for choice in chunk.choices:
                if choice.index == 0 and choice.delta.content:
                    yield choice.delta.content

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
        return await self.__aiter__().__anext__()

    async def _chunks(self) -> AsyncIterator[ChatCompletionChunk]:
        if self._state != "open":
            return
        try:
            async for raw in self._bytes:
                for chunk in self._chunks_of(raw):
                    if chunk is None:
                        self._done()
                        return
                    yield chunk
            if self._assembler.finished():  # no [DONE], but every choice said why it ended
                self._done()
                return
            raise StreamInterruptedError(_BROKE_OFF, partial=self._assembler.result())
        except GeneratorExit:
            self._abandoned()
            raise
        except Exception as exc:  # noqa: BLE001
            failure = self._failed(exc)
            if failure is exc:
                raise
            raise failure from exc
        finally:
            await self._close_response()

    async def iter_text(self) -> AsyncIterator[str]:
        async for chunk in self:
            for choice in chunk.choices:
                if choice.index == 0 and choice.delta.content:
                    yield choice.delta.content

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
