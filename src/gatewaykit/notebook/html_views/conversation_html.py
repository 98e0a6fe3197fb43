"""A whole conversation as HTML: turns, tool calls with their results (collapsible), notes, cost.

A turn the client's cassette replayed or its response cache answered ends with
what its ledger rows say instead of a cost (``replayed from a cassette: not
charged (recorded cost $x)``, ``cached: not sent, not charged (saved $x)``), and
the footer's total says how many turns were not charged (the chat box's words:
:mod:`gatewaykit.client.conversation.turn_costs`).

Pure functions like :mod:`gatewaykit.notebook.html_views.html`: no IPython, no clocks, no
random ids. Model text (and anything read back from a transcript) goes through
the same sanitising Markdown renderer as the live view; tool arguments and
results are escaped. Images in prompts are shown as a placeholder, never
loaded.
"""

from __future__ import annotations

import json
from typing import Any

from gatewaykit.client.conversation.turn_costs import not_charged_turns_text, turn_not_charged_notes
from gatewaykit.notebook.html_views import style
from gatewaykit.notebook.html_views.html import _markdown, _offline_label, offline_content
from gatewaykit.notebook.html_views.style import esc

__all__ = ["render_conversation_html", "render_tool_block_html"]

_ROLE_STYLE = "font-size:0.8em;text-transform:uppercase;letter-spacing:0.05em;" + style.MUTED
_PRE = f"{style.CODE};white-space:pre-wrap;margin:2px 0 6px 0"
_RESULT_CHARS = 4000


def _content_html(content: Any) -> str:
    if isinstance(content, str):
        return _markdown(content)
    if isinstance(content, list):
        pieces = []
        for part in content:
            if isinstance(part, dict) and part.get("type") == "text":
                pieces.append(_markdown(str(part.get("text") or "")))
            else:
                pieces.append(f'<p style="{style.MUTED}"><em>[image]</em></p>')
        return "".join(pieces)
    return ""


def _pretty(arguments: Any) -> str:
    try:
        return json.dumps(json.loads(arguments), indent=2, ensure_ascii=False)
    except (TypeError, ValueError, RecursionError):  # a model's arguments may be anything, 100,000 levels deep too
        return str(arguments or "")


def _clipped(text: str, limit: int = _RESULT_CHARS) -> str:
    if len(text) <= limit:
        return text
    return text[:limit] + f"\n… {len(text) - limit:,} more characters"


def _one_line(arguments: Any, limit: int = 60) -> str:
    """A short preview of the arguments for the summary line: compact JSON, cut."""
    try:
        value = json.loads(arguments)
        text = ", ".join(f"{k}={json.dumps(v, ensure_ascii=False)}" for k, v in value.items()) if isinstance(value, dict) else json.dumps(value)
    except (TypeError, ValueError, RecursionError):
        text = str(arguments or "")
    return text if len(text) <= limit else text[: limit - 1] + "…"


def render_tool_block_html(name: Any, arguments: Any, result: Any, status: str) -> str:
    """One tool call as a collapsible block: name, argument preview and status; inside, the arguments
    pretty-printed and the result (``None`` while it runs), truncated. Everything escaped."""
    if result is None:
        outcome = f'<div style="{style.MUTED}"><em>{esc(status)}</em></div>'
    else:
        text = str(result)
        shown = _pretty(text) if text.lstrip()[:1] in ("{", "[") else text  # JSON results pretty-printed
        outcome = f'<pre style="{_PRE}">{esc(_clipped(shown))}</pre>'
    colour = "#d9534f" if status in ("error", "refused", "unknown") else "inherit"
    return (
        f'<details class="gk-tool-step" data-status="{esc(status)}" style="margin:2px 0 4px 0">'
        f'<summary style="cursor:pointer"><code style="{style.CODE}">{esc(name or "?")}({esc(_one_line(arguments))})</code> '
        f'<span style="{style.MUTED};color:{colour}">{esc(status)}</span></summary>'
        f'<div style="padding-left:1em;border-left:2px solid rgba(128,128,128,0.4)">'
        f'<div style="{style.MUTED}">arguments</div><pre style="{_PRE}">{esc(_clipped(_pretty(arguments)))}</pre>'
        f'<div style="{style.MUTED}">result</div>{outcome}</div></details>'
    )


def _tool_call_html(call: dict[str, Any], result: Any) -> str:
    function = call.get("function") or {}
    if result is None:
        return render_tool_block_html(function.get("name"), function.get("arguments"), None, "no result")
    text = str(result.get("content") or "")
    flag = "error" if text.startswith("Error:") else ("refused" if "did not approve" in text else "ok")
    return render_tool_block_html(function.get("name"), function.get("arguments"), text, flag)


def _message_html(message: dict[str, Any], results: dict[str, dict[str, Any]]) -> str:
    role = str(message.get("role") or "")
    if role == "tool":
        return ""  # shown with the call it answers
    body = _content_html(message.get("content"))
    calls = [call for call in message.get("tool_calls") or [] if isinstance(call, dict)]
    body += "".join(_tool_call_html(call, results.get(str(call.get("id")))) for call in calls)
    if not body:
        body = f'<p style="{style.MUTED}"><em>(no content)</em></p>'
    return (
        f'<div class="gk-message gk-{esc(role)}" style="margin:0.4em 0">'
        f'<div style="{_ROLE_STYLE}">{esc(role)}</div>{body}</div>'
    )


def render_conversation_html(session: Any) -> str:
    """The session's conversation as one HTML block."""
    messages = session._history()
    results = {str(m.get("tool_call_id")): m for m in messages if m.get("role") == "tool"}
    opening = max(0, len(messages) - sum(len(turn.messages) for turn in session.turns))  # the system message
    blocks = [_message_html(message, results) for message in messages[:opening]]
    for turn in session.turns:
        blocks += [_message_html(message, results) for message in turn.messages]
        said = turn_not_charged_notes(turn)
        if said:  # not charged now: what its ledger rows say, where a turn's cost would stand
            blocks.append(f'<div class="gk-turn-cost" style="{style.FOOTER}">{esc(" · ".join(said))}</div>')
    notes = [turn.note for turn in session.turns if turn.note]
    blocks += [f'<p style="{style.MUTED}"><em>{esc(note)}</em></p>' for note in notes]
    if not messages:
        blocks.append(f'<p style="{style.MUTED}"><em>(no messages yet)</em></p>')
    usage = session.usage
    turns, requests = len(session.turns), session.requests
    # Answers the offline gateway made say so (as each answer's own footer does): "synthetic (offline gateway)".
    offline = next((kind for turn in session.turns for c in turn.completions if (kind := offline_content(c))), None)
    parts = [esc(session.model or "default model"), _offline_label(offline), f"{turns} turn{'' if turns == 1 else 's'}",
             f"{requests} request{'' if requests == 1 else 's'}", f"{usage.total_tokens:,} tokens",
             esc(style.format_cost(session.cost)), esc(not_charged_turns_text(session.turns))]  # fmt: skip
    # Amounts carry "$" (two in one footer when turns were not charged): keep MathJax from reading them as maths.
    return (f'<div class="gk-conversation {style.NO_MATH}" style="{style.BOX}">' + "".join(blocks) + style.footer(parts)
            + "</div>")  # fmt: skip
