"""The span attributes of one request: what its body asked, what its answer said, what it cost.

Helpers of ``observer.py`` (module-level functions over plain values, each called once per
request); the names they write are ``names.py``'s.
"""

from __future__ import annotations

import json
from typing import Any, Optional
from urllib.parse import urlsplit

from opentelemetry.trace import Status, StatusCode

from gatewaykit.telemetry import names as n

__all__ = [
    "captured_input", "cost_of", "error_type_of", "mark_error", "request_attributes",
    "response_attributes", "server_of", "token_counts",
]  # fmt: skip

_COST_SOURCES = {"reported": "provider", "estimated": "local"}  # the ledger's source -> the proposal's
_NOT_CHARGED = frozenset({"cached", "replayed"})
_CONTENT_LIMIT = 16_384  # characters of captured content per attribute
_REQUEST_FIELDS = {  # a request body's field -> its span attribute
    "max_tokens": n.REQUEST_MAX_TOKENS, "max_completion_tokens": n.REQUEST_MAX_TOKENS,
    "temperature": n.REQUEST_TEMPERATURE, "top_p": n.REQUEST_TOP_P, "seed": n.REQUEST_SEED,
    "n": n.REQUEST_CHOICE_COUNT, "resolution": n.RESOLUTION, "duration": n.DURATION,
}  # fmt: skip


def server_of(base_url: Optional[str]) -> tuple[Optional[str], Optional[int]]:
    """(``server.address``, ``server.port``) of the gateway's base URL."""
    if not base_url:
        return None, None
    try:
        parts = urlsplit(base_url)
        return parts.hostname, parts.port  # never the user:password part
    except ValueError:
        return None, None


def request_attributes(body: dict[str, Any]) -> dict[str, Any]:
    """The ``gen_ai.request.*`` (and resolution, duration) values a request's body sets."""
    values: dict[str, Any] = {}
    if _REQUEST_FIELDS.keys() & body.keys():  # most requests set none of them
        for field, name in _REQUEST_FIELDS.items():  # in order: max_completion_tokens wins over max_tokens
            value = body.get(field)
            if value is not None and isinstance(value, (int, float, str)) and not isinstance(value, bool):
                values[name] = value
    return values


def token_counts(usage: dict[str, Any]) -> tuple[Optional[int], Optional[int]]:
    """(input, output) tokens of a usage block, None where it does not say."""
    prompt, completion = usage.get("prompt_tokens"), usage.get("completion_tokens")
    return (
        prompt if isinstance(prompt, int) and not isinstance(prompt, bool) else None,
        completion if isinstance(completion, int) and not isinstance(completion, bool) else None,
    )


def response_attributes(values: dict[str, Any], result: Any, capture: bool) -> None:
    """Add the answer's model, id, finish reasons (and, when captured, its messages) to ``values``."""
    choices = getattr(result, "choices", None) or []
    reasons = tuple([str(choice.finish_reason) for choice in choices if getattr(choice, "finish_reason", None)])
    model, response_id = getattr(result, "model", None), getattr(result, "id", None)
    if model:
        values[n.RESPONSE_MODEL] = str(model)
    if response_id:
        values[n.RESPONSE_ID] = str(response_id)
    if reasons:
        values[n.RESPONSE_FINISH_REASONS] = reasons
    choices = getattr(result, "choices", None) if capture else None
    if choices:
        messages = [
            {"role": "assistant", "content": getattr(choice.message, "content", None),
             "finish_reason": getattr(choice, "finish_reason", None)}
            for choice in choices
        ]  # fmt: skip
        values[n.OUTPUT_MESSAGES] = _json(messages)


def captured_input(body: dict[str, Any]) -> dict[str, Any]:
    """``gen_ai.input.messages`` of a request (``capture_content`` only)."""
    if "messages" in body:
        return {n.INPUT_MESSAGES: _json(body["messages"])}
    prompt = {key: body[key] for key in ("prompt", "lyrics_prompt") if isinstance(body.get(key), str)}
    return {n.INPUT_MESSAGES: _json([{"role": "user", "content": prompt}])} if prompt else {}


def _json(value: Any) -> str:
    text = json.dumps(value, default=str, ensure_ascii=False)
    return text if len(text) <= _CONTENT_LIMIT else text[: _CONTENT_LIMIT - 1] + "…"


def cost_of(row: Any, usage: dict[str, Any]) -> tuple[Optional[float], Optional[str], Optional[str]]:
    """(amount, the proposal's source, the ledger's source): the row's amount as the ledger counts it."""
    if row is None:  # no ledger (Client(ledger=...) without rows): the reported amount, as reported
        cost = usage.get("cost") if isinstance(usage, dict) else None
        total = cost.get("total_cost") if isinstance(cost, dict) else None
        if isinstance(total, (int, float)) and not isinstance(total, bool):
            return float(total), "provider", "reported"
        return None, None, None
    source = getattr(row, "cost_source", None)
    if source in _NOT_CHARGED:
        return 0.0, None, source
    if getattr(row, "charged", None) and row.total_cost is not None:
        return float(row.total_cost), _COST_SOURCES.get(str(source)), source
    return None, None, source


def mark_error(span: Any, error_type: str, fields: dict[str, Any]) -> None:
    """``error.type``, the HTTP status and an ERROR status on the span."""
    span.set_attribute(n.ERROR_TYPE, str(error_type))
    http_status = fields.get("http_status")
    if http_status is not None:
        span.set_attribute("http.response.status_code", int(http_status))
    span.set_status(Status(StatusCode.ERROR, str(error_type)))


def error_type_of(span: Any) -> Optional[str]:
    """The ``error.type`` already set on a span, if any."""
    attributes = getattr(span, "attributes", None) or {}
    value = attributes.get(n.ERROR_TYPE)
    return str(value) if value is not None else None

