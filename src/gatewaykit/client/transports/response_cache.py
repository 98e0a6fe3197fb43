"""``Client(cache=True | path | "refresh")``: identical paid requests answered from a per-user cache.

Built on the cassette machinery, with its own policy: complete 200 answers to paid calls (and their
jobs' finished polls and media) are kept per gateway and key fingerprint, and the latest one answers
the same normalised request; errors, failed jobs and unfinished streams are never kept. A cached
answer is marked (ledger row ``cached``, $0, with what it saved); a damaged file is moved aside with a
:class:`CacheWarning`, so a cache never gives a wrong answer. Details: ``docs/internals.md``.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import threading
import warnings
from pathlib import Path
from typing import Any, Iterable, Optional, Union

from gatewaykit.client.transports.cassette_store import (
    DROPPED_HEADERS,
    _decodes,
    _key,
    _scrub,
    _sha256,
    append_field,
    is_text,
)
from gatewaykit.costs.private_files import create_private_file, make_private_folder, write_private_file
from gatewaykit.errors import ConfigurationError
from gatewaykit.types.replayed import CACHE_MARKER  # what marks a kept answer; displays read it there

__all__ = ["CACHE_MARKER", "CacheWarning", "ResponseCache", "cache_directory"]

FORMAT_VERSION = 1
_INLINE_LIMIT = 32 * 1024  # text bodies larger than this live in media/, so the index file stays small to load
_PAID = re.compile(r"^/v1/(chat/completions|images/(generations|edits)|videos|audio/generations)$")
_JOB_POLL = re.compile(r"^/v1/(videos|audio/generations)/[^/?]+$")
_JOB_CREATION = re.compile(r"^/v1/(videos|audio/generations)$")
_FINISHED = {"completed", "deleted"}  # a poll that answers from the cache
_UNSUCCESSFUL = {"failed", "cancelled"}  # a job whose creation never answers from the cache


class CacheWarning(UserWarning):
    """The response cache could not be used as it is (damaged, or from another version); requests go out."""


def cache_directory(cache: Any) -> Path:
    """Where ``cache=`` keeps its files: a path as given, else ``GATEWAYKIT_CACHE_PATH`` or the user cache dir."""
    if cache is True or cache == "refresh":
        configured = os.environ.get("GATEWAYKIT_CACHE_PATH")
        if configured:
            return Path(configured)
        import platformdirs

        return Path(platformdirs.user_cache_dir("gatewaykit")) / "responses"
    if isinstance(cache, (str, os.PathLike)):
        return Path(cache)
    raise ConfigurationError(
        f"cache= takes True (the per-user cache), a directory, or 'refresh' (send again, keep the new answer); "
        f"got {cache!r}"
    )


def _field(answer: dict[str, Any], body: Optional[bytes], name: str) -> Any:
    """A top-level field of a kept JSON answer (None when it is not JSON or has none)."""
    try:
        return json.loads(body if body is not None else answer.get("text") or "{}").get(name)
    except (ValueError, AttributeError):
        return None


def _is_finished_poll(answer: dict[str, Any], body: Optional[bytes]) -> bool:
    return _field(answer, body, "status") in _FINISHED


class ResponseCache:
    """One partition of the response cache (a gateway and a key); thread-safe. The cassette interface."""

    replay_label = "cached"

    def __init__(self, cache: Any, partition: str) -> None:
        self.directory = cache_directory(cache)
        self.mode = "refresh" if cache == "refresh" else "cache"
        self.path = self.directory / f"{hashlib.sha256(partition.encode()).hexdigest()[:20]}.jsonl"
        self.media_dir = self.directory / "media"
        self._lock = threading.Lock()
        self._index: dict[str, list[dict[str, Any]]] = {}
        self._loaded = False

    def __repr__(self) -> str:
        return f"ResponseCache({str(self.directory)!r}, mode={self.mode!r})"

    # -- loading ------------------------------------------------------------------------
    def _load(self) -> None:
        self._loaded = True
        try:
            text = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return
        except (OSError, UnicodeDecodeError) as exc:
            return self._set_aside(f"it cannot be read ({type(exc).__name__})")
        lines = [line for line in text.split("\n") if line.strip()]
        if not lines:
            return
        try:
            header = json.loads(lines[0])
            version = header.get(CACHE_MARKER) if isinstance(header, dict) else None
        except ValueError:
            version = None
        if version != FORMAT_VERSION:
            return self._set_aside(f"it was written by another version (format {version!r}, this one reads {FORMAT_VERSION})")
        for number, line in enumerate(lines[1:], 2):
            try:
                entry = json.loads(line)
                self._index.setdefault(_key(entry["request"]), []).append(entry["response"])
            except (ValueError, KeyError, TypeError):
                self._index.clear()
                return self._set_aside(f"line {number} is damaged")

    def _set_aside(self, why: str) -> None:
        aside = self.path.with_name(self.path.name + ".unreadable")
        try:
            self.path.replace(aside)
            where = f"moved to {str(aside)!r}"
        except OSError:
            where = "left where it is"
        warnings.warn(
            f"The response cache {str(self.path)!r} is not used: {why}. It was {where}; requests go to the "
            "gateway and new answers start a fresh cache.",
            CacheWarning,
            stacklevel=6,
        )

    # -- the cassette interface ---------------------------------------------------------
    def next_answer(self, request: dict[str, Any]) -> Optional[dict[str, Any]]:
        """The kept answer to this request (the latest; a finished one for a job poll), or None."""
        if self.mode == "refresh" or request["method"] == "GET" and request["url"].startswith("/v1/models"):
            return None
        with self._lock:
            if not self._loaded:
                self._load()
            answers = list(self._index.get(_key(request), ()))
        if not answers:
            return None
        if request["method"] == "GET" and _JOB_POLL.match(request["url"]):
            finished = [a for a in answers if _is_finished_poll(a, self._text_of(a))]
            return finished[-1] if finished else None
        if request["method"] == "POST" and _JOB_CREATION.match(request["url"]):
            for answer in reversed(answers):  # the latest job this request made that did not fail
                if not self._job_failed(request["url"], answer):
                    return answer
            return None
        return answers[-1]

    def _job_failed(self, url: str, creation: dict[str, Any]) -> bool:
        """True when a kept poll of the job ``creation`` started says it failed or was cancelled."""
        job_id = _field(creation, self._text_of(creation), "id")
        if not isinstance(job_id, str):
            return False
        with self._lock:
            polls = list(self._index.get(_key({"method": "GET", "url": f"{url}/{job_id}", "body": None}), ()))
        return any(_field(poll, self._text_of(poll), "status") in _UNSUCCESSFUL for poll in polls)

    def miss(self, request: dict[str, Any]) -> Exception:  # pragma: no cover - a cache never runs in replay mode
        raise AssertionError("a response cache sends what it does not hold")

    def media(self, digest: str) -> bytes:
        if not re.fullmatch(r"[0-9a-f]{64}", str(digest)):
            raise ConfigurationError(f"The response cache {str(self.path)!r} names media {digest!r}, not a SHA-256")
        return (self.media_dir / digest).read_bytes()

    def _text_of(self, answer: dict[str, Any]) -> Optional[bytes]:
        if "media" in answer:
            try:
                return self.media(answer["media"])
            except OSError:
                return None
        return None

    def on_replay(self, answer: dict[str, Any], chunks: list[bytes]) -> list[bytes]:
        """The kept body, marked with what it saves (``gatewaykit_cache.saved_cost``) where it reports a cost."""
        if answer.get("stream"):
            return [_mark_stream_chunk(chunk) for chunk in chunks]
        if len(chunks) == 1 and chunks[0][:1] == b"{" and "saved_cost" in answer:
            return [_append_marker(chunks[0], answer["saved_cost"])]
        if len(chunks) == 1 and chunks[0][:1] == b"{":
            return [_mark_json(chunks[0])]
        return chunks

    def write(
        self, request: dict[str, Any], status: int, headers: Iterable[tuple[str, str]], chunks: list[bytes],
        secrets: Iterable[str] = (), broken: bool = False, complete: bool = True,
    ) -> None:  # fmt: skip
        """Keep one exchange when the policy says so (a 200 or a redirect, whole, of a paid call or its job).

        ``complete``: False when the caller closed the body before its end: not kept (a stream's Stop),
        unless it is an event stream whose ``data: [DONE]`` arrived (the client closes after it).
        """
        url = request["url"]
        kept = (request["method"] == "POST" and _PAID.match(url) and status == 200) or (
            request["method"] == "GET" and not url.startswith("/v1/models") and status in (200, 302)
        )
        if not kept or broken or not (complete or _stream_done(chunks)):
            return
        secrets = [s for s in secrets if s]
        response: dict[str, Any] = {"status": status, "headers": [], "stream": False}
        content_type = ""
        for name, value in headers:
            lowered = name.lower()
            if lowered in DROPPED_HEADERS or lowered.startswith("x-gatewaykit-"):
                continue
            if lowered == "content-type":
                content_type = value
            response["headers"].append([lowered, _scrub(value, secrets)])
        body = b"".join(chunks)
        if body[:1] == b"{" and request["method"] == "POST":
            try:  # what a replay saves, worked out once (a megabyte of image JSON is not parsed per hit)
                response["saved_cost"] = _saved(json.loads(body))
            except ValueError:
                pass
        if "text/event-stream" in content_type and _decodes(chunks):
            response["stream"] = True
            response["chunks"] = [_scrub(chunk.decode("utf-8"), secrets) for chunk in chunks]
        elif is_text(content_type) and _decodes([body]) and len(body) <= _INLINE_LIMIT or not body:
            response["text"] = _scrub(body.decode("utf-8"), secrets)
        else:
            for secret in secrets:
                body = body.replace(secret.encode(), b"*" * len(secret.encode()))
            response["media"] = self._store_media(body)
        line = _scrub(json.dumps({"request": request, "response": response}, ensure_ascii=False), secrets)
        with self._lock:
            if not self._loaded:
                self._load()
            make_private_folder(self.directory)  # 0700 / 0600: the cache holds prompts and answers
            create_private_file(self.path)
            new = self.path.stat().st_size == 0
            with self.path.open("a", encoding="utf-8") as out:
                if new:
                    out.write(json.dumps({CACHE_MARKER: FORMAT_VERSION}) + "\n")
                out.write(line + "\n")
            self._index.setdefault(_key(request), []).append(response)

    def _store_media(self, data: bytes) -> str:
        digest = _sha256(data)
        target = self.media_dir / digest
        if not target.exists():
            make_private_folder(self.media_dir)
            partial = target.with_name(f"{digest}.{os.getpid()}.{threading.get_ident()}.part")
            write_private_file(partial, data)
            partial.replace(target)
        return digest


def _stream_done(chunks: list[bytes]) -> bool:
    """True when an event stream's terminator, ``data: [DONE]``, is among its last chunks."""
    return b"data: [DONE]" in b"".join(chunks[-3:])


def _saved(payload: dict[str, Any]) -> Optional[float]:
    cost = (payload.get("usage") or {}).get("cost") if isinstance(payload.get("usage"), dict) else None
    if isinstance(cost, dict):
        cost = cost.get("total_cost")
    return float(cost) if isinstance(cost, (int, float)) and not isinstance(cost, bool) else None


def _mark_json(body: bytes) -> bytes:
    try:
        payload = json.loads(body)
    except ValueError:
        return body
    if not isinstance(payload, dict):
        return body
    payload[CACHE_MARKER] = {"saved_cost": _saved(payload)}
    return json.dumps(payload, ensure_ascii=False).encode("utf-8")


def _append_marker(body: bytes, saved: Optional[float]) -> bytes:
    """``{...}`` with ``"gatewaykit_cache": {"saved_cost": ...}`` added as its last field: one copy, no parsing."""
    return append_field(body, CACHE_MARKER, {"saved_cost": saved})


def _mark_stream_chunk(chunk: bytes) -> bytes:
    """Mark the event that carries usage (the final chunk of a chat stream, an image's completed event)."""
    if b'"usage"' not in chunk:
        return chunk
    lines = chunk.decode("utf-8").split("\n")
    for i, line in enumerate(lines):
        if line.startswith("data: {") and '"usage"' in line:
            lines[i] = "data: " + _mark_json(line[6:].encode("utf-8")).decode("utf-8")
    return "\n".join(lines).encode("utf-8")
