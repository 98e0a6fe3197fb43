"""``GET /openapi.json``: the OpenAPI 3.1 description of the gateway (version 1.0.0)."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from gatewaykit.serving.responses import JSONResponse


async def openapi_document(request: Request) -> Response:
    from gatewaykit.emulator.openapi_schema import build_document

    return JSONResponse(build_document())
