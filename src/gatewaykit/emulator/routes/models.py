"""``GET /v1/models``: the catalog, scoped to the key."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from gatewaykit.emulator.admission import admit
from gatewaykit.emulator.gateway import Gateway
from gatewaykit.serving.responses import JSONResponse


async def list_models(request: Request) -> Response:
    gateway: Gateway = request.app.state.gateway
    caller = await admit(request, gateway)
    data = [spec.entry for spec in gateway.catalog.values() if caller.key.may_use(spec.id)]
    return JSONResponse({"object": "list", "data": data})
