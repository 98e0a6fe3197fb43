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
from typing import Iterable, Iterator, Optional

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
        end = buffer.rfind(b"\n")
        if end < 0:
            self._tail = buffer
            return []
        self._tail = buffer[end + 1 :]
        # Whole lines only, decoded at once: a newline is never inside a UTF-8 sequence, so
        # "replace" gives the text that decoding line by line would.
        events: list[ServerSentEvent] = []
        data = self._data
        for line in buffer[:end].decode("utf-8", "replace").split("\n"):
            if line[:6] == "data: ":  # the line nearly every event is made of
                data.append(line[6:])
                self._has_data = True
            elif not line and self._has_data and self._event is None:
                events.append(ServerSentEvent("\n".join(data), None, self._last_id, self._retry))
                data.clear()
                self._has_data = False
            else:
                event = self._line(line)
                if event is not None:
                    events.append(event)
                data = self._data
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
