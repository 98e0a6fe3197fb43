"""Server-Sent Events decoding, as a pure function of the bytes received.

:class:`SSEDecoder` is fed raw byte chunks split anywhere (inside a line, a
CRLF pair or a UTF-8 sequence) and yields :class:`ServerSentEvent`s, following
the WHATWG event-stream rules: lines end in LF, CRLF or CR; ``:`` starts a
comment (keepalive); ``data`` lines of one event are joined with newlines; an
empty line dispatches the event; an event with no ``data`` is not dispatched.
No I/O happens here, so it is tested without a network.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Iterator, Optional, Union

__all__ = ["SSEDecoder", "ServerSentEvent", "decode_events"]


@dataclass(slots=True)
class ServerSentEvent:
    data: str
    event: Optional[str] = None
    id: Optional[str] = None
    retry: Optional[int] = None

    @property
    def name(self) -> str:
        """The event type (``message`` when the stream named none)."""
        return self.event or "message"


class SSEDecoder:
    """Incremental decoder: ``feed(chunk)`` yields the events completed by it; ``finish()`` ends."""

    __slots__ = ("_tail", "_cr_pending", "_data", "_event", "_last_id", "_retry", "_has_data")

    def __init__(self) -> None:
        self._tail = b""
        self._cr_pending = False  # the previous chunk ended in CR: a leading LF belongs to it
        self._data: list[str] = []
        self._has_data = False
        self._event: Optional[str] = None
        self._last_id: Optional[str] = None
        self._retry: Optional[int] = None

    def feed(self, chunk: bytes) -> list[ServerSentEvent]:
        """Add received bytes; return the events they complete (often none or one)."""
        return self._feed(chunk, False)  # type: ignore[return-value]

    def feed_data(self, chunk: bytes) -> list[Union[str, ServerSentEvent]]:
        """As :meth:`feed`, but an unnamed event (no ``event:`` line) comes out as its data alone, a ``str``
        (no object built: a chat stream is hundreds of those; its ``id`` and ``retry`` are left out); a named
        event as a :class:`ServerSentEvent`."""
        return self._feed(chunk, True)

    def _feed(self, chunk: bytes, bare: bool) -> list[Any]:
        if self._cr_pending:
            self._cr_pending = False
            if chunk[:1] == b"\n":
                chunk = chunk[1:]
        if not chunk:
            return []
        buffer = self._tail + chunk if self._tail else chunk
        if b"\r" in buffer:
            if buffer.endswith(b"\r"):
                self._cr_pending = True
            buffer = buffer.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
        end = buffer.rfind(b"\n") + 1
        if not end:
            self._tail = buffer
            return []
        self._tail = buffer[end:]
        # Whole lines only, decoded at once: a newline is never inside a UTF-8 sequence, so "replace" gives the
        # text that decoding line by line would. Split at blank lines: each block but the last is the lines of
        # one event, then the blank line that dispatches it; the last is lines (each ending in LF) still open.
        blocks = buffer[:end].decode("utf-8", "replace").split("\n\n")
        opened = blocks.pop()
        events: list[Any] = []
        append = events.append
        for block in blocks:
            # Nearly every event: one "data: " line, nothing pending from before it.
            if block[:6] == "data: " and "\n" not in block and not self._has_data and self._event is None:
                append(block[6:] if bare else ServerSentEvent(block[6:], None, self._last_id, self._retry))
                continue
            for line in block.split("\n") + [""]:
                event = self._line(line)
                if event is not None:
                    append(event.data if bare and event.event is None else event)
        if opened:
            for line in opened[:-1].split("\n"):
                event = self._line(line)
                if event is not None:
                    append(event.data if bare and event.event is None else event)
        return events

    def finish(self) -> list[ServerSentEvent]:
        """The end of the stream: a last line without its newline still counts; an
        event without the closing empty line is discarded (as browsers do)."""
        events: list[ServerSentEvent] = []
        if self._tail:
            self._line(self._tail.decode("utf-8", "replace"))
            self._tail = b""
        self._data = []
        self._has_data = False
        self._event = None
        return events

    def _line(self, line: str) -> Optional[ServerSentEvent]:
        if not line:
            if not self._has_data:
                self._event = None
                return None
            event = ServerSentEvent("\n".join(self._data), self._event, self._last_id, self._retry)
            self._data = []
            self._has_data = False
            self._event = None
            return event
        if line[:1] == ":":
            return None  # a comment: keepalive
        name, colon, value = line.partition(":")
        if colon and value[:1] == " ":
            value = value[1:]
        if name == "data":  # also "data" with no colon: an empty data line
            self._data.append(value)
            self._has_data = True
        elif name == "event":
            self._event = value
        elif name == "id":
            if "\0" not in value:
                self._last_id = value
        elif name == "retry":
            if value.isdigit():
                self._retry = int(value)
        return None


def decode_events(chunks: Iterable[bytes]) -> Iterator[ServerSentEvent]:
    """All events of a finite sequence of byte chunks."""
    decoder = SSEDecoder()
    for chunk in chunks:
        yield from decoder.feed(chunk)
    yield from decoder.finish()
