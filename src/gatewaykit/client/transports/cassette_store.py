"""A cassette on disk: recorded exchanges as JSON lines, media beside them, and request matching.

Requests are stored normalised (method, path, sorted query, canonical JSON body, files by SHA-256),
which is also how they are matched; no request header is written, so no key can reach the file.
Binary bodies go to ``<cassette>.media/<sha256>`` and a ``media`` value must be such a digest (never a
path). Identical requests replay in recorded order, the last answer repeating. The line format:
``docs/internals.md``.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import re
import threading
from pathlib import Path
from typing import Any, Iterable, Optional, Union
from urllib.parse import parse_qsl, urlencode, urlsplit

from gatewaykit.errors import CassetteMissError, ConfigurationError
from gatewaykit.types.replayed import REPLAY_MARKER

__all__ = [
    "ANSWERED_BY", "MODES", "REPLAYED_HEADER", "REPLAY_BASE_URL", "REPLAY_MARKER", "Cassette", "append_field",
    "normalise_request",
]  # fmt: skip

MODES = ("auto", "record", "replay")
REPLAYED_HEADER = "x-gatewaykit-cassette"
# REPLAY_MARKER (gatewaykit.types.replayed): the field a replayed JSON answer gains (``"gatewaykit_cassette":
# "replayed"``): what tells a display that the answer was not bought again (as ``gatewaykit_cache`` does for the
# response cache); the recorded body is unchanged.
# The httpx response extension the client's own cassette or cache sets on what it answers ("replayed",
# "cached"). The ledger trusts only this: a header can come from the network, an extension cannot.
ANSWERED_BY = "gatewaykit_answered_by"
# The base URL of a replay-only client: nothing is ever sent to it.
REPLAY_BASE_URL = "http://replay.cassette.invalid"
# JSON body fields left out of the match key.
VOLATILE_FIELDS = frozenset({"stream_options"})
# Response headers never written (secrets, or framing that no longer applies to the stored body).
DROPPED_HEADERS = frozenset(
    {"set-cookie", "cookie", "authorization", "proxy-authorization", "content-length", "transfer-encoding",
     "connection", "keep-alive"}
)  # fmt: skip


_DIGEST = re.compile(r"[0-9a-f]{64}")


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def normalise_url(url: str, base_url: str) -> str:
    """The path and sorted query; scheme and host too only when not the gateway's own origin."""
    parts, base = urlsplit(url), urlsplit(base_url)
    query = urlencode(sorted(parse_qsl(parts.query, keep_blank_values=True)))
    tail = parts.path + (f"?{query}" if query else "")
    if (parts.scheme, parts.netloc) == (base.scheme, base.netloc):
        return tail
    return f"{parts.scheme}://{parts.netloc}{tail}"


def _multipart(body: bytes, content_type: str) -> dict[str, Any]:
    """Field values and file digests of a multipart/form-data body (parts in order per name)."""
    boundary = content_type.split("boundary=", 1)[1].split(";", 1)[0].strip().strip('"').encode()
    fields: dict[str, list[Any]] = {}
    for part in body.split(b"--" + boundary)[1:]:
        if part.startswith(b"--"):
            break
        head, _, value = part.strip(b"\r\n").partition(b"\r\n\r\n")
        raw = head.decode("utf-8", "replace")
        headers = raw.lower()
        at = headers.find(' name="')
        name = raw[at + 7 :].split('"', 1)[0] if at >= 0 else ""
        if "filename=" in headers:
            kind = headers.partition("content-type:")[2].split("\r\n", 1)[0].strip()
            fields.setdefault(name, []).append({"file_sha256": _sha256(value), "content_type": kind})
        else:
            fields.setdefault(name, []).append(value.decode("utf-8", "replace"))
    return {"multipart": {name: values[0] if len(values) == 1 else values for name, values in sorted(fields.items())}}


def normalise_body(body: bytes, content_type: str) -> Any:
    if not body:
        return None
    if content_type.startswith("multipart/form-data") and "boundary=" in content_type:
        return _multipart(body, content_type)
    try:
        parsed = json.loads(body)
    except ValueError:
        return {"sha256": _sha256(body)}
    if isinstance(parsed, dict):
        parsed = {key: value for key, value in parsed.items() if key not in VOLATILE_FIELDS}
    return parsed


def normalise_request(method: str, url: str, base_url: str, content_type: str, body: bytes) -> dict[str, Any]:
    """What is written for a request, and what it is matched on."""
    return {"method": method.upper(), "url": normalise_url(url, base_url), "body": normalise_body(body, content_type)}


