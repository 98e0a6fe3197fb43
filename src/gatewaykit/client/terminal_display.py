"""``TerminalDisplay``: the client's display outside a kernel (a script, a terminal REPL, a marimo console).

``chat.ask()`` writes the answer's text to stdout as it arrives (control characters removed); a turn,
a comparison and an evaluation write one line per step; ``job.wait()`` and ``map`` rewrite one progress
line on stderr, only on an interactive terminal. Writing never raises into the user's code.
Details: ``docs/internals.md``.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from typing import TYPE_CHECKING, Any, Callable, Optional, TextIO, TypeVar

from gatewaykit.client.core.comparison_view import NullComparisonView
from gatewaykit.client.core.display import BatchProgress, BatchTally, TurnView
from gatewaykit.terminal_text import plain_text  # escape sequences from a model must not drive the terminal
from gatewaykit.client.core.grading_switches import current_switches
from gatewaykit.money import format_usd
from gatewaykit.presentation import replayed_from_cassette

if TYPE_CHECKING:  # pragma: no cover
    from gatewaykit.client.core.streaming import AsyncChatStream, ChatStream
    from gatewaykit.types import ChatCompletion

__all__ = ["TerminalDisplay", "plain_text"]

_switch_notice_shown = False  # the GATEWAYKIT_OFFLINE line has been written in this process

J = TypeVar("J")

_LINE_WIDTH = 100


def one_line(text: Any, width: int = _LINE_WIDTH) -> str:
    """``text`` on one line, cut to ``width`` characters with an ellipsis."""
    flat = " ".join(plain_text(str(text)).split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


class _Channel:
    """One output stream (stdout or stderr) that switches itself off on the first write error."""

    def __init__(self, name: str) -> None:
        self._name = name
        self.broken = False

    def stream(self) -> Optional[TextIO]:
        return None if self.broken else getattr(sys, self._name, None)

    def is_live_terminal(self) -> bool:
        """An interactive terminal that can redraw a line (not ``TERM=dumb``, not a pipe or file)."""
        stream = self.stream()
        if stream is None or os.environ.get("TERM") == "dumb":
            return False
        try:
            return bool(stream.isatty())
        except (ValueError, OSError, AttributeError):
            return False

    def write(self, text: str) -> None:
        stream = self.stream()
        if stream is None:
            return
        try:
            stream.write(text)
            stream.flush()
        except (ValueError, OSError):  # closed, broken pipe, disk full: show nothing more, never raise
            self.broken = True


class _ProgressLine:
    """One stderr line rewritten in place (``\\r`` + clear), drawn only on a live terminal."""

    def __init__(self, channel: _Channel) -> None:
        self._channel = channel
        self._live = channel.is_live_terminal()
        self._drawn = False

    def show(self, text: str) -> None:
        if self._live:
            self._channel.write("\r\x1b[K" + one_line(text))
            self._drawn = True

    def end(self, text: Optional[str] = None) -> None:
        """Leave ``text`` (or clear the line) and move on."""
        if not self._live:
            return
        if text is not None:
            self._channel.write("\r\x1b[K" + one_line(text) + "\n")
        elif self._drawn:
            self._channel.write("\r\x1b[K")
        self._drawn = False


class _TextSink:
    """The answer's text to stdout, piece by piece, ending with one newline."""

    def __init__(self, channel: _Channel) -> None:
        self._channel = channel
        self._last = "\n"

    def add(self, piece: str) -> None:
        clean = plain_text(piece)
        if clean:
            self._channel.write(clean)
            self._last = clean[-1]

    def end(self) -> None:
        if self._last != "\n":
            self._channel.write("\n")
            self._last = "\n"


def _not_charged_line(stream: Any, completion: Any) -> Optional[str]:
    """The stderr line after an answer nothing was paid for now, replayed from the cassette or answered from
    the response cache (the notebook's footer says the same); None for an answer the gateway charged."""
    from gatewaykit.types.replayed import not_charged_note, replayed_note

    note = replayed_note(getattr(completion, "usage", None)) if replayed_from_cassette(stream) else not_charged_note(completion)
    return f"gatewaykit: {note}\n" if note else None


def _stream_text(stream: "ChatStream", out: _Channel, err: Optional[_Channel] = None) -> "ChatCompletion":
    sink = _TextSink(out)
    try:
        for piece in stream.iter_text():
            sink.add(piece)
    finally:
        sink.end()
    completion = stream.final()
    line = _not_charged_line(stream, completion) if err is not None else None
    if line:
        err.write(line)  # type: ignore[union-attr]
    return completion


async def _stream_text_async(
    stream: "AsyncChatStream", out: _Channel, err: Optional[_Channel] = None
) -> "ChatCompletion":
    sink = _TextSink(out)
    try:
        async for piece in stream.iter_text():
            sink.add(piece)
    finally:
        sink.end()
    completion = await stream.final()
    line = _not_charged_line(stream, completion) if err is not None else None
    if line:
        err.write(line)  # type: ignore[union-attr]
    return completion


