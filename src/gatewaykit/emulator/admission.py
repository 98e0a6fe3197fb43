"""What every /v1 request goes through before its route does any work.

Order: the key (401/403), the fault header or a random fault, the account's
rate limit (429, never charged), then the body (413, 400) and the model
(400 ``model_not_found`` when not in the catalog, 403 when the key may not use it).
The body readers are :mod:`gatewaykit.serving.bodies` (the classroom reads bodies the same way).
"""

from __future__ import annotations

import asyncio
import difflib
from dataclasses import dataclass
from typing import Any

from starlette.requests import Request

from gatewaykit.emulator.accounts import ApiKey
from gatewaykit.emulator.catalog import ModelSpec
from gatewaykit.emulator.faults import FAULT_HEADER, DropConnection
from gatewaykit.emulator.gateway import Gateway
from gatewaykit.serving.bodies import read_body
from gatewaykit.serving.errors import ApiError, bad_request, insufficient_quota, server_error
from gatewaykit.serving.ratelimit import SlidingWindow

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
