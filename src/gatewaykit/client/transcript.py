"""Conversation transcripts: Markdown that reads well and reads back exactly, plain text, JSON, HTML.

The Markdown transcript puts one HTML comment before each message (invisible
when rendered) holding the message's fields as JSON, then a visible label and
the content. Content is written as-is when that is safe, and inside a fence
longer than any backtick run in it when it is not (it contains a line like
our comments, or an unbalanced code fence), so headings, code fences and
anything else a model writes survive the round trip. A final comment marks the
end, so trailing whitespace of the last message is kept too.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Optional

from gatewaykit.errors import ConfigurationError
from gatewaykit.presentation import rich_bundle

__all__ = ["export", "from_markdown", "to_markdown", "to_text"]

_HEAD = "<!-- gatewaykit:conversation "
_MESSAGE = "<!-- gatewaykit:message "
_END = "<!-- gatewaykit:end -->"
_MARKER = re.compile(r"^<!-- gatewaykit:(message|end)(?: (.*))? -->$", re.M)
_FENCE_LINE = re.compile(r"^ {0,3}(`{3,}|~{3,})", re.M)
_LABELS = {"system": "System", "user": "User", "assistant": "Assistant", "tool": "Tool result"}


def _comment_json(value: Any) -> str:
    # One line; '<' and '>' escaped so the JSON can never close the comment.
    return json.dumps(value, ensure_ascii=False).replace("<", "\\u003c").replace(">", "\\u003e")


def _needs_fence(text: str) -> bool:
    return "<!-- gatewaykit:" in text or len(_FENCE_LINE.findall(text)) % 2 == 1


def _fence_for(text: str) -> str:
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    return "`" * max(4, longest + 1)


def _call_summary(calls: list[Any]) -> str:
    lines = []
    for call in calls:
        function = call.get("function") or {} if isinstance(call, dict) else {}
        arguments = str(function.get("arguments") or "")
        lines.append(f"- tool call `{_one_line(function.get('name'))}` {_inline_code(arguments)}")
    return "\n".join(lines)


def _one_line(value: Any) -> str:
    return " ".join(str(value or "?").split())[:200]


def _inline_code(text: str) -> str:
    text = " ".join(text.split())
    ticks = "`" * (max((len(r) for r in re.findall(r"`+", text)), default=0) + 1)
    # CommonMark strips one space on each side; pad only when a backtick at an edge needs it.
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{ticks}{pad}{text}{pad}{ticks}" if text else ""


def _parts_summary(parts: list[Any]) -> str:
    shown = []
    for part in parts:
        if isinstance(part, dict) and part.get("type") == "text":
            shown.append(str(part.get("text") or ""))
        else:
            shown.append("*[image]*")
    return "\n\n".join(shown)


def _block(message: dict[str, Any], names: dict[str, str]) -> str:
    label = _LABELS.get(str(message.get("role")), _one_line(message.get("role")))
    if message.get("role") == "tool":
        label += f" · {_one_line(names.get(str(message.get('tool_call_id')), 'tool'))}"
    content = message.get("content")
    meta: dict[str, Any] = {"message": {k: v for k, v in message.items() if k != "content" or not isinstance(v, str)}}
    if isinstance(content, str):
        body = content
        if _needs_fence(content):
            fence = meta["fence"] = _fence_for(content)
            body = f"{fence}\n{content}\n{fence}"
    elif isinstance(content, list):
        body = _parts_summary(content)
    else:
        body = _call_summary(message.get("tool_calls") or []) or "*(no content)*"
    if isinstance(content, list) or content is None:
        # The body is only for reading; the content is in the comment. Keep it from looking like our markers.
        body = body.replace("<!-- gatewaykit:", "<!-- gatewaykit :")
    return f"{_MESSAGE}{_comment_json(meta)} -->\n### {label}\n\n{body}\n\n"


def to_markdown(messages: list[dict[str, Any]], *, model: Optional[str] = None, cost: Optional[float] = None) -> str:
    """The messages as a Markdown transcript (see the module docstring)."""
    names: dict[str, str] = {}
    for message in messages:
        for call in message.get("tool_calls") or []:
            if isinstance(call, dict):
                names[str(call.get("id"))] = str((call.get("function") or {}).get("name"))
    head = {"version": 1, "model": model}
    title = f"# Conversation with {_one_line(model)}" if model else "# Conversation"
    lines = [f"{_HEAD}{_comment_json(head)} -->", title, ""]
    if cost is not None:
        lines += [f"*{len(messages)} messages · ${cost:.6f} reported*", ""]
    return "\n".join(lines) + "\n" + "".join(_block(m, names) for m in messages) + _END + "\n"


def from_markdown(text: str) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """``(messages, header fields)`` of a transcript written by :func:`to_markdown`; ValueError if it is not one."""
    if not isinstance(text, str):
        raise TypeError(f"from_markdown() takes the transcript's text (a str), not {type(text).__name__}")
    header: dict[str, Any] = {}
    start = text.find(_HEAD)
    if start >= 0:
        line_end = text.find(" -->", start)
        header = json.loads(text[start + len(_HEAD) : line_end])
    messages: list[dict[str, Any]] = []
    marker = _MARKER.search(text)
    while marker is not None and marker.group(1) == "message":
        try:
            meta = json.loads(marker.group(2))
            message = dict(meta["message"])
        except (ValueError, KeyError, TypeError) as exc:
            raise ValueError(f"Not a gatewaykit transcript: a message comment does not hold a message ({exc})") from None
        label_end = text.find("\n\n", marker.end() + 1)
        if label_end < 0:
            raise ValueError("Not a gatewaykit transcript: a message has no label line")
        position = label_end + 2
        fence = meta.get("fence")
        if fence:
            opening = position + len(fence) + 1
            closing = text.find("\n" + fence, opening - 1)
            if not text.startswith(fence + "\n", position) or closing < 0:
                raise ValueError("Not a gatewaykit transcript: a fenced message is not closed")
            content = text[opening:closing] if closing >= opening else ""
            position = closing + 1 + len(fence) + 2
            marker = _MARKER.search(text, position)
        else:
            marker = _MARKER.search(text, position)
            if marker is None:
                raise ValueError("Not a gatewaykit transcript: it has no end comment")
            content = text[position : marker.start() - 2]
        if "content" not in message:
            message["content"] = content
        messages.append(message)
    if marker is None and messages:
        raise ValueError("Not a gatewaykit transcript: it has no end comment")
    if not messages and start < 0:
        raise ValueError("Not a gatewaykit transcript (no gatewaykit comments found); write one with chat.to_markdown()")
    return messages, header


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