def _key(request: dict[str, Any]) -> str:
    return json.dumps([request["method"], request["url"], request.get("body")], sort_keys=True, ensure_ascii=False)


def is_text(content_type: str) -> bool:
    kind = content_type.split(";", 1)[0].strip().lower()
    return kind.startswith("text/") or kind == "application/json" or kind.endswith("+json")


class Cassette:
    """One cassette file and its media folder; thread-safe."""

    def __init__(self, path: Union[str, os.PathLike], mode: str = "auto") -> None:
        if mode not in MODES:
            raise ConfigurationError(f"cassette_mode must be one of {', '.join(map(repr, MODES))} (got {mode!r})")
        self.path = Path(path)
        self.mode = mode
        # How a miss tells to set the mode: the keyword, or the grader's GATEWAYKIT_CASSETTE_MODE.
        self.mode_setting = "cassette_mode='{}'"
        self.media_dir = self.path.with_name(self.path.name + ".media")
        self._lock = threading.Lock()
        self._recorded: dict[str, list[dict[str, Any]]] = {}
        self._played: dict[str, int] = {}
        self._fresh = mode == "record"  # record mode starts the file afresh at its first write
        self._open_line = False
        if mode == "replay" and not self.path.exists():
            raise ConfigurationError(
                f"No cassette at {str(self.path)!r} to replay. Record it first with a key: "
                f"gk.Client(cassette={str(self.path)!r}, cassette_mode='record')"
            )
        if mode != "record" and self.path.exists():
            self._load()

    def __repr__(self) -> str:
        return f"Cassette({str(self.path)!r}, mode={self.mode!r})"

    def on_replay(self, answer: dict[str, Any], chunks: list[bytes]) -> list[bytes]:
        """A replayed answer that reports usage (a paid call's JSON) marked ``"gatewaykit_cassette": "replayed"``
        (its last field), so its display says it was replayed and not charged; a stream (its ledger hand-over
        says so), media, a model list and anything else as recorded."""
        if answer.get("stream") or len(chunks) != 1 or chunks[0][:1] != b"{" or b'"usage"' not in chunks[0]:
            return chunks
        return [append_field(chunks[0], REPLAY_MARKER, "replayed")]

    def _load(self) -> None:
        text = self.path.read_text(encoding="utf-8")
        self._open_line = bool(text) and not text.endswith("\n")  # hand-edited: the next write starts a line
        for number, line in enumerate(text.split("\n"), 1):  # not splitlines: U+2028 is kept raw
            if not line.strip():
                continue
            try:
                entry = json.loads(line)
                key = _key(entry["request"])
                media = entry["response"].get("media")
            except (ValueError, KeyError, TypeError, AttributeError, RecursionError):
                raise ConfigurationError(
                    f"Cassette {str(self.path)!r}, line {number}: not a recorded exchange; "
                    "re-record it with cassette_mode='record'"
                ) from None
            if media is not None and not _is_digest(media):
                raise ConfigurationError(
                    f"Cassette {str(self.path)!r}, line {number}: its media value {_shown(media)} is not a "
                    f"SHA-256 digest (64 lowercase hex characters naming a file in {self.media_dir.name!r}); "
                    "a cassette's media is never a path. Re-record the cassette, or do not use this file."
                )
            self._recorded.setdefault(key, []).append(entry)

    # -- replay -------------------------------------------------------------------------
    def next_answer(self, request: dict[str, Any]) -> Optional[dict[str, Any]]:
        """The recorded response for this request, in recorded order (the last one repeats); None if none."""
        key = _key(request)
        with self._lock:
            answers = self._recorded.get(key)
            if not answers:
                return None
            index = self._played.get(key, 0)
            self._played[key] = index + 1
            return answers[min(index, len(answers) - 1)]["response"]

    def miss(self, request: dict[str, Any]) -> CassetteMissError:
        body = request.get("body")
        shown = json.dumps(body, ensure_ascii=False)
        if len(shown) > 300:
            shown = shown[:300] + "…"
        return CassetteMissError(
            f"{request['method']} {request['url']} is not recorded in the cassette {str(self.path)!r} "
            f"(body: {shown}). Replay mode never uses the network. To add it, run this call once "
            f"with a key and {self.mode_setting.format('auto')} (appends what is missing), or re-record the whole "
            f"cassette with {self.mode_setting.format('record')}; or change the call to one the cassette holds.",
            request=request,
        )

    def media(self, digest: Any) -> bytes:
        """The bytes of a recorded body: a file of the media folder, named by and checked against its digest."""
        if not _is_digest(digest):
            raise ConfigurationError(
                f"The cassette {str(self.path)!r} refers to media {_shown(digest)}, which is not a SHA-256 digest; "
                "a cassette's media is never a path. Re-record the cassette."
            )
        target = self.media_dir / digest
        if target.is_symlink() or target.resolve().parent != self.media_dir.resolve():
            raise ConfigurationError(
                f"The cassette's media file {str(target)!r} is a link, not a file of {str(self.media_dir)!r}; "
                "it is not read. Re-record the cassette."
            )
        try:
            data = target.read_bytes()
        except FileNotFoundError:
            raise CassetteMissError(
                f"The cassette {str(self.path)!r} refers to media {digest} but {str(target)!r} is missing: "
                f"ship the {self.media_dir.name!r} folder with the cassette"
            ) from None
        if _sha256(data) != digest:
            raise ConfigurationError(
                f"The cassette's media file {str(target)!r} does not hold what was recorded (its SHA-256 differs "
                "from its name); it was changed after recording. Re-record the cassette."
            )
        return data

    # -- record -------------------------------------------------------------------------
    def write(
        self, request: dict[str, Any], status: int, headers: Iterable[tuple[str, str]], chunks: list[bytes],
        secrets: Iterable[str] = (), broken: bool = False, complete: bool = True,
    ) -> None:  # fmt: skip
        """Append one exchange (the secrets' text replaced wherever it would be written).

        ``complete``: False when the caller closed the body before its end (a stream's
        Stop); a cassette keeps what was read, as it happened.
        """
        secrets = [s for s in secrets if s]
        response: dict[str, Any] = {"status": status, "headers": [], "stream": False}
        content_type = ""
        for name, value in headers:
            lowered = name.lower()
            if lowered in DROPPED_HEADERS:
                continue
            if lowered == "content-type":
                content_type = value
            response["headers"].append([lowered, _scrub(value, secrets)])
        body = b"".join(chunks)
        if "text/event-stream" in content_type:
            response["stream"] = True
            if _decodes(chunks):
                response["chunks"] = [_scrub(chunk.decode("utf-8"), secrets) for chunk in chunks]
            else:  # a chunk boundary split a UTF-8 character: keep the exact bytes
                response["chunks_b64"] = [base64.b64encode(chunk).decode("ascii") for chunk in chunks]
        elif is_text(content_type) and _decodes([body]) or not body:
            response["text"] = _scrub(body.decode("utf-8"), secrets)
        else:
            for secret in secrets:  # same length, so media stays decodable
                body = body.replace(secret.encode(), b"*" * len(secret.encode()))
            response["media"] = self._store_media(body)
        if broken:
            response["broken"] = True
        line = _scrub(json.dumps({"request": request, "response": response}, ensure_ascii=False), secrets)
        with self._lock:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with self.path.open("w" if self._fresh else "a", encoding="utf-8") as out:
                out.write(("\n" if self._open_line and not self._fresh else "") + line + "\n")
            self._fresh = self._open_line = False

    def _store_media(self, data: bytes) -> str:
        digest = _sha256(data)
        target = self.media_dir / digest
        if not target.exists():
            self.media_dir.mkdir(parents=True, exist_ok=True)
            partial = target.with_suffix(".part")
            partial.write_bytes(data)
            partial.replace(target)
        return digest


def _is_digest(value: Any) -> bool:
    return isinstance(value, str) and _DIGEST.fullmatch(value) is not None


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:80] + "…"


def _decodes(chunks: list[bytes]) -> bool:
    try:
        for chunk in chunks:
            chunk.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _scrub(text: str, secrets: list[str]) -> str:
    for secret in secrets:
        text = text.replace(secret, "[redacted]")
    return text


def append_field(body: bytes, name: str, value: Any) -> bytes:
    """The JSON object ``body`` with ``"name": value`` added as its last field (one copy, no parsing); ``body``
    unchanged when it does not end with the object's ``}``."""
    close = body.rfind(b"}")
    if close < 0 or body[close + 1 :].strip():
        return body
    before = body[max(0, close - 64) : close].rstrip()
    separator = b"" if before.endswith(b"{") else b","
    field = json.dumps(name).encode() + b":" + json.dumps(value).encode()
    return b"".join((memoryview(body)[:close], separator, field, b"}"))
