"""``/_emulator/accounts`` and ``/_emulator/stats``: balances and counters for tests (admin token only)."""

from __future__ import annotations

import hmac

from starlette.requests import Request
from starlette.responses import Response

from gatewaykit.emulator.gateway import Gateway
from gatewaykit.serving.errors import ApiError
from gatewaykit.serving.responses import JSONResponse


def _require_admin(request: Request, gateway: Gateway) -> None:
    token = gateway.settings.admin_token
    scheme, _, presented = request.headers.get("authorization", "").partition(" ")
    if not token or scheme.lower() != "bearer" or not hmac.compare_digest(
            presented.strip().encode("utf-8", "surrogatepass"), token.encode()):
        raise ApiError(401, "The admin endpoint needs 'Authorization: Bearer <admin token>'.",
                       code="invalid_admin_token")


async def list_accounts(request: Request) -> Response:
    gateway: Gateway = request.app.state.gateway
    _require_admin(request, gateway)
    return JSONResponse({"accounts": gateway.book.summary()})


async def stats(request: Request) -> Response:
    """``GET /_emulator/stats``: faults injected, jobs created per account, what is still retained."""
    gateway: Gateway = request.app.state.gateway
    _require_admin(request, gateway)
    jobs = list(gateway.jobs.jobs.values())
    return JSONResponse({
        "faults_injected": dict(gateway.faults.injected),
        "jobs_created": {account: dict(kinds) for account, kinds in gateway.jobs.created.items()},
        "jobs_retained": len(jobs),
        "media_bytes_retained": sum(len(job.content or b"") for job in jobs),
    })
