"""What to send, as plain data: the client's requests before any transport sees them."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any, Mapping, Optional, TypedDict

__all__ = [
    "NOT_GIVEN",
    "ApiRequest",
    "CallOptions",
    "NotGiven",
    "ReadOptions",
    "RequestOptions",
    "call_options",
    "encode_json",
    "merge_body",
]


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

_dumps = json.JSONEncoder(ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode


def encode_json(body: Any) -> bytes:
    """Compact UTF-8 JSON for a request body.

    A value JSON cannot carry (NaN or an infinity, a lone surrogate in a string)
    raises :class:`BadRequestError` naming where it is (``seed``,
    ``messages[1].content``), before anything is sent.
    """
    try:
        return _dumps(body).encode()
    except (ValueError, UnicodeEncodeError) as exc:
        found = _unsendable(body, "")
        if found is None:
            raise
        where, problem = found
        from gatewaykit.errors import BadRequestError

        param = where.split(".")[0].split("[")[0] or None
        raise BadRequestError(
            f"{where or 'the request body'} {problem}; nothing was sent", status=400, code="invalid_value", param=param
        ) from None


def _unsendable(value: Any, where: str) -> Optional[tuple[str, str]]:
    """The first place in ``value`` JSON cannot carry, with what is wrong there."""
    if isinstance(value, float):
        if not math.isfinite(value):
            return where, f"is {value!r}: JSON has no NaN or infinity, pass a finite number"
    elif isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError as exc:
            return where, (
                f"holds a lone surrogate ({value[exc.start]!r} at character {exc.start}), which is not valid "
                "UTF-8: fix the text (e.g. text.encode('utf-16', 'surrogatepass').decode('utf-16'))"
            )
    elif isinstance(value, Mapping):
        for key, item in value.items():
            if isinstance(key, str):
                found = _unsendable(key, where)
                if found is not None:
                    return found[0], "has a key that " + found[1]
            found = _unsendable(item, f"{where}.{key}" if where else str(key))
            if found is not None:
                return found
    elif isinstance(value, (list, tuple)):
        for index, item in enumerate(value):
            found = _unsendable(item, f"{where}[{index}]")
            if found is not None:
                return found
    return None


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


class ReadOptions(TypedDict, total=False):
    """Options every call takes: headers for this request, and its timeout (seconds or an ``httpx.Timeout``)."""

    extra_headers: Mapping[str, str]
    timeout: Any


class RequestOptions(ReadOptions, total=False):
    """Options every creating call takes (``create``, ``generate``, ``edit``), besides its own fields.

    ``extra_body`` is merged into the JSON body last (it can send an explicit
    null); ``validate`` overrides the client's catalog check for this call;
    ``confirm=True`` sends it without asking, whatever its quote (``Client(confirm_over=)``).
    Any other keyword is sent as a body field as-is (type checkers ask for
    ``extra_body`` instead).
    """

    extra_body: Mapping[str, Any]
    validate: Optional[bool]
    confirm: bool


@dataclass(slots=True)
class CallOptions:
    """A call's :class:`RequestOptions`, split from the body fields passed through by keyword."""

    extra_headers: Optional[Mapping[str, str]]
    extra_body: Optional[Mapping[str, Any]]
    timeout: Any
    validate: Optional[bool]
    passthrough: dict[str, Any]
    confirm: bool = False


def call_options(options: Mapping[str, Any]) -> CallOptions:
    """Split ``**options`` into the request options and the unknown fields to send as-is."""
    rest = dict(options)
    return CallOptions(
        extra_headers=rest.pop("extra_headers", None),
        extra_body=rest.pop("extra_body", None),
        timeout=rest.pop("timeout", NOT_GIVEN),
        validate=rest.pop("validate", None),
        confirm=bool(rest.pop("confirm", False)),
        passthrough=rest,
    )
