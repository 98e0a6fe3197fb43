"""The seam between the client core and whatever shows its progress: the :class:`Display` Protocol.

The core calls a display for a streamed chat, a blocking ``job.wait()``, ``map``/``batch`` progress,
the offline notice, and optionally a confirmation, a conversation turn, a comparison and an
evaluation; it never knows what is behind it. ``Client(display=None)`` asks :func:`default_display`
once (the composition root installs a chooser: the notebook layer's ``KernelDisplay`` in a kernel,
:class:`NullDisplay` elsewhere).
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any, Callable, Optional, Protocol, TypeVar, Union, runtime_checkable

from gatewaykit.money import format_usd


if TYPE_CHECKING:  # pragma: no cover
    from gatewaykit.client.core.comparison_view import ComparisonView
    from gatewaykit.client.core.streaming import AsyncChatStream, ChatStream
    from gatewaykit.types import ChatCompletion

__all__ = [
    "BatchProgress",
    "BatchTally",
    "Display",
    "NullBatchProgress",
    "NullDisplay",
    "NullTurnView",
    "StreamOnlyTurnView",
    "TurnView",
    "choose_display",
    "default_display",
    "in_kernel",
    "in_marimo",
    "set_default_display",
    "turn_view_of",
]

J = TypeVar("J")


@runtime_checkable
class BatchProgress(Protocol):
    """Told about every finished item of a ``map``/``batch``; ``close()`` when all are done.

    A view may also have ``settle(cost)``: called before ``close()`` with what the batch's ledger rows
    cost (every request its items made, whatever they returned; $0 for answers not paid for now)."""

    def item_done(self, result: Any) -> None:
        """One item finished: its value, or the exception it raised."""

    def close(self) -> None: ...


@runtime_checkable
class TurnView(Protocol):
    """One conversation turn on screen: its requests' streams, its steps (``event``), then ``close()``."""

    def chat_stream(self, stream: "ChatStream") -> "ChatCompletion": ...

    async def async_chat_stream(self, stream: "AsyncChatStream") -> "ChatCompletion": ...

    def event(self, event: Any) -> None:
        """A :class:`~gatewaykit.client.conversation.tool_loop.TurnEvent` of the turn (a completion, tool call, tool result, limit)."""

    def close(self, error: Optional[BaseException] = None) -> None:
        """The turn ended (``error`` when it raised); the view becomes static output."""


@runtime_checkable
class Display(Protocol):
    """What the client core calls to show its work (see the module docstring)."""

    def chat_stream(self, stream: "ChatStream") -> "ChatCompletion": ...

    async def async_chat_stream(self, stream: "AsyncChatStream") -> "ChatCompletion": ...

    def job_wait(self, job: J, wait: Callable[[Optional[Callable[[Any], Any]]], J]) -> J: ...

    def batch_progress(self, total: int) -> BatchProgress: ...

    def offline_notice(self, base_url: str, *, implicit: bool) -> None: ...

    def turn_view(self) -> TurnView: ...

    def compare_view(self, prompt: str, kind: str, entries: list[Any]) -> "ComparisonView": ...


class BatchTally:
    """The numbers a batch view shows, kept from ``item_done`` results: done/total, failures, cost."""

    __slots__ = ("total", "done", "failures", "cost")

    def __init__(self, total: int) -> None:
        self.total = total
        self.done = 0
        self.failures = 0
        self.cost = 0.0  # USD the finished items reported (``usage.cost.total_cost``); the ledger's at the end

    def add(self, result: Any) -> None:
        """Count one finished item (its value, or the exception it raised)."""
        self.done += 1
        if isinstance(result, BaseException):
            self.failures += 1
            return
        usage = getattr(result, "usage", None)
        if usage is None:
            return
        from gatewaykit.types.replayed import not_charged  # here: `import gatewaykit` builds no model

        if not_charged(result):  # replayed from a cassette or answered from the cache: nothing paid now
            return
        cost = getattr(usage, "total_cost", None)
        if isinstance(cost, (int, float)):
            self.cost += cost

    def settle(self, cost: float) -> None:
        """The batch's cost as its ledger rows have it (every request its items made, whatever they return)."""
        self.cost = cost

    def __repr__(self) -> str:
        return f"BatchTally({self.done}/{self.total} done, {self.failures} failed, {format_usd(self.cost)})"


