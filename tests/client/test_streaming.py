"""ChatStream over plain byte iterators: iteration, final(), closing, interruption, recording."""

from __future__ import annotations

import asyncio
from typing import Any, AsyncIterator, Iterator

import pytest

from gatewaykit import AsyncChatStream, ChatStream, RateLimitError, StreamInterruptedError
from gatewaykit.client.core.recording import Recording
from gatewaykit.errors import APIConnectionError

from .chunks import USAGE, chunk, sse
from .conftest import RecordingLedger

BODY = sse(chunk({"role": "assistant", "content": "Hel"}), chunk({"content": "lo"}, finish="stop"), chunk(None, usage=USAGE))


class Body:
    """A response body split into pieces; remembers whether it was closed."""

    def __init__(self, data: bytes, size: int = 7, fail_after: int | None = None) -> None:
        self.pieces = [data[i : i + size] for i in range(0, len(data), size)]
        self.fail_after = fail_after
        self.closed = False

    def __iter__(self) -> Iterator[bytes]:
        for number, piece in enumerate(self.pieces):
            if self.fail_after is not None and number == self.fail_after:
                raise APIConnectionError("peer closed connection")
            yield piece

    async def aiter(self) -> AsyncIterator[bytes]:
        for piece in self:
            yield piece

    def close(self) -> None:
        self.closed = True

    async def aclose(self) -> None:
        self.closed = True


def stream_of(body: Body, sink: RecordingLedger) -> ChatStream:
    return ChatStream(iter(body), body.close, Recording(sink, "chat.stream", "chat-mini", {}, False))


def test_iterates_chunks_and_final_assembles(sink: RecordingLedger) -> None:
    """Iterating gives every chunk; final() gives content and usage; the ledger gets one ok row."""
    body = Body(BODY)
    stream = stream_of(body, sink)
    assert [c.choices[0].delta.content for c in stream if c.choices] == ["Hel", "lo"]
    final = stream.final()
    assert (final.content, final.usage.cost.total_cost, body.closed) == ("Hello", 0.25, True)
    assert [(r.status, r.usage["cost"]["total_cost"]) for r in sink.records] == [("ok", 0.25)]


def test_final_without_iterating_reads_everything(sink: RecordingLedger) -> None:
    """final() on a fresh stream consumes it."""
    assert stream_of(Body(BODY), sink).final().content == "Hello"


def test_break_closes_the_connection(sink: RecordingLedger) -> None:
    """Leaving the loop with break closes the response and records an interruption."""
    body = Body(BODY)
    stream = stream_of(body, sink)
    for _ in stream:
        break
    assert body.closed
    assert [r.status for r in sink.records] == ["interrupted"]


def test_exception_in_loop_closes_the_connection(sink: RecordingLedger) -> None:
    """An exception escaping the loop body closes the response."""
    body = Body(BODY)
    with pytest.raises(KeyError):
        for _ in stream_of(body, sink):
            raise KeyError("boom")
    assert body.closed


def test_context_manager_closes(sink: RecordingLedger) -> None:
    """Leaving a with block closes a half-read stream."""
    body = Body(BODY)
    with stream_of(body, sink) as stream:
        next(stream)
    assert body.closed


def test_missing_done_is_an_interruption_with_partial(sink: RecordingLedger) -> None:
    """A body that ends before [DONE] raises StreamInterruptedError carrying the partial completion."""
    stream = stream_of(Body(sse(chunk({"content": "par"}), done=False)), sink)
    with pytest.raises(StreamInterruptedError) as caught:
        stream.final()
    assert caught.value.partial.content == "par"
    assert [r.status for r in sink.records] == ["interrupted"]


def test_dropped_connection_is_an_interruption(sink: RecordingLedger) -> None:
    """A transport failure mid-stream becomes StreamInterruptedError, recorded once."""
    stream = stream_of(Body(BODY, fail_after=3), sink)
    with pytest.raises(StreamInterruptedError):
        list(stream)
    with pytest.raises(StreamInterruptedError):
        stream.final()
    assert [r.status for r in sink.records] == ["interrupted"]


def test_error_event_raises_the_mapped_error(sink: RecordingLedger) -> None:
    """An error envelope sent inside the stream raises its class and records an error."""
    data = b'data: {"error": {"message": "slow down", "type": "rate_limit_error", "code": "rate_limit_exceeded"}}\n\n'
    with pytest.raises(RateLimitError):
        stream_of(Body(data), sink).final()
    assert [r.status for r in sink.records] == ["error"]


def test_async_stream_iterates_and_assembles(sink: RecordingLedger) -> None:
    """AsyncChatStream: async for gives the chunks; await final() the completion."""
    body = Body(BODY)

    async def run() -> Any:
        stream = AsyncChatStream(body.aiter(), body.aclose, Recording(sink, "chat.stream", "m", {}, False))
        pieces = [c.choices[0].delta.content async for c in stream if c.choices]
        return pieces, await stream.final()

    pieces, final = asyncio.run(run())
    assert (pieces, final.content, body.closed) == (["Hel", "lo"], "Hello", True)


def test_async_context_manager_closes(sink: RecordingLedger) -> None:
    """async with closes a half-read AsyncChatStream and records an interruption."""
    body = Body(BODY)

    async def run() -> None:
        async with AsyncChatStream(body.aiter(), body.aclose, Recording(sink, "chat.stream", "m", {}, False)) as stream:
            await stream.__anext__()

    asyncio.run(run())
    assert body.closed and [r.status for r in sink.records] == ["interrupted"]
