"""Conversation transcripts: Markdown that reads well and reads back exactly, plain text, JSON, HTML.

Each message in the Markdown transcript is preceded by an invisible HTML comment holding its fields
as JSON, then a visible label and the content (fenced when it could be misread), so
``ChatSession.from_markdown`` rebuilds the history exactly. Details: ``docs/internals.md``.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Iterable, Mapping, Optional

from gatewaykit.errors import ConfigurationError
from gatewaykit.presentation import rich_bundle
from gatewaykit.money import format_usd
from gatewaykit.client.conversation.turn_costs import not_charged_turns_text
from gatewaykit.types.replayed import CACHED_NOTE, REPLAYED_NOTE

__all__ = ["NOT_CHARGED_LABEL", "NOT_CHARGED_LINE", "export", "from_markdown", "to_markdown", "to_text"]

_HEAD = "<!-- gatewaykit:conversation "
_MESSAGE = "<!-- gatewaykit:message "
_END = "<!-- gatewaykit:end -->"
_MARKER = re.compile(r"^<!-- gatewaykit:(message|end)(?: (.*))? -->$", re.M)
_FENCE_LINE = re.compile(r"^ {0,3}(`{3,}|~{3,})", re.M)
_LABELS = {"system": "System", "user": "User", "assistant": "Assistant", "tool": "Tool result"}
# The words a reply's label and the lines under the cost line may add (types/replayed: the ledger rows' notes).
_AMOUNT = r"\$\d[\d,]*\.\d+"
_NOT_CHARGED = (rf"(?:{re.escape(REPLAYED_NOTE)}(?: \(recorded cost {_AMOUNT}\))?"
                rf"|{re.escape(CACHED_NOTE)}(?: \(saved {_AMOUNT}\))?)")  # fmt: skip
NOT_CHARGED_LABEL = re.compile(rf"{_NOT_CHARGED}(?: · {_NOT_CHARGED})*")
NOT_CHARGED_LINE = re.compile(rf"\d[\d,]* turns? {_NOT_CHARGED}")


def _comment_json(value: Any) -> str:
    # One line; '<' and '>' escaped so the JSON can never close the comment.
    return json.dumps(value, ensure_ascii=False).replace("<", "\\u003c").replace(">", "\\u003e")


# Markdown a reader does not see as written: raw HTML and comments, link reference definitions.
_HIDDEN = re.compile(r"<[A-Za-z!/?]|^ {0,3}\[[^\]\n]+\]:", re.M)
def _needs_fence(text: str) -> bool:
    return "<!-- gatewaykit:" in text or len(_FENCE_LINE.findall(text)) % 2 == 1 or _HIDDEN.search(text) is not None


def _fence_for(text: str) -> str:
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    return "`" * max(4, longest + 1)


def _name(value: Any) -> str:
    name = _one_line(value)
    return f"`{name}`" if re.fullmatch(r"[\w.\-]+", name) else _inline_code(name)


def _call_summary(calls: list[Any]) -> str:
    lines = []
    for call in calls:
        function = call.get("function") or {} if isinstance(call, dict) else {}
        arguments = str(function.get("arguments") or "")
        lines.append(f"- tool call {_name(function.get('name'))} {_inline_code(arguments)}")
    return "\n".join(lines)


def _extras(message: dict[str, Any]) -> str:
    """What a message sends besides its content, shown above it: tool calls, reasoning."""
    lines = [_call_summary(message.get("tool_calls") or [])] if message.get("tool_calls") else []
    if message.get("reasoning_details"):
        reasoning = json.dumps(message["reasoning_details"], ensure_ascii=False)
        lines.append(f"- reasoning {_inline_code(reasoning)}")
    return "\n".join(lines).replace("<!-- gatewaykit:", "<!-- gatewaykit :")


def _one_line(value: Any) -> str:
    return " ".join(str(value or "?").split())[:200]


def _inline_code(text: str) -> str:
    text = " ".join(text.split())
    ticks = "`" * (max((len(r) for r in re.findall(r"`+", text)), default=0) + 1)
    # CommonMark strips one space on each side; pad only when a backtick at an edge needs it.
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{ticks}{pad}{text}{pad}{ticks}" if text else ""


def _parts_summary(parts: list[Any], fenced: bool = False) -> str:
    shown = []
    for part in parts:
        if isinstance(part, dict) and part.get("type") == "text":
            text = str(part.get("text") or "")
            if fenced and _needs_fence(text):
                fence = _fence_for(text)
                text = f"{fence}\n{text}\n{fence}"
            shown.append(text)
        else:
            shown.append("*[image]*")
    return "\n\n".join(shown)


def _block(message: dict[str, Any], names: dict[str, str], note: str = "") -> str:
    label = _LABELS.get(str(message.get("role")), _one_line(message.get("role")))
    if message.get("role") == "tool":
        label += f" · {_name(names.get(str(message.get('tool_call_id')), 'tool'))}"
    if note and message.get("role") == "assistant" and NOT_CHARGED_LABEL.fullmatch(note):
        label += f" · {note}"  # a reply not charged now: what its ledger rows say
    content = message.get("content")
    meta: dict[str, Any] = {"message": {k: v for k, v in message.items() if k != "content" or not isinstance(v, str)}}
    extras = _extras(message)
    if isinstance(content, str):
        body = content
        if _needs_fence(content):
            fence = meta["fence"] = _fence_for(content)
            body = f"{fence}\n{content}\n{fence}"
    elif isinstance(content, list):
        body = _parts_summary(content, fenced=True)
    else:
        body = "" if extras else "*(no content)*"
    if isinstance(content, list) or content is None:
        # The body is only for reading; the content is in the comment. Keep it from looking like our markers.
        body = body.replace("<!-- gatewaykit:", "<!-- gatewaykit :")
    if extras:
        body = extras + "\n\n" + body if content is not None else extras
    return f"{_MESSAGE}{_comment_json(meta)} -->\n### {label}\n\n{body}\n\n"


def to_markdown(
    messages: list[dict[str, Any]],
    *,
    model: Optional[str] = None,
    cost: Optional[float] = None,
    notes: Optional[Mapping[int, str]] = None,
    not_charged: Iterable[str] = (),
) -> str:
    """The messages as a Markdown transcript (see the module docstring).

    ``notes``: by a reply's index in ``messages``, what its label says of a turn not charged now (its ledger
    rows' notes joined by " · "); ``not_charged``: the lines under the cost line (``2 turns replayed from a
    cassette: not charged (recorded cost $x)``, one per source). Words other than those are left out.
    """
    notes = notes or {}
    names: dict[str, str] = {}
    for message in messages:
        for call in message.get("tool_calls") or []:
            if isinstance(call, dict):
                names[str(call.get("id"))] = str((call.get("function") or {}).get("name"))
    head = {"version": 1, "model": model}
    lines = [f"{_HEAD}{_comment_json(head)} -->", _title(model), ""]
    if cost is not None:
        lines += [f"*{len(messages)} messages · {format_usd(cost)} reported*", ""]
    # One line each (one "$" a paragraph: a notebook's MathJax would read "$x ... $y" as maths).
    lines += [item for line in not_charged if NOT_CHARGED_LINE.fullmatch(line) for item in (f"*{line}*", "")]
    blocks = "".join(_block(m, names, notes.get(index, "")) for index, m in enumerate(messages))
    return "\n".join(lines) + "\n" + blocks + _END + "\n"


def _title(model: Optional[str]) -> str:
    return f"# Conversation with {_name(model)}" if model else "# Conversation"


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return _parts_summary(content).replace("*[image]*", "[image]")
    return ""


def to_text(session: Any) -> str:
    """A plain-text view of a session (the display's ``text/plain``)."""
    lines = [repr(session)]
    for message in session._history():
        role = str(message.get("role"))
        text = _text_of(message.get("content"))
        if role == "tool":
            lines.append(f"  tool result [{message.get('tool_call_id')}]: {text[:300]}")
            continue
        if text:
            lines.append(f"{role}: {text}")
        for call in message.get("tool_calls") or []:
            function = call.get("function") or {}
            lines.append(f"  -> {function.get('name')}({function.get('arguments')})")
    for turn in session.turns:
        if turn.note:
            lines.append(f"note: {turn.note}")
    not_charged = not_charged_turns_text(session.turns)
    if not_charged:  # the repr's cost leaves them out
        lines.append(not_charged)
    return "\n".join(lines)


def export(session: Any, path: Path) -> Path:
    suffix = path.suffix.lower()
    if suffix == ".md":
        path.write_text(session.to_markdown(), encoding="utf-8")
    elif suffix == ".json":
        usage = session.usage
        data = {
            "model": session.model,
            "tag": session.tag,
            "cost_usd": session.cost,
            "not_charged": not_charged_turns_text(session.turns) or None,  # turns replayed or cached, at $0
            "usage": {"prompt_tokens": usage.prompt_tokens, "completion_tokens": usage.completion_tokens,
                      "total_tokens": usage.total_tokens},
            "messages": session._history(),
        }  # fmt: skip
        path.write_text(json.dumps(data, indent=2, ensure_ascii=False), encoding="utf-8")
    elif suffix in (".html", ".htm"):
        path.write_text(html_page(session), encoding="utf-8")
    else:
        raise ValueError(f"export() writes .md, .html or .json files, not {path.name!r}")
    return path


def html_page(session: Any) -> str:
    """A standalone HTML document of the conversation; the fragment comes from the presentation layer."""
    from html import escape

    fragment = rich_bundle(session).get("text/html")
    if fragment is None:
        raise ConfigurationError(
            'export() to .html needs the notebook layer (pip install "gatewaykit[notebook]"); '
            ".md and .json need nothing more"
        )
    title = escape(f"Conversation with {session.model}" if session.model else "Conversation")
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>{title}</title></head>"
        f'<body style="max-width:48em;margin:2em auto;padding:0 1em">{fragment}</body></html>\n'
    )