class NullBatchProgress:
    """Counts nothing, shows nothing."""

    def item_done(self, result: Any) -> None:
        pass

    def settle(self, cost: float) -> None:
        pass

    def close(self) -> None:
        pass


class NullTurnView:
    """Shows nothing: each stream is read to its end, events are ignored."""

    def chat_stream(self, stream: "ChatStream") -> "ChatCompletion":
        return stream.final()

    async def async_chat_stream(self, stream: "AsyncChatStream") -> "ChatCompletion":
        return await stream.final()

    def event(self, event: Any) -> None:
        pass

    def close(self, error: Optional[BaseException] = None) -> None:
        pass


class StreamOnlyTurnView(NullTurnView):
    """For a display without ``turn_view``: each request through its ``chat_stream``; tool steps are not shown."""

    def __init__(self, display: Any) -> None:
        self._display = display

    def chat_stream(self, stream: "ChatStream") -> "ChatCompletion":
        return self._display.chat_stream(stream)  # type: ignore[no-any-return]

    async def async_chat_stream(self, stream: "AsyncChatStream") -> "ChatCompletion":
        return await self._display.async_chat_stream(stream)  # type: ignore[no-any-return]


def turn_view_of(display: Any) -> TurnView:
    """The view a conversation turn shows through: ``display.turn_view()``, or a stream-only one."""
    opener = getattr(display, "turn_view", None)
    return opener() if callable(opener) else StreamOnlyTurnView(display)  # type: ignore[no-any-return]


class NullDisplay:
    """Shows nothing: streams are read to their end, waits just wait (terminals, scripts, tests)."""

    def chat_stream(self, stream: "ChatStream") -> "ChatCompletion":
        return stream.final()

    async def async_chat_stream(self, stream: "AsyncChatStream") -> "ChatCompletion":
        return await stream.final()

    def job_wait(self, job: J, wait: Callable[[Optional[Callable[[Any], Any]]], J]) -> J:
        return wait(None)

    def batch_progress(self, total: int) -> BatchProgress:
        return NullBatchProgress()

    def offline_notice(self, base_url: str, *, implicit: bool) -> None:
        pass

    def turn_view(self) -> TurnView:
        return _NULL_TURN_VIEW

    def compare_view(self, prompt: str, kind: str, entries: list[Any]) -> "ComparisonView":
        from gatewaykit.client.core.comparison_view import NullComparisonView

        return NullComparisonView()

    def __repr__(self) -> str:
        return "NullDisplay()"


_NULL_TURN_VIEW = NullTurnView()


def in_kernel() -> bool:
    """True inside a running IPython kernel (Jupyter, Colab, VS Code); never imports IPython."""
    ipython_module = sys.modules.get("IPython")
    if ipython_module is None:
        return False
    try:
        shell = ipython_module.get_ipython()
    except Exception:  # noqa: BLE001
        return False
    return shell is not None and getattr(shell, "kernel", None) is not None


def in_marimo() -> bool:
    """True in a running marimo notebook or app (never imports marimo)."""
    marimo = sys.modules.get("marimo")
    running = getattr(marimo, "running_in_notebook", None)
    try:
        return bool(running()) if callable(running) else False
    except Exception:  # noqa: BLE001
        return False


_chooser: Callable[[], Display] = NullDisplay


def set_default_display(chooser: Callable[[], Display]) -> None:
    """Install what ``Client(display=None)`` uses (the composition root calls this once)."""
    global _chooser
    _chooser = chooser


def default_display() -> Display:
    """The display a new client gets when none is given."""
    return _chooser()


def choose_display(display: Union[Display, bool, None]) -> Display:
    """``Client(display=...)``: None = the default, False = none, an object = that object."""
    if display is None or display is True:
        return default_display()
    if display is False:
        return NullDisplay()
    missing = [name for name in ("chat_stream", "job_wait", "batch_progress", "offline_notice") if not hasattr(display, name)]
    if missing:
        raise TypeError(f"display= needs the Display methods; {type(display).__name__} lacks {', '.join(missing)}")
    return display
