"""Conversation transcripts: Markdown that reads well and reads back exactly, plain text, JSON, HTML.

The Markdown transcript puts one HTML comment before each message (invisible
when rendered) holding the message's fields as JSON, then a visible label and
the content. Content is written as-is when that is safe, and inside a fence
longer than any backtick run in it when it is not (it contains a line like
our comments, or an unbalanced code fence), so headings, code fences and
anything else a model writes survive the round trip. A final comment marks the
end, so trailing whitespace of the last message is kept too.

What :func:`from_markdown` gives back (and a session then sends) is what a
reader of the Markdown sees: every message block must be exactly what
:func:`to_markdown` writes for the message its comment holds, so a comment
cannot swap in other content, add a message nobody sees (a hidden system
prompt), or carry fields that are not shown. A message's tool calls and
reasoning are shown above its text; content a Markdown view would hide (HTML,
comments, link definitions) is written in a code fence, where it is seen as
written. Anything else is a ``ValueError`` naming the message.
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


# Markdown a reader does not see as written: raw HTML and comments, link reference definitions.
_HIDDEN = re.compile(r"<[A-Za-z!/?]|^ {0,3}\[[^\]\n]+\]:", re.M)
_ROLE_FIELDS = {
    "system": {"role", "content"},
    "user": {"role", "content"},
    "assistant": {"role", "content", "tool_calls", "reasoning_details"},
    "tool": {"role", "content", "tool_call_id"},
}


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
    return f"{ticks} {text} {ticks}" if text else ""


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


def _block(message: dict[str, Any], names: dict[str, str]) -> str:
    label = _LABELS.get(str(message.get("role")), _one_line(message.get("role")))
    if message.get("role") == "tool":
        label += f" · {_name(names.get(str(message.get('tool_call_id')), 'tool'))}"
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


def to_markdown(messages: list[dict[str, Any]], *, model: Optional[str] = None, cost: Optional[float] = None) -> str:
    """The messages as a Markdown transcript (see the module docstring)."""
    names: dict[str, str] = {}
    for message in messages:
        for call in message.get("tool_calls") or []:
            if isinstance(call, dict):
                names[str(call.get("id"))] = str((call.get("function") or {}).get("name"))
    head = {"version": 1, "model": model}
    lines = [f"{_HEAD}{_comment_json(head)} -->", _title(model), ""]
    if cost is not None:
        lines += [f"*{len(messages)} messages · ${cost:.6f} reported*", ""]
    return "\n".join(lines) + "\n" + "".join(_block(m, names) for m in messages) + _END + "\n"


def _title(model: Optional[str]) -> str:
    return f"# Conversation with {_name(model)}" if model else "# Conversation"


# What may stand between the title and the first message: the cost line to_markdown writes.
_PREAMBLE = re.compile(r"\n(?:\*\d+ messages · \$[^\n<>`\[\]]* reported\*\n\n)?")


def _header(text: str, start: int) -> dict[str, Any]:
    """The conversation comment's fields; its model must be the one the visible title names.

    The transcript starts with it (only white space before), so nothing before the
    first message can hide what follows (an opened HTML comment would hide every message).
    """
    if text[:start].strip():
        raise ValueError("A gatewaykit transcript starts with its conversation comment; this one has text "
                         "before it (which could hide the messages from a reader). Re-export it with chat.to_markdown().")  # fmt: skip
    line_end = text.find(" -->", start)
    try:
        header = json.loads(text[start + len(_HEAD) : line_end])
    except (ValueError, RecursionError):
        raise ValueError("Not a gatewaykit transcript: its conversation comment is not JSON") from None
    model = header.get("model") if isinstance(header, dict) else 0
    if model is not None and not isinstance(model, str):
        raise ValueError("Not a gatewaykit transcript: its conversation comment names no model")
    title = _title(model)
    after = line_end + len(f" -->\n{title}\n")
    next_message = text.find(_MESSAGE, after)
    if not text.startswith(f" -->\n{title}\n", line_end) or (
        next_message >= 0 and not _PREAMBLE.fullmatch(text, after, next_message)
    ):
        raise ValueError(
            f"The transcript's head is not what a reader should see: its title must name the model its hidden "
            f"comment holds ({model!r}), followed only by the cost line, so nothing hides the conversation or "
            "its model. Re-export it with chat.to_markdown()."
        )
    return header


def _check_fields(message: dict[str, Any], number: int) -> None:
    """Only the fields a reader sees, of a known role, with the types the Markdown shows."""
    role = message.get("role")
    allowed = _ROLE_FIELDS.get(role) if isinstance(role, str) else None
    if allowed is None:
        raise ValueError(f"Message {number} of the transcript has role {role!r}; a transcript holds "
                         f"{', '.join(_ROLE_FIELDS)} messages")  # fmt: skip
    hidden = sorted(set(message) - allowed)
    if hidden:
        raise ValueError(f"Message {number} ({role}) carries fields a reader does not see: {', '.join(hidden)}. "
                         "Remove them from its comment, or re-export the transcript with chat.to_markdown().")  # fmt: skip
    if not isinstance(message.get("content"), (str, list, type(None))):
        raise ValueError(f"Message {number} ({role}): content must be text, a list of parts or null")
    for call in message.get("tool_calls") or []:
        function = call.get("function") if isinstance(call, dict) else None
        if (not isinstance(function, dict) or set(call) - {"id", "type", "function"}
                or set(function) - {"name", "arguments"}
                or not all(isinstance(function.get(k), str) for k in ("name", "arguments"))):
            raise ValueError(f"Message {number} (assistant): a tool call must be "
                             '{"id", "type", "function": {"name": str, "arguments": str}} and nothing else')  # fmt: skip


def _check_shown(blocks: list[tuple[dict[str, Any], str]]) -> None:
    """Each message's block must be exactly what to_markdown writes for it: what is sent is what is seen."""
    names: dict[str, str] = {}
    for message, _ in blocks:
        for call in message.get("tool_calls") or []:
            names[str(call.get("id"))] = str((call.get("function") or {}).get("name"))
    for number, (message, shown) in enumerate(blocks, 1):
        if _block(message, names) == shown:
            continue
        content = message.get("content")
        why = ("its text holds HTML, a comment or a link definition, which a Markdown view does not show; "
               "put it in a code fence" if isinstance(content, str) and _needs_fence(content)
               else "its hidden comment holds other content, fields or tool calls than the Markdown shows")  # fmt: skip
        raise ValueError(
            f"Message {number} ({message.get('role')}) of the transcript is not sent as a reader would see it: "
            f"{why}. Edit only the visible text, or re-export the transcript with chat.to_markdown()."
        )


