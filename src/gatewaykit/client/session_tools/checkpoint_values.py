"""What a checkpoint stores: results as JSON data, rebuilt by type, never code.

A checkpoint file may be shared or tampered with, so reading it never runs code (no pickle): a result
is stored when it is a ``ChatCompletion``, ``ImageResult``, ``VideoJob``, ``MusicJob`` or plain JSON data;
anything else is returned but not stored, with a :class:`CheckpointWarning` saying how to store it.
Details: ``docs/internals.md``.
"""

from __future__ import annotations

import json
from typing import Any

from gatewaykit.types import ChatCompletion, ImageResult, MusicJob, VideoJob
from gatewaykit.types.common import GatewayModel

__all__ = ["CheckpointWarning", "NotStorable", "decode_result", "encode_result"]

RESULT_TYPES: dict[str, type[GatewayModel]] = {
    kind.__name__: kind for kind in (ChatCompletion, ImageResult, VideoJob, MusicJob)
}
_MAX_DEPTH = 100


class CheckpointWarning(UserWarning):
    """A checkpointed ``map``/``batch`` could not store a result, or found stored results it will not use."""


class NotStorable(TypeError):
    """A result a checkpoint does not store (the message says what to return instead)."""


def encode_result(value: Any) -> str:
    """``value`` as JSON text; :class:`NotStorable` when it is not a result type or plain JSON data."""
    return json.dumps(_encode(value, 0), ensure_ascii=False, separators=(",", ":"))


def _encode(value: Any, depth: int) -> Any:
    if depth > _MAX_DEPTH:
        raise NotStorable(f"a value nested more than {_MAX_DEPTH} levels deep")
    if value is None or isinstance(value, (bool, int, float, str)) and type(value) in (bool, int, float, str):
        return value
    kind = type(value)
    if kind.__name__ in RESULT_TYPES and RESULT_TYPES[kind.__name__] is kind:
        if kind is ChatCompletion and any(getattr(c.message, "parsed", None) is not None for c in value.choices):
            raise NotStorable(
                "a ChatCompletion from .parse() (its parsed value is your own type, which a checkpoint does not "
                "rebuild); return choices[0].message.parsed.model_dump() to store the data"
            )
        return {"$type": kind.__name__, "data": value.model_dump(mode="json")}
    if kind is list:
        return [_encode(item, depth + 1) for item in value]
    if kind is tuple:
        return {"$tuple": [_encode(item, depth + 1) for item in value]}
    if kind is dict:
        if not all(type(key) is str for key in value):
            raise NotStorable("a dict with keys that are not strings")
        encoded = {key: _encode(item, depth + 1) for key, item in value.items()}
        return {"$dict": encoded} if any(key.startswith("$") for key in value) else encoded
    raise NotStorable(f"a {kind.__module__}.{kind.__qualname__}")


def decode_result(text: str, client: Any = None) -> Any:
    """The result stored as ``text``; ValueError when it is not something :func:`encode_result` writes."""
    try:
        return _decode(json.loads(text), client, 0)
    except RecursionError:
        raise ValueError("nested too deeply") from None


def _decode(data: Any, client: Any, depth: int) -> Any:
    if depth > _MAX_DEPTH + 2:
        raise ValueError("nested too deeply")
    if isinstance(data, list):
        return [_decode(item, client, depth + 1) for item in data]
    if not isinstance(data, dict):
        return data
    if any(key.startswith("$") for key in data):
        if set(data) == {"$tuple"} and isinstance(data["$tuple"], list):
            return tuple(_decode(item, client, depth + 1) for item in data["$tuple"])
        if set(data) == {"$dict"} and isinstance(data["$dict"], dict):
            return {key: _decode(item, client, depth + 1) for key, item in data["$dict"].items()}
        if set(data) == {"$type", "data"} and data["$type"] in RESULT_TYPES:
            result = RESULT_TYPES[data["$type"]].model_validate(data["data"])
            if isinstance(result, (VideoJob, MusicJob)) and client is not None:
                result._client = client  # ready to .wait(), .content(), .save() like the first run's
            return result
        raise ValueError(f"not a stored result: {sorted(data)}")
    return {key: _decode(item, client, depth + 1) for key, item in data.items()}
