"""The live view of one conversation turn: each request streamed, each tool call and its result, then the answer.

``chat("...")`` in a kernel opens one :class:`LiveTurnView`; every request of the turn streams into an
output of its own through the live renderer, each tool call and result is a line between them, and
the turn ends as static output. Details: ``docs/internals.md``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Optional

from gatewaykit.notebook.html_views import html as views
from gatewaykit.notebook.html_views import style
from gatewaykit.notebook.html_views.conversation_html import render_tool_block_html
from gatewaykit.notebook.cell_output.sinks import DisplaySink, default_sink
from gatewaykit.presentation import replayed_from_cassette

__all__ = ["LiveTurnView", "render_step_html"]

RUNNING = "running…"


@dataclass
class ToolStep:
    """A tool call as shown: its result is ``None`` until it arrives."""

    name: str
    arguments: str
    result: Optional[str] = None
    status: str = RUNNING


@dataclass
class Step:
    """One request of the turn that ended in tool calls, and the output that shows it."""

    completion: Any
    sink: DisplaySink
    calls: dict[str, ToolStep] = field(default_factory=dict)
    replayed: bool = False  # the reply came from the client's cassette (not charged)


def render_step_html(completion: Any, calls: list[ToolStep], *, step: int, replayed: bool = False) -> str:
    """A tool-calling reply: its text (sanitised Markdown) and reasoning, then a collapsible block per call
    (``replayed``: from the client's cassette, the footer says so instead of a cost)."""
    message = completion.choices[0].message if completion.choices else None
    body = ""
    if message is not None:
        body = views.render_reasoning_html(message.reasoning) + (views._markdown(message.content) if message.content else "")
    blocks = "".join(render_tool_block_html(call.name, call.arguments, call.result, call.status) for call in calls)
    count = len(calls)
    parts = [style.esc(completion.model), *style.usage_parts(completion.usage, cached=views.not_charged(completion, replayed))]
    parts.append(f"step {step}: {count} tool call{'' if count == 1 else 's'}")
    return (
        f'<div class="gk-chat gk-turn-step" style="{style.BOX}"><div class="gk-answer">{body}</div>'
        f'<div class="gk-tool-steps">{blocks}</div>{style.footer(parts)}</div>'
    )


def _step_text(completion: Any, calls: list[ToolStep]) -> str:
    message = completion.choices[0].message if completion.choices else None
    lines = [message.content] if message is not None and message.content else []
    for call in calls:
        result = call.result if call.result is not None else call.status
        lines.append(f"→ {call.name}({call.arguments}) = {result[:200]}")
    return "\n".join(lines)


class LiveTurnView:
    """The session's view of one turn in the current cell (see the module docstring)."""

    def __init__(self, new_sink: Callable[[], DisplaySink] = default_sink) -> None:
        self._new_sink = new_sink
        self._streamed: Optional[DisplaySink] = None  # the output of the request that just streamed
        self._replayed = False  # that request was answered by the client's cassette
        self._steps: list[Step] = []
        self.updates = 0

    # -- requests ----------------------------------------------------------------------
    def chat_stream(self, stream: Any) -> Any:
        from gatewaykit.notebook.chat_views.live import render_stream

        self._streamed, self._replayed = self._new_sink(), replayed_from_cassette(stream)
        return render_stream(stream, sink=self._streamed)

    async def async_chat_stream(self, stream: Any) -> Any:
        from gatewaykit.notebook.chat_views.live import render_async_stream

        self._streamed, self._replayed = self._new_sink(), replayed_from_cassette(stream)
        return await render_async_stream(stream, sink=self._streamed)

    # -- steps ---------------------------------------------------------------------------
    def event(self, event: Any) -> None:
        try:
            self._event(event)
        except Exception:  # noqa: BLE001 - a display bug must never lose the user's turn
            pass

    def _event(self, event: Any) -> None:
        if event.kind == "completion":
            streamed, self._streamed = self._streamed, None
            replayed, self._replayed = self._replayed and streamed is not None, False
            calls = _tool_calls(event.completion)
            if not calls:
                return  # the answer: render_stream already left it as static output (or it was not streamed)
            step = Step(event.completion, streamed if streamed is not None else self._new_sink(), replayed=replayed)
            for call in calls:
                step.calls[call.id or str(len(step.calls))] = ToolStep(call.function.name or "?", call.function.arguments or "")
            self._steps.append(step)
            self._render(step)
        elif event.kind == "tool_result" and self._steps:
            step = self._steps[-1]
            shown = step.calls.get(event.call_id or "")
            if shown is None:
                return
            shown.result, shown.status = event.content or "", event.status or "ok"
            self._render(step)
        elif event.kind == "limit":
            note = f'<div class="gk-turn-note" style="{style.MUTED}"><em>{style.esc(event.content)}</em></div>'
            self._new_sink().update({"text/plain": event.content or "", "text/html": note})

    def _render(self, step: Step) -> None:
        calls = list(step.calls.values())
        number = self._steps.index(step) + 1
        step.sink.update({"text/plain": _step_text(step.completion, calls),
                          "text/html": render_step_html(step.completion, calls, step=number, replayed=step.replayed)})  # fmt: skip
        self.updates += 1

    def close(self, error: Optional[BaseException] = None) -> None:
        """The turn ended: a call that never reported (the turn raised) is marked as not run."""
        for step in self._steps:
            pending = [call for call in step.calls.values() if call.result is None]
            for call in pending:
                call.status = "not run" if error is None else f"not run: {type(error).__name__}"
            if pending:
                try:
                    self._render(step)
                except Exception:  # noqa: BLE001
                    pass


def _tool_calls(completion: Any) -> list[Any]:
    if completion is None or not completion.choices:
        return []
    return list(completion.choices[0].message.tool_calls or [])
