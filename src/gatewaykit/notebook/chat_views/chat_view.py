"""How a chat box shows a turn: the live answer as it streams, tool steps, Stop, and the static transcript.

:class:`BoxTurnView` is the :class:`~gatewaykit.client.core.display.TurnView` a
chat box's session streams through: it reads the stream, updates the box's
live area at most :data:`UPDATES_PER_SECOND` times a second, and when Stop is
pressed closes the stream and hands the session the partial answer (with no
tool calls, so the turn ends there). :func:`render_transcript_html` draws
the finished turns, each with its cost (a turn the client's cassette replayed
or its response cache answered: the note its ledger rows have, instead of the
cost it had when it was paid for; the pure part, shared with the session's own
transcripts, is :mod:`gatewaykit.client.conversation.turn_costs`);
everything from a model is rendered as sanitised Markdown or escaped.
"""

from __future__ import annotations

import threading
import time
from typing import Any, Callable, Optional

from gatewaykit.client.conversation.turn_costs import turn_cost, turn_cost_facts, turn_replayed
from gatewaykit.notebook.html_views import style
from gatewaykit.notebook.html_views.conversation_html import render_tool_block_html
from gatewaykit.notebook.html_views.html import _offline_label, offline_content
from gatewaykit.presentation import replayed_from_cassette
from gatewaykit.types.replayed import mark_replayed

__all__ = ["BoxTurnView", "ChatBoxDisplay", "render_transcript_html", "turn_cost", "turn_replayed"]

UPDATES_PER_SECOND = 15
_USER = "margin:0.5em 0 0.2em 0;padding:.35em .8em;border-radius:6px;background:rgba(13,110,253,0.09);white-space:pre-wrap"
_STOPPED = "stopped: the answer above is what arrived before Stop"


def _cost_facts(turn: Any) -> list[str]:
    """A finished turn's cost as its footer says it (escaped): the amount, or (nothing charged) the note, or both."""
    return [style.esc(fact) for fact in turn_cost_facts(turn)]


def _user_html(content: Any) -> str:
    if isinstance(content, list):
        texts = [str(part.get("text", "")) for part in content if isinstance(part, dict) and part.get("type") == "text"]
        images = sum(1 for part in content if isinstance(part, dict) and part.get("type") == "image_url")
        text = " ".join(texts) + (f"  [{images} image{'s' if images != 1 else ''}]" if images else "")
    else:
        text = str(content or "")
    return f'<div class="gk-chat-user" style="{_USER}">{style.esc(text)}</div>'


def _answer_html(text: str, *, streaming: bool = False) -> str:
    from gatewaykit.notebook.markdown_html.markdown import render_markdown

    body = render_markdown(text) if text else f'<em style="{style.MUTED}">{"…" if streaming else "(no text)"}</em>'
    return f'<div class="gk-chat-answer" style="{style.CHAT_BOX}">{body}</div>'


def _steps_html(turn: Any) -> str:
    results = {str(m.get("tool_call_id")): m for m in turn.messages if m.get("role") == "tool"}
    blocks = []
    for message in turn.messages:
        for call in message.get("tool_calls") or []:
            function = call.get("function") or {}
            result = results.get(str(call.get("id")))
            blocks.append(render_tool_block_html(function.get("name"), function.get("arguments"),
                                                 None if result is None else result.get("content"), "ok"))  # fmt: skip
    return "".join(blocks)


def render_transcript_html(session: Any, stopped: set[int]) -> str:
    """Every finished turn: the prompt, its tool steps, the answer, and a footer with model, tokens and cost."""
    parts = []
    for index, turn in enumerate(session.turns):
        prompt = turn.messages[0].get("content") if turn.messages else ""
        reply = turn.reply
        answer = ""
        if reply is not None and reply.choices:
            answer = reply.choices[0].message.content or ""
        usages = [usage for c in turn.completions if (usage := getattr(c, "usage", None)) is not None]
        tokens_in = sum(getattr(usage, "prompt_tokens", 0) or 0 for usage in usages)
        tokens_out = sum(getattr(usage, "completion_tokens", 0) or 0 for usage in usages)
        offline = next((kind for c in turn.completions if (kind := offline_content(c))), None)
        facts = [style.esc(getattr(reply, "model", None) or session.model or ""), _offline_label(offline),
                 f"{tokens_in:,} in + {tokens_out:,} out tokens" if tokens_in or tokens_out else "",
                 *_cost_facts(turn)]  # fmt: skip  # as an answer's own footer says it
        if index in stopped:
            facts.append(_STOPPED)
        if turn.note:
            facts.append(style.esc(turn.note))
        parts.append(_user_html(prompt) + _steps_html(turn) + _answer_html(answer) + style.footer(facts))
    return "".join(parts)


class BoxTurnView:
    """One turn shown in a chat box (see the module docstring)."""

    def __init__(self, show_live: Callable[[str], None], stop: threading.Event, on_stopped: Callable[[], None],
                 on_step: Callable[[str], None]) -> None:  # fmt: skip
        self._show_live = show_live
        self._stop = stop
        self._on_stopped = on_stopped
        self._on_step = on_step
        self._steps: dict[str, list[Any]] = {}  # call id -> [name, arguments, result, status]

    def chat_stream(self, stream: Any) -> Any:
        pieces: list[str] = []
        last = 0.0
        for chunk in stream:
            if self._stop.is_set():
                return self._stopped(stream)
            for choice in chunk.choices:
                if choice.index == 0 and choice.delta.content:
                    pieces.append(choice.delta.content)
            now = time.monotonic()
            if now - last >= 1.0 / UPDATES_PER_SECOND:
                last = now
                self._show_live("".join(pieces))
        if self._stop.is_set():
            return self._stopped(stream)
        return stream.final()

    def _stopped(self, stream: Any) -> Any:
        stream.close()
        partial = stream.completion.model_copy(deep=True)
        for choice in partial.choices:
            choice.message.tool_calls = None
            choice.finish_reason = "stop"
        if replayed_from_cassette(stream):  # stopped, still the cassette's: marked as its whole answer would be
            mark_replayed(partial)
        self._on_stopped()
        return partial

    async def async_chat_stream(self, stream: Any) -> Any:  # the chat box drives a sync session
        return await stream.final()

    def event(self, event: Any) -> None:
        try:
            key = str(event.call_id or len(self._steps))
            if event.kind == "tool_call":
                self._steps[key] = [event.name, event.arguments, None, "running…"]
            elif event.kind == "tool_result" and key in self._steps:
                self._steps[key][2:] = [event.content or "", event.status or "ok"]
            else:
                return
            self._on_step("".join(render_tool_block_html(*step) for step in self._steps.values()))
        except Exception:  # noqa: BLE001 - a display bug must never lose the user's turn
            pass

    def close(self, error: Optional[BaseException] = None) -> None:
        pass


class ChatBoxDisplay:
    """The display a chat box's session sees: every turn goes to the box; nothing else is shown."""

    def __init__(self, open_turn: Callable[[], BoxTurnView]) -> None:
        self._open_turn = open_turn

    def turn_view(self) -> BoxTurnView:
        return self._open_turn()

    def chat_stream(self, stream: Any) -> Any:
        return stream.final()

    async def async_chat_stream(self, stream: Any) -> Any:
        return await stream.final()

    def job_wait(self, job: Any, wait: Callable[[Any], Any]) -> Any:
        return wait(None)

    def batch_progress(self, total: int) -> Any:
        from gatewaykit.client.core.display import NullBatchProgress

        return NullBatchProgress()

    def offline_notice(self, base_url: str, *, implicit: bool) -> None:
        pass
