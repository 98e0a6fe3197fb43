"""What to send, as plain data: the client's requests before any transport sees them."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Mapping, Optional

__all__ = ["NOT_GIVEN", "ApiRequest", "NotGiven", "encode_json", "merge_body"]


class NotGiven:
    """Marks an argument the caller did not pass (distinct from an explicit None)."""

    _instance: Optional["NotGiven"] = None

    def __new__(cls) -> "NotGiven":
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __bool__(self) -> bool:
        return False

    def __repr__(self) -> str:
        return "NOT_GIVEN"


NOT_GIVEN: Any = NotGiven()

_dumps = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode


def encode_json(body: Any) -> bytes:
    """Compact UTF-8 JSON for a request body."""
    return _dumps(body).encode()


@dataclass(slots=True)
class ApiRequest:
    """One HTTP request to the gateway.

    ``path`` is ``/v1/...`` (joined to the base URL) or an absolute URL (a
    redirect target). ``content`` is the encoded JSON body; ``data``/``files``
    make a multipart body instead. ``replay_safe`` says whether the request may
    be sent again after its answer was lost (GET, DELETE); ``creates_job`` marks
    a job-creating POST, whose lost answer must never be retried.
    """

    method: str
    path: str
    content: Optional[bytes] = None
    data: Optional[dict[str, Any]] = None
    files: Optional[list[tuple[str, tuple[str, bytes, str]]]] = None
    headers: Optional[Mapping[str, str]] = None
    timeout: Any = NOT_GIVEN
    stream: bool = False
    auth: bool = True
    replay_safe: bool = False
    creates_job: bool = False


def merge_body(
    fields: dict[str, Any], passthrough: Mapping[str, Any], extra_body: Optional[Mapping[str, Any]]
) -> dict[str, Any]:
    """The JSON body: typed fields that were given (None means not given), then unknown keywords,
    then ``extra_body`` (which can also send an explicit null)."""
    body = {key: value for key, value in fields.items() if value is not None}
    if passthrough:
        body.update(passthrough)
    if extra_body:
        body.update(extra_body)
    return body