class TerminalTurnView:
    """A conversation turn in a terminal: each request's text streams; each tool step is one line."""

    def __init__(self, out: _Channel, err: Optional[_Channel] = None) -> None:
        self._out = out
        self._err = err

    def chat_stream(self, stream: "ChatStream") -> "ChatCompletion":
        return _stream_text(stream, self._out, self._err)

    async def async_chat_stream(self, stream: "AsyncChatStream") -> "ChatCompletion":
        return await _stream_text_async(stream, self._out, self._err)

    def event(self, event: Any) -> None:
        kind = getattr(event, "kind", "")
        if kind == "tool_call":
            self._out.write(one_line(f"→ {event.name}({event.arguments or ''})") + "\n")
        elif kind == "tool_result":
            mark = "←" if event.status in (None, "ok") else f"← [{event.status}]"
            self._out.write(one_line(f"{mark} {event.name}: {event.content or ''}") + "\n")
        elif kind == "limit":
            self._out.write(one_line(f"… tool step limit reached: {event.content or 'asking for a summary'}") + "\n")

    def close(self, error: Optional[BaseException] = None) -> None:
        pass


class TerminalBatchProgress:
    """``map``/``batch`` as one stderr line: ``map 3/10 · 1 failed · $0.001200``."""

    def __init__(self, total: int, err: _Channel) -> None:
        self._tally = BatchTally(total)
        self._line = _ProgressLine(err)
        self._line.show(self._text())

    def _text(self) -> str:
        tally = self._tally
        failed = f" · {tally.failures} failed" if tally.failures else ""
        return f"requests {tally.done}/{tally.total}{failed} · {format_usd(tally.cost)}"

    def item_done(self, result: Any) -> None:
        self._tally.add(result)
        self._line.show(self._text())

    def settle(self, cost: float) -> None:
        self._tally.settle(cost)

    def close(self) -> None:
        self._line.end(self._text())


class TerminalComparisonView(NullComparisonView):
    """``client.compare`` in a terminal: one stdout line per column as its model finishes (whole answers, no stream)."""

    def __init__(self, out: _Channel) -> None:
        self._out = out
        self._lock = threading.Lock()  # columns finish on worker threads: one line at a time

    def finished(self, entry: Any) -> None:
        from gatewaykit.client.session_tools.comparison import column_line

        with self._lock:
            self._out.write(one_line(column_line(entry)) + "\n")


class TerminalEvaluationView(NullComparisonView):
    """``client.evaluate`` in a terminal: one stdout line per cell as it finishes (then ``print(ev)`` for the grid)."""

    def __init__(self, out: _Channel) -> None:
        self._out = out
        self._lock = threading.Lock()

    def finished(self, cell: Any) -> None:
        from gatewaykit.client.session_tools.evaluation_text import cell_line

        with self._lock:
            self._out.write(one_line(f"[{cell.case_id}] " + cell_line(cell)) + "\n")


def _job_line(job: Any, started: float) -> str:
    from gatewaykit.types.jobs import is_finishing  # here: `import gatewaykit` loads no model types

    status = getattr(job, "status", "?")
    progress = getattr(job, "progress", None)
    percent = ""
    if isinstance(progress, (int, float)) and status == "in_progress":  # queued: not started; ended: no figure
        percent = " finishing" if is_finishing(progress) else f" {progress:.0f}%"  # as the notebook's bar says
    return f"{getattr(job, 'id', 'job')} {status}{percent} · {time.monotonic() - started:.0f} s"


class TerminalDisplay:
    """Plain text on stdout for answers, one-line progress on stderr when it is a terminal."""

    def __init__(self) -> None:
        self._out = _Channel("stdout")
        self._err = _Channel("stderr")

    def chat_stream(self, stream: "ChatStream") -> "ChatCompletion":
        return _stream_text(stream, self._out, self._err)

    async def async_chat_stream(self, stream: "AsyncChatStream") -> "ChatCompletion":
        return await _stream_text_async(stream, self._out, self._err)

    def job_wait(self, job: J, wait: Callable[[Optional[Callable[[Any], Any]]], J]) -> J:
        line = _ProgressLine(self._err)
        started = time.monotonic()
        line.show(_job_line(job, started))
        try:
            done = wait(lambda update: line.show(_job_line(update, started)))
        except BaseException:
            line.end()
            raise
        line.end(_job_line(done, started))
        return done

    def batch_progress(self, total: int) -> BatchProgress:
        return TerminalBatchProgress(total, self._err)

    def turn_view(self) -> TurnView:
        return TerminalTurnView(self._out, self._err)

    def compare_view(self, prompt: str, kind: str, entries: list[Any]) -> TerminalComparisonView:
        return TerminalComparisonView(self._out)

    def evaluate_view(self, evaluation: Any) -> TerminalEvaluationView:
        return TerminalEvaluationView(self._out)

    def offline_notice(self, base_url: str, *, implicit: bool) -> None:
        # No key found: the client's OfflineGatewayWarning already says it (once, on stderr). A grader's
        # GATEWAYKIT_OFFLINE=1: one line on stderr per process, so the grading log says why nothing was sent.
        global _switch_notice_shown
        switches = current_switches()
        if not switches.offline or _switch_notice_shown:
            return
        _switch_notice_shown = True
        self._err.write(f"gatewaykit: {switches.describe()} is set: every client uses the built-in offline "
                        "gateway on this machine (synthetic results; no key or URL given is used)\n")

    def __repr__(self) -> str:
        return "TerminalDisplay()"
