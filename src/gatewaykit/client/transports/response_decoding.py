"""A successful answer's body -> the type the call returns, or a gatewaykit error that says why not.

Real OpenAI-compatible servers send plausible variants of the spec's shapes
(:mod:`gatewaykit.types.lenient` reads them). What still cannot be read (a
200 whose body is not JSON, a JSON that is not the call's shape) never
escapes as a raw ``pydantic.ValidationError``, ``json.JSONDecodeError`` or
``KeyError``: it becomes :class:`~gatewaykit.errors.UnexpectedResponseError`
naming the call, the status, what was wrong and a short excerpt of the body
(keys scrubbed).
"""

from __future__ import annotations

import json
from typing import Any, Optional, TypeVar

from pydantic import BaseModel, ValidationError

from gatewaykit.error_text import python_call
from gatewaykit.errors import UnexpectedResponseError, error_from_response, excerpt, status_named_in

__all__ = ["call_of", "error_named_in", "read_model", "unexpected_response", "why_unusable"]

M = TypeVar("M", bound=BaseModel)


def call_of(response: Any) -> Optional[str]:
    """The client call that got ``response`` (``client.models.list()``), from its request, or None."""
    try:
        request = response.request
        return python_call(request.method, request.url.path)
    except Exception:  # noqa: BLE001 - a response without its request (a test double): no name
        return None


def why_unusable(exc: Exception) -> str:
    """What was wrong with a body, in one line."""
    if isinstance(exc, ValidationError):
        errors = exc.errors(include_url=False, include_input=False)
        first: dict[str, Any] = dict(errors[0]) if errors else {}
        if first.get("type") == "json_invalid":
            return "the body is not JSON"
        where = ".".join(str(part) for part in first.get("loc", ())) or "the body"
        more = f" (and {exc.error_count() - 1} more)" if exc.error_count() > 1 else ""
        return f"{where}: {first.get('msg', 'invalid')}{more}"
    if isinstance(exc, ValueError):
        return "the body is not JSON"
    return f"{type(exc).__name__}: {exc}"


def unexpected_response(
    content: Any, reason: str, *, call: Optional[str], status: int = 200, partial: Any = None, what: str = "answer"
) -> UnexpectedResponseError:
    """The error for a body (or stream chunk) the client cannot use."""
    who = call or "The request"
    text = content.decode("utf-8", "replace") if isinstance(content, (bytes, bytearray)) else content
    return UnexpectedResponseError(
        f"{who} got an {what} it cannot read (HTTP {status}): {reason}. The server sent: {excerpt(text)}",
        status=status,
        body=text if isinstance(text, str) else None,
        partial=partial,
    )


def read_model(model_type: type[M], response: Any, *, call: Optional[str] = None, recording: Any = None) -> M:
    """``model_type`` from ``response``'s JSON body; an unusable one raises :class:`UnexpectedResponseError`.

    With ``recording`` the ledger row is written first: charge unknown (a 2xx may have been charged).
    """
    content = response.content
    named = error_named_in(content)
    if named is not None:  # a 200 whose body is an error envelope (OpenRouter): that error, not an empty answer
        error = error_from_response(
            status_named_in(named) or 502, named, headers=getattr(response, "headers", None), call=call or call_of(response)
        )
        if recording is not None:
            recording.error(error)
        raise error
    try:
        return model_type.model_validate_json(content)
    except (ValidationError, ValueError, KeyError, TypeError) as exc:
        error = unexpected_response(
            content, why_unusable(exc), call=call or call_of(response), status=getattr(response, "status_code", 200)
        )
        if recording is not None:
            recording.interrupted(error.message)
        raise error from None


_ANSWER_KEYS = ("choices", "data", "id", "status", "object")  # what an answer has and a bare error body has not


def error_named_in(content: Any) -> Optional[dict[str, Any]]:
    """The body, when it is only an error (``{"error": {...}}`` and none of an answer's keys); else None.

    OpenRouter answers HTTP 200 with such a body when the model fails after the request was accepted.
    Cheap for ordinary answers: the JSON is parsed again only when it names an ``"error"`` key.
    """
    if not isinstance(content, (bytes, bytearray)) or b'"error"' not in content:
        return None
    try:
        body = json.loads(content)
    except ValueError:
        return None
    if isinstance(body, list) and len(body) == 1:
        body = body[0]  # Gemini wraps its errors in a list
    if not isinstance(body, dict) or not body.get("error") or any(key in body for key in _ANSWER_KEYS):
        return None
    return body


def loads_or_raise(content: Any, *, call: Optional[str], status: int = 200) -> Any:
    """``json.loads`` whose failure is an :class:`UnexpectedResponseError`."""
    try:
        return json.loads(content)
    except ValueError:
        raise unexpected_response(content, "the body is not JSON", call=call, status=status) from None
