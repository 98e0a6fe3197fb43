"""The classroom's Starlette app: the ``/v1`` routes students call and the teacher's ``/_classroom`` routes.

Every answer the classroom makes itself is in the spec's error envelope
(the offline gateway's ``ApiError``); a bug is a 500 envelope, never a
traceback, and is logged without request bodies or keys.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any, AsyncIterator

import orjson
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send

from gatewaykit.classroom import refusals, routes
from gatewaykit.classroom.admin import admin_routes
from gatewaykit.classroom.admin_policy import policy_routes
from gatewaykit.classroom.class_sync import ClassSync
from gatewaykit.classroom.jobs import watch_jobs
from gatewaykit.classroom.policy import policy_tick
from gatewaykit.classroom.request_bodies import CountedBodies
from gatewaykit.classroom.state import ClassroomState
from gatewaykit.classroom.store import DatabaseUnavailable
from gatewaykit.serving.cors import add_cors
from gatewaykit.serving.errors import ApiError, error_envelope
from gatewaykit.serving.responses import OFFLINE_HEADER, JSONResponse
from gatewaykit.serving.trailing_slash import without_trailing_slash

__all__ = ["create_app"]

log = logging.getLogger("gatewaykit.classroom")
_HTTP_CODES = {404: "unknown_url", 405: "method_not_allowed"}


def under_root_path(scope: Scope, root_path: str) -> Scope:
    """``/services/classroom/v1/models`` is routed as ``/v1/models`` when the root path is ``/services/classroom``.

    JupyterHub's proxy passes a service's requests on with the prefix (configurable-http-proxy does not strip
    it); a proxy that strips it sends the bare path, which is served as well."""
    path = scope["path"]
    if path == root_path or path.startswith(root_path + "/"):
        scope = {**scope, "path": path[len(root_path):] or "/"}
        raw = scope.get("raw_path")
        prefix = root_path.encode()
        if isinstance(raw, bytes) and raw.startswith(prefix):
            scope["raw_path"] = raw[len(prefix):] or b"/"
    return scope


class BugsAsEnvelopes:
    """Pure ASGI middleware: the root path is taken off, one trailing slash is ignored; an unexpected exception
    becomes the 500 envelope. In front of an offline gateway (``offline``), every answer carries its
    ``X-Gateway-Offline: 1`` (forwarded ones have it already): the classroom's own refusals are practice too, and
    a student's ledger keeps them with the synthetic rows, in memory, not among real spending."""

    def __init__(self, app: ASGIApp, root_path: str = "", offline: bool = False) -> None:
        self.app = app
        self.root_path = root_path
        self.offline = offline

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if self.root_path:
            scope = under_root_path(scope, self.root_path)
        scope = without_trailing_slash(scope)
        started = False

        async def send_marked(message: Any) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
                if self.offline:
                    message = _marked_offline(message)
            await send(message)

        try:
            await self.app(scope, receive, send_marked)
        except Exception as exc:
            if started:
                raise
            log.error("classroom bug on %s %s: %s", scope.get("method"), scope.get("path"), type(exc).__name__)
            body = orjson.dumps(error_envelope("The classroom hit an internal error. Tell your teacher.", "api_error"))
            await send_marked({"type": "http.response.start", "status": 500,
                               "headers": [(b"content-type", b"application/json"),
                                           (b"content-length", str(len(body)).encode())]})
            await send({"type": "http.response.body", "body": body})


_OFFLINE_MARK = (OFFLINE_HEADER.lower().encode(), b"1")


def _marked_offline(start: Any) -> Any:
    """A response start with ``x-gateway-offline: 1`` among its headers (once: a forwarded answer has it)."""
    headers = list(start.get("headers") or [])
    if any(bytes(name).lower() == _OFFLINE_MARK[0] for name, _ in headers):
        return start
    return {**start, "headers": [*headers, _OFFLINE_MARK]}


async def _api_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, ApiError)
    return JSONResponse(exc.envelope(), status_code=exc.status, headers=exc.headers)


async def _database_unavailable(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, DatabaseUnavailable)
    log.warning("%s: answered 503", exc)  # names the database by its URL without the password
    refusal = refusals.database_unavailable(exc.where, exc.settling)
    return JSONResponse(refusal.envelope(), status_code=refusal.status, headers=refusal.headers)


async def _http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    if exc.status_code == 404:
        message = f"No such endpoint: {request.method} {request.url.path[:200]}."
    elif exc.status_code == 405:
        message = f"{request.method} is not allowed on {request.url.path[:200]}."
    else:
        message = str(exc.detail)
    return JSONResponse(error_envelope(message, "invalid_request_error", _HTTP_CODES.get(exc.status_code)),
                        status_code=exc.status_code, headers=dict(exc.headers or {}))


def _routes() -> list[Route]:
    return [
        Route("/v1/models", routes.list_models, methods=["GET"]),
        Route("/v1/chat/completions", routes.chat_completions, methods=["POST"]),
        Route("/v1/images/generations", routes.generate_images, methods=["POST"]),
        Route("/v1/images/edits", routes.edit_images, methods=["POST"]),
        Route("/v1/videos", routes.create_video, methods=["POST"]),
        Route("/v1/videos/{job_id}", routes.video_job, methods=["GET", "DELETE"]),
        Route("/v1/videos/{job_id}/content", routes.video_content, methods=["GET"]),
        Route("/v1/audio/generations", routes.create_music, methods=["POST"]),
        Route("/v1/audio/generations/{job_id}", routes.music_job, methods=["GET"]),
        Route("/v1/audio/generations/{job_id}/content", routes.music_content, methods=["GET"]),
        Route("/_classroom/me", routes.my_budget, methods=["GET"]),
        *admin_routes(),
        *policy_routes(),
    ]


def create_app(state: ClassroomState) -> Starlette:
    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        watcher = asyncio.create_task(watch_jobs(state))
        ticker = asyncio.create_task(policy_tick(state.policy))
        sync = ClassSync(state).start() if state.budgets.shared else None  # a class several processes share
        try:
            yield
        finally:
            if sync is not None:
                sync.stop()
            for task in (watcher, ticker):
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
            await state.upstream.aclose()
            if state.hub is not None:
                await state.hub.aclose()

    app = Starlette(routes=_routes(), exception_handlers={ApiError: _api_error, HTTPException: _http_error,
                                                           DatabaseUnavailable: _database_unavailable},
                    lifespan=lifespan)
    app.router.redirect_slashes = False
    app.state.classroom = state
    app.add_middleware(CountedBodies, buffers=state.upstream.buffers)
    app.add_middleware(BugsAsEnvelopes, root_path=state.settings.root_path, offline=state.settings.upstream_offline)
    add_cors(app, state.settings.cors_origins)  # outermost: preflights and every answer, refusals included
    return app