def from_markdown(text: str) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """``(messages, header fields)`` of a transcript written by :func:`to_markdown`; ValueError if it is not one,
    or if what it would send differs from what a reader of the Markdown sees (see the module docstring)."""
    if not isinstance(text, str):
        raise TypeError(f"from_markdown() takes the transcript's text (a str), not {type(text).__name__}")
    header: dict[str, Any] = {}
    start = text.find(_HEAD)
    if start >= 0:
        header = _header(text, start)
    messages: list[dict[str, Any]] = []
    blocks: list[tuple[dict[str, Any], str]] = []
    marker = _MARKER.search(text)
    while marker is not None and marker.group(1) == "message":
        block_start = marker.start()
        try:
            meta = json.loads(marker.group(2))
            message = dict(meta["message"])
        except (ValueError, KeyError, TypeError, RecursionError) as exc:
            raise ValueError(f"Not a gatewaykit transcript: a message comment does not hold a message ({exc})") from None
        _check_fields(message, len(messages) + 1)
        label_end = text.find("\n\n", marker.end() + 1)
        if label_end < 0:
            raise ValueError("Not a gatewaykit transcript: a message has no label line")
        position = label_end + 2
        extras = _extras(message)
        if extras and "content" not in message:  # the text follows what is shown above it
            if not text.startswith(extras + "\n\n", position):
                raise ValueError(f"Message {len(messages) + 1} ({message['role']}) of the transcript does not show "
                                 "the tool calls its hidden comment holds. Re-export it with chat.to_markdown().")  # fmt: skip
            position += len(extras) + 2
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
        if marker is not None:
            blocks.append((message, text[block_start : marker.start()]))
    if marker is None and messages:
        raise ValueError("Not a gatewaykit transcript: it has no end comment")
    if messages and start < 0:
        raise ValueError("Not a gatewaykit transcript: it has no conversation comment before its messages; "
                         "write one with chat.to_markdown()")  # fmt: skip
    _check_shown(blocks)
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
