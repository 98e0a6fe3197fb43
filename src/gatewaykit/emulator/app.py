"""The app factory: ``create_app(settings) -> Starlette``.

Every answer, including 404/405 for unknown routes, malformed bodies and bugs,
is in the spec's error envelope; every answer carries ``X-Gateway-Offline: 1``.
"""

from __future__ import annotations

import contextlib
import logging
import re
from typing import Any, AsyncIterator

import orjson

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import ClientDisconnect, Request
from starlette.responses import Response
from starlette.routing import Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from gatewaykit.emulator.faults import DropConnection
from gatewaykit.emulator.gateway import Gateway
from gatewaykit.emulator.host_check import OwnHostOnly
from gatewaykit.emulator.settings import Settings
from gatewaykit.serving.cors import add_cors
from gatewaykit.serving.errors import ApiError, error_envelope
from gatewaykit.serving.responses import OFFLINE_HEADER, JSONResponse
from gatewaykit.serving.trailing_slash import SENT_PATH, without_trailing_slash

log = logging.getLogger("gatewaykit.emulator")
_HTTP_CODES = {404: "unknown_url", 405: "method_not_allowed", 413: "request_too_large"}


class OfflineHeaderAndDrops:
    """Pure ASGI middleware: serves a path with one trailing slash as the path without it; adds
    ``X-Gateway-Offline: 1``; turns :class:`DropConnection` into a dropped socket
    and any other exception (a bug) into the 500 envelope.

    The bug is answered here, and not re-raised, so the server keeps the keep-alive connection: an exception
    that reaches uvicorn after a complete answer makes it close the socket silently, and the client's next
    request on its pooled connection is lost. A bug after the answer started cannot be answered any more;
    it propagates and the server cuts the unfinished answer (the client sees it broken, never as complete).
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        scope = without_trailing_slash(scope)
        log_trace_context(scope)
        started = False

        async def send_marked(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
                message.setdefault("headers", [])
                message["headers"] = [*message["headers"], (OFFLINE_HEADER.lower().encode(), b"1")]
            await send(message)

        try:
            await self.app(scope, receive, send_marked)
        except BaseException as exc:  # noqa: BLE001 - DropConnection may arrive wrapped in a group
            if _is_drop(exc):
                if not started:
                    # Start an answer and never finish it: the server then closes the socket.
                    await send({"type": "http.response.start", "status": 200,
                                "headers": [(b"content-type", b"application/json"), (b"content-length", b"64")]})
                return
            if started or not isinstance(exc, Exception):  # cancellation, or an answer already under way
                raise
            await _answer_bug(scope, exc, send_marked)


_TRACEPARENT = re.compile(rb"^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$")
trace_log = logging.getLogger("gatewaykit.emulator.trace")


def log_trace_context(scope: Scope) -> None:
    """Log a request's W3C ``traceparent`` (a well-formed one only), so one trace spans client and gateway.

    ``gk.instrument()`` sends it on every request; the line names the method, the path and the trace
    (``trace_id`` and the client span's ``span_id``), on the ``gatewaykit.emulator.trace`` logger at INFO.
    """
    if not trace_log.isEnabledFor(logging.INFO):
        return
    for name, value in scope.get("headers") or ():
        if name == b"traceparent":
            value = value.strip().lower()
            if _TRACEPARENT.match(value):
                _, trace_id, span_id, _ = value.decode("ascii").split("-")
                trace_log.info(
                    "%s %s trace_id=%s span_id=%s", scope.get("method"), scope.get("path"), trace_id, span_id,
                    extra={"trace_id": trace_id, "span_id": span_id},
                )
            return


def _is_drop(exc: BaseException) -> bool:
    if isinstance(exc, (DropConnection, ClientDisconnect)):  # the client left while its body was read
        return True
    if isinstance(exc, BaseExceptionGroup):
        return all(_is_drop(inner) for inner in exc.exceptions)
    return False


async def _api_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, ApiError)
    return JSONResponse(exc.envelope(), status_code=exc.status, headers=exc.headers)


async def _http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    path = request.scope.get(SENT_PATH, request.url.path)  # as the client sent it (trailing slash included)
    if exc.status_code == 404:
        message = f"No such endpoint: {request.method} {path[:200]}. See /openapi.json."
    elif exc.status_code == 405:
        message = f"{request.method} is not allowed on {path[:200]}."
    else:
        message = str(exc.detail)
    headers = dict(exc.headers or {})
    return JSONResponse(error_envelope(message, "invalid_request_error", _HTTP_CODES.get(exc.status_code)),
                        status_code=exc.status_code, headers=headers)


async def _answer_bug(scope: Scope, exc: Exception, send: Send) -> None:
    """The 500 ``api_error`` envelope for an exception no route turned into an :class:`ApiError`."""
    log.error("offline gateway bug on %s %s", scope.get("method"), scope.get("path"), exc_info=exc)
    body = orjson.dumps(error_envelope("The offline gateway hit an internal error. This is a bug.", "api_error"))
    await send({"type": "http.response.start", "status": 500,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})


def _routes() -> list[Route]:
    from gatewaykit.emulator.openapi import openapi_document
    from gatewaykit.emulator.routes import admin, chat, images, media, models, music, videos

    return [
        Route("/v1/models", models.list_models, methods=["GET"]),
        Route("/v1/chat/completions", chat.chat_completions, methods=["POST"]),
        Route("/v1/images/generations", images.generate_images, methods=["POST"]),
        Route("/v1/images/edits", images.edit_images, methods=["POST"]),
        Route("/v1/videos", videos.create_video, methods=["POST"]),
        Route("/v1/videos/{job_id}", videos.video_job, methods=["GET", "DELETE"]),
        Route("/v1/videos/{job_id}/content", videos.video_content, methods=["GET"]),
        Route("/v1/audio/generations", music.create_music, methods=["POST"]),
        Route("/v1/audio/generations/{job_id}", music.retrieve_music, methods=["GET"]),
        Route("/v1/audio/generations/{job_id}/content", music.music_content, methods=["GET"]),
        Route("/_media/{token}/{filename}", media.media_file, methods=["GET"]),
        Route("/_emulator/accounts", admin.list_accounts, methods=["GET"]),
        Route("/_emulator/stats", admin.stats, methods=["GET"]),
        Route("/openapi.json", openapi_document, methods=["GET"]),
    ]


def create_app(settings: Settings | None = None) -> Starlette:
    """A Starlette app serving the whole gateway API for ``settings``."""
    settings = settings or Settings()
    gateway = Gateway(settings)
    # No handler for Exception: Starlette would run it outside the middleware and then re-raise the
    # exception to the server, which closes the connection (see OfflineHeaderAndDrops).
    handlers: dict[Any, Any] = {ApiError: _api_error, HTTPException: _http_error}

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        gateway.start_workers()
        yield
        gateway.close()  # cancels running jobs inside the server's own event loop

    app = Starlette(routes=_routes(), exception_handlers=handlers, lifespan=lifespan)
    app.router.redirect_slashes = False  # no empty 307s: see without_trailing_slash
    app.state.gateway = gateway
    app.add_middleware(OwnHostOnly)  # inside: its 421 carries X-Gateway-Offline too
    app.add_middleware(OfflineHeaderAndDrops)
    add_cors(app, settings.cors_origins)  # outermost: preflights and every answer, errors included
    return app
