"""``GET /_emulator/accounts``: balances for tests and demos (admin token only; not under /v1)."""

from __future__ import annotations

import hmac

from starlette.requests import Request
from starlette.responses import Response

from gatewaykit.emulator.errors import ApiError
from gatewaykit.emulator.gateway import Gateway
from gatewaykit.emulator.routes.responses import JSONResponse


async def list_accounts(request: Request) -> Response:
    gateway: Gateway = request.app.state.gateway
    token = gateway.settings.admin_token
    scheme, _, presented = request.headers.get("authorization", "").partition(" ")
    if not token or scheme.lower() != "bearer" or not hmac.compare_digest(
            presented.strip().encode("utf-8", "surrogatepass"), token.encode()):
        raise ApiError(401, "The admin endpoint needs 'Authorization: Bearer <admin token>'.",
                       code="invalid_admin_token")
    return JSONResponse({"accounts": gateway.book.summary()})
