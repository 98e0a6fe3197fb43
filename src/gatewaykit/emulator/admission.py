"""What every /v1 request goes through before its route does any work.

Order: the key (401/403), the fault header or a random fault, the account's
rate limit (429, never charged), then the body (413, 400) and the model
(400 ``model_not_found`` when not in the catalog, 403 when the key may not use it).
"""

from __future__ import annotations

import asyncio
import difflib
from dataclasses import dataclass
from typing import Any

import orjson
from starlette.requests import Request

from gatewaykit.emulator.accounts import ApiKey
from gatewaykit.emulator.catalog import ModelSpec
from gatewaykit.emulator.errors import ApiError, bad_request, insufficient_quota, server_error
from gatewaykit.emulator.faults import FAULT_HEADER, DropConnection
from gatewaykit.emulator.fields import integer_text
from gatewaykit.emulator.gateway import Gateway
from gatewaykit.emulator.ratelimit import SlidingWindow

_KIND_PATHS = {"chat": "/v1/chat/completions", "image": "/v1/images/generations", "video": "/v1/videos",
               "music": "/v1/audio/generations"}


@dataclass
class Caller:
    key: ApiKey
    fault: str | None

    @property
    def account(self):  # noqa: ANN201 - Account
        return self.key.account


async def admit(request: Request, gateway: Gateway, *, streamable: bool = False) -> Caller:
    key = gateway.book.authenticate(request.headers.get("authorization"))
    fault = gateway.faults.pick(request.headers.get(FAULT_HEADER))
    if fault == "429":
        raise ApiError(429, "Rate limit exceeded (injected fault). Retry after a moment.", type="rate_limit_error",
                       code="rate_limit_exceeded", headers={"Retry-After": "1"})
    if fault in ("500", "503"):
        raise server_error(int(fault), "The gateway had a temporary problem (injected fault). Retry later.")
    if fault == "slow":
        # Read the body first: is_disconnected() takes the next ASGI message, which may be the body.
        await read_body(request, gateway)
        await asyncio.sleep(gateway.settings.slow_seconds)
        if await request.is_disconnected():
            raise DropConnection()
    if fault == "disconnect" and not streamable:
        raise DropConnection()
    wait = key.account.limiter.admit()
    if wait is not None:
        raise ApiError(
            429,
            f"Rate limit exceeded for this account ({key.account.limiter.requests} requests per "
            f"{key.account.limiter.per_seconds:g} s). Retry after {wait:.1f} s.",
            type="rate_limit_error",
            code="rate_limit_exceeded",
            headers={"Retry-After": SlidingWindow.retry_after_header(wait)},
        )
    return Caller(key, fault)


async def read_body(request: Request, gateway: Gateway) -> bytes:
    limit = gateway.settings.max_body_bytes
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        raise too_large(limit)
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise too_large(limit)
        chunks.append(chunk)
    body = b"".join(chunks)
    request._body = body  # lets request.form() parse what was already read
    return body


def too_large(limit: int) -> ApiError:
    size = f"{limit / (1024 * 1024):g} MiB" if limit >= 1024 * 1024 else f"{limit / 1024:g} KiB"
    return ApiError(413, f"The request body is larger than the {size} limit. Send fewer or smaller images, "
                    "or a shorter conversation.", code="request_too_large")


async def read_json(request: Request, gateway: Gateway) -> dict[str, Any]:
    content_type = request.headers.get("content-type", "application/json").split(";")[0].strip().lower()
    if content_type and not (content_type == "application/json" or content_type.endswith("+json")
                             or content_type == "text/plain"):
        raise bad_request(f"Send the body as JSON with 'Content-Type: application/json' (got {content_type!r}).")
    raw = await read_body(request, gateway)
    if not raw.strip():
        raise bad_request("The request body is empty; send a JSON object.")
    try:
        body = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        raise bad_request(f"The request body is not valid JSON: {exc}.") from None
    if not isinstance(body, dict):
        raise bad_request("The request body must be a JSON object.")
    return body


async def read_json_or_form(request: Request, gateway: Gateway, integers: tuple[str, ...] = (),
                            booleans: tuple[str, ...] = ()) -> dict[str, Any]:
    """A JSON body, or (as the openai SDK sends video jobs) a multipart form read into the same shape.

    File parts become ``data:`` URIs; the named integer and boolean fields are decoded.
    """
    content_type = request.headers.get("content-type", "").lower()
    if not content_type.startswith("multipart/form-data"):
        return await read_json(request, gateway)
    import base64

    from starlette.datastructures import UploadFile
    from starlette.formparsers import MultiPartException

    await read_body(request, gateway)
    try:
        form = await request.form(max_files=4, max_fields=64)
    except MultiPartException as exc:
        raise bad_request(f"The multipart body could not be read: {exc.message}") from None
    body: dict[str, Any] = {}
    for name, value in form.multi_items():
        if isinstance(value, UploadFile):
            data = await value.read()
            mime = value.content_type or "application/octet-stream"
            body[name] = f"data:{mime};base64,{base64.b64encode(data).decode()}"
        elif name in integers:
            body[name] = integer_text(value, name)
        elif name in booleans:
            if value.lower() not in ("true", "false", "1", "0"):
                raise bad_request(f"'{name}' must be true or false.", param=name)
            body[name] = value.lower() in ("true", "1")
        else:
            body[name] = value
    return body


def resolve_model(body: dict[str, Any], gateway: Gateway, caller: Caller, kind: str) -> ModelSpec:
    model_id = body.get("model")
    if model_id is None:
        raise bad_request("Missing required field 'model'.", param="model")
    if not isinstance(model_id, str):
        raise bad_request("'model' must be a model id string from GET /v1/models.", param="model")
    spec = gateway.catalog.get(model_id)
    if spec is None:
        close = difflib.get_close_matches(model_id, list(gateway.catalog), n=1, cutoff=0.6)
        hint = f" Did you mean {close[0]!r}?" if close else ""
        raise ApiError(400, f"The model {model_id[:100]!r} does not exist.{hint} List models with GET /v1/models.",
                       code="model_not_found", param="model")
    if not caller.key.may_use(model_id):
        raise ApiError(403, f"This API key may not use the model {model_id!r}.", code="model_not_found",
                       param="model")
    if spec.kind != kind:
        raise bad_request(f"{model_id!r} is a {spec.kind} model; send it to {_KIND_PATHS[spec.kind]}.",
                          param="model")
    return spec


def require_funds(caller: Caller, nanos: int) -> None:
    if not caller.account.can_pay(nanos):
        raise insufficient_quota()



