"""Prompts and answers, kept only when the course chooses (``log_prompts=True``; off by default: then nothing
of a prompt or an answer is stored anywhere).

Each row is under the student's pseudonym, ``HMAC-SHA256(key, student)``
(16 hex digits), never their name; the key is made once and kept in the class's
database (``meta``), so a pseudonym stays the same across restarts and
``room.pseudonym(student)`` can map one name for a review. Media are kept as
their type and size (``[image/png, 48213 bytes]``), never their bytes. Rows
older than ``retention_days`` are deleted (at start, every few minutes while
the class runs, and before the log is read).
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from typing import Any, Optional

import orjson

from gatewaykit.classroom.store import Store

__all__ = ["PSEUDONYM_KEY", "PromptLog", "Transcript", "answer_of", "answer_of_stream", "prompt_of"]

PSEUDONYM_KEY = "prompt_pseudonym_key"
_DATA_URI = re.compile(r"^data:([\w.+-]+/[\w.+-]+)?(;[^,]*)?,")
_MAX_STREAM_BYTES = 4 * 1024 * 1024  # a stream's bytes kept to read its answer's text (more: the text is cut)


def _media(value: str) -> str:
    """``[image/png, 48213 bytes]`` for a data: URI (its decoded size), else ``[link]``."""
    match = _DATA_URI.match(value)
    if match is None:
        return "[link]"
    payload = len(value) - match.end()
    size = payload * 3 // 4 - value.endswith("=") - value.endswith("==") if ";base64" in (match.group(2) or "") \
        else payload
    return f"[{match.group(1) or 'application/octet-stream'}, {size} bytes]"


def _text(value: Any) -> str:
    if isinstance(value, str):
        return _media(value) if value.startswith("data:") else value
    return ""


def prompt_of(kind: str, body: dict[str, Any]) -> str:
    """What the student asked: a chat's messages (``role: text``, media as type and size), or a media
    request's prompt (and its input files as type and size)."""
    if kind == "chat":
        lines = []
        for message in body.get("messages") or []:
            if not isinstance(message, dict):
                continue
            content = message.get("content")
            parts = [content] if isinstance(content, str) else content if isinstance(content, list) else []
            said = []
            for part in parts:
                if isinstance(part, str):
                    said.append(part)
                elif isinstance(part, dict):
                    if isinstance(part.get("text"), str):
                        said.append(part["text"])
                    for name in ("image_url", "file"):
                        inner = part.get(name)
                        url = (inner.get("url") or inner.get("file_data")) if isinstance(inner, dict) else inner
                        if isinstance(url, str):
                            said.append(_media(url))
                    audio = part.get("input_audio")
                    if isinstance(audio, dict) and isinstance(audio.get("data"), str):  # base64, not a data: URI
                        said.append(_media(f"data:audio/{audio.get('format') or 'wav'};base64,{audio['data']}"))
            lines.append(f"{message.get('role', '?')}: {' '.join(said)}")
        return "\n".join(lines)
    said = [_text(body.get("prompt"))]
    for name in ("lyrics_prompt",):
        if isinstance(body.get(name), str):
            said.append(f"{name}: {body[name]}")
    for name, value in body.items():
        if isinstance(value, str) and value.startswith("data:"):
            said.append(f"{name}: {_media(value)}")
    return "\n".join(s for s in said if s)


def answer_of(kind: str, body: Any) -> Optional[str]:
    """The text of a buffered answer (a chat's message; images as type and size)."""
    if not isinstance(body, dict):
        return None
    if kind == "chat":
        texts = []
        for choice in body.get("choices") or []:
            message = choice.get("message") if isinstance(choice, dict) else None
            if isinstance(message, dict) and isinstance(message.get("content"), str):
                texts.append(message["content"])
        return "\n".join(texts)
    items = body.get("data")
    if isinstance(items, list):
        described = []
        for item in items:
            if isinstance(item, dict) and isinstance(item.get("b64_json"), str):
                described.append(_media(f"data:image/{body.get('output_format') or 'png'};base64,"
                                        f"{item['b64_json']}"))
            elif isinstance(item, dict) and item.get("url"):
                described.append("[image link]")
        return " ".join(described)
    if isinstance(body.get("id"), str):
        return f"[{kind} job {body['id']}; its media are not kept]"
    return None


def answer_of_stream(data: bytes) -> Optional[str]:
    """The text a chat stream's chunks carried (``choices[].delta.content``)."""
    texts: list[str] = []
    for line in data.split(b"\n"):
        line = line.strip()
        if not line.startswith(b"data:") or line == b"data: [DONE]":
            continue
        try:
            chunk = orjson.loads(line[5:])
        except orjson.JSONDecodeError:
            continue
        for choice in chunk.get("choices") or [] if isinstance(chunk, dict) else []:
            delta = choice.get("delta") if isinstance(choice, dict) else None
            if isinstance(delta, dict) and isinstance(delta.get("content"), str):
                texts.append(delta["content"])
    return "".join(texts)


class PromptLog:
    """Where prompts go when the course keeps them (see the module's docstring)."""

    max_stream_bytes = _MAX_STREAM_BYTES

    def __init__(self, store: Store, retention_days: float) -> None:
        self.store = store
        self.retention_seconds = retention_days * 86400
        key = store.get_meta(PSEUDONYM_KEY)
        if not key:
            key = secrets.token_hex(32)
            store.set_meta(PSEUDONYM_KEY, key)
        self._key = bytes.fromhex(key)

    def pseudonym(self, student: str) -> str:
        return hmac.new(self._key, student.encode("utf-8", "surrogatepass"), hashlib.sha256).hexdigest()[:16]

    def record(self, at: float, student: str, model: str, kind: str, prompt: str, answer: Optional[str]) -> None:
        self.store.add_prompt(at, self.pseudonym(student), model, kind, prompt, answer)

    def purge(self, now: float) -> int:
        return self.store.purge_prompts(now - self.retention_seconds)


class Transcript:
    """One request's prompt, waiting for its answer: :meth:`answered` keeps both (once)."""

    def __init__(self, log: PromptLog, at: float, student: str, model: str, kind: str, prompt: str) -> None:
        self.log, self.at, self.student, self.model, self.kind, self.prompt = log, at, student, model, kind, prompt
        self._kept = False

    def answered(self, answer: Optional[str]) -> None:
        if not self._kept:
            self._kept = True
            self.log.record(self.at, self.student, self.model, self.kind, self.prompt, answer)
