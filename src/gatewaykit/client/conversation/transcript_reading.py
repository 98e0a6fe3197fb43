"""Reading a Markdown transcript back (:func:`~gatewaykit.client.conversation.transcript.from_markdown`).

The rule: what comes back (and a session then sends) is what a reader of the
Markdown sees. Each message block must be exactly what ``to_markdown`` writes
for the message its hidden comment holds; roles and fields are those a block
shows; the transcript starts with its header, whose model the title names,
followed only by the cost line (and the lines saying how many turns were not
charged); a reply's label may add only the words of a turn not charged now
(replayed from a cassette, cached), which are no part of the message. Anything
else is a ``ValueError`` naming the message and what to do.
"""

from __future__ import annotations

import json
import re
from typing import Any

from gatewaykit.client.conversation.transcript import (
    _HEAD, _LABELS, _MARKER, _MESSAGE, NOT_CHARGED_LABEL, NOT_CHARGED_LINE, _block, _extras, _needs_fence, _title,
)  # fmt: skip

__all__ = ["from_markdown", "read_markdown"]

_ROLE_FIELDS = {
    "system": {"role", "content"},
    "user": {"role", "content"},
    "assistant": {"role", "content", "tool_calls", "reasoning_details"},
    "tool": {"role", "content", "tool_call_id"},
}

# What may stand between the title and the first message: the cost line to_markdown writes, and its lines
# saying how many turns were not charged.
_PREAMBLE = re.compile(r"\n(?:\*\d+ messages · \$[^\n<>`\[\]]* reported\*\n\n)?"
                       rf"(?:\*{NOT_CHARGED_LINE.pattern}\*\n\n)*")  # fmt: skip
_REPLY_LABEL = f"### {_LABELS['assistant']} · "


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


def _label_note(message: dict[str, Any], label: str) -> str:
    """The words a reply's label adds for a turn not charged now ("" for none, or for any other words)."""
    if message.get("role") != "assistant" or not label.startswith(_REPLY_LABEL):
        return ""
    note = label[len(_REPLY_LABEL) :]
    return note if NOT_CHARGED_LABEL.fullmatch(note) else ""


def _check_shown(blocks: list[tuple[dict[str, Any], str, str]]) -> None:
    """Each message's block must be exactly what to_markdown writes for it: what is sent is what is seen."""
    names: dict[str, str] = {}
    for message, _, _ in blocks:
        for call in message.get("tool_calls") or []:
            names[str(call.get("id"))] = str((call.get("function") or {}).get("name"))
    for number, (message, shown, note) in enumerate(blocks, 1):
        if _block(message, names, note) == shown:
            continue
        content = message.get("content")
        why = ("its text holds HTML, a comment or a link definition, which a Markdown view does not show; "
               "put it in a code fence" if isinstance(content, str) and _needs_fence(content)
               else "its hidden comment holds other content, fields or tool calls than the Markdown shows")  # fmt: skip
        raise ValueError(
            f"Message {number} ({message.get('role')}) of the transcript is not sent as a reader would see it: "
            f"{why}. Edit only the visible text, or re-export the transcript with chat.to_markdown()."
        )


def read_markdown(text: str) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """``(messages, header fields)`` of a transcript written by :func:`to_markdown`; ValueError if it is not one,
    or if what it would send differs from what a reader of the Markdown sees (see the module docstring)."""
    if not isinstance(text, str):
        raise TypeError(f"from_markdown() takes the transcript's text (a str), not {type(text).__name__}")
    header: dict[str, Any] = {}
    start = text.find(_HEAD)
    if start >= 0:
        header = _header(text, start)
    messages: list[dict[str, Any]] = []
    blocks: list[tuple[dict[str, Any], str, str]] = []
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
        note = _label_note(message, text[marker.end() + 1 : label_end])
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
            blocks.append((message, text[block_start : marker.start()], note))
    if marker is None and messages:
        raise ValueError("Not a gatewaykit transcript: it has no end comment")
    if messages and start < 0:
        raise ValueError("Not a gatewaykit transcript: it has no conversation comment before its messages; "
                         "write one with chat.to_markdown()")  # fmt: skip
    _check_shown(blocks)
    if not messages and start < 0:
        raise ValueError("Not a gatewaykit transcript (no gatewaykit comments found); write one with chat.to_markdown()")
    return messages, header


def from_markdown(text: str) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """``(messages, header fields)`` of a transcript written by ``to_markdown``; ValueError if it is not one,
    or if what it would send differs from what a reader of the Markdown sees (see transcript.py's docstring)."""
    return read_markdown(text)
