"""Media through the classroom: a student's job answers link to the classroom, never to the gateway behind it.

The gateway's job views carry links to the finished file (``videos[].url``,
``audio[].url``: capability links on the gateway's own host), and its
``/content`` endpoints answer 302 to them. Through the classroom, each link is
rewritten to the classroom's own ``/v1/videos/{id}/content`` (or
``/v1/audio/generations/{id}/content``) on the address the student used (its
root path included), and that endpoint, called with the student's key for a job
they own, fetches the file itself (following the gateway's redirect, passing a
``Range`` on) and streams it back. A student's client never needs to reach, or
learn, the gateway's address. (Image ``url``s are inline ``data:`` URIs in the
gateway API: they point nowhere and pass through as they are.)
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import quote, urljoin, urlsplit

from starlette.background import BackgroundTask
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse

from gatewaykit.classroom.keepalive import ConnectionFailed, KeepAlivePool, UpstreamResponse
from gatewaykit.classroom.state import ClassroomState
from gatewaykit.classroom.upstream import UpstreamFailure

__all__ = ["LINK_FIELDS", "content_url", "fetch_media", "public_base", "rewrite_links"]

#: Where a job view keeps its media links, per kind.
LINK_FIELDS = {"video": "videos", "music": "audio"}
_CONTENT_PATHS = {"video": "/v1/videos", "music": "/v1/audio/generations"}
_HOST = re.compile(r"[A-Za-z0-9.\-]+(:[0-9]{1,5})?|\[[0-9A-Fa-f:.]+\](:[0-9]{1,5})?")
_MEDIA_HEADERS = ("content-type", "content-length", "content-range", "accept-ranges", "etag", "last-modified",
                  "cache-control")
_REDIRECTS = 3


def public_base(request: Request, root_path: str) -> str:
    """The classroom's address as the student called it: scheme, ``Host`` and the root path.

    The ``Host`` header (kept by JupyterHub's proxy) is used when it is a plain host name; only the
    student's own answer depends on it."""
    scheme = request.headers.get("x-forwarded-proto", "").lower()
    if scheme not in ("http", "https"):
        scheme = request.scope.get("scheme", "http")
    host = request.headers.get("x-forwarded-host") or request.headers.get("host") or ""
    host = host.split(",")[0].strip()
    if not _HOST.fullmatch(host):
        server = request.scope.get("server") or ("127.0.0.1", 80)
        host = f"[{server[0]}]:{server[1]}" if ":" in str(server[0]) else f"{server[0]}:{server[1]}"
    return f"{scheme}://{host}{root_path}"


def content_url(base: str, kind: str, job_id: str) -> str:
    return f"{base}{_CONTENT_PATHS[kind]}/{quote(job_id, safe='')}/content"


def rewrite_links(view: Any, kind: str, base: str) -> bool:
    """Point every media link of a job view at the classroom's content endpoint; True when one was changed."""
    if not isinstance(view, dict) or not isinstance(view.get("id"), str):
        return False
    links = view.get(LINK_FIELDS[kind])
    if not isinstance(links, list):
        return False
    own = content_url(base, kind, view["id"])
    changed = False
    for link in links:
        if isinstance(link, dict) and isinstance(link.get("url"), str) and link["url"] != own:
            link["url"] = own
            changed = True
    return changed


def _range_only(request: Request) -> list[tuple[str, str]]:
    wanted = request.headers.get("range")
    return [("range", wanted)] if wanted and len(wanted) < 200 else []


async def _follow(state: ClassroomState, location: str, request: Request) -> tuple[UpstreamResponse, Any]:
    """GET the file a gateway redirect points at: with the teacher's key on the gateway's own origin, with no
    key anywhere else (a capability link). Returns the answer and what to close after it."""
    upstream = state.upstream
    target = urlsplit(location)
    own = urlsplit(upstream.base_url)
    if (target.scheme, target.netloc) == (own.scheme, own.netloc):
        path = target.path[len(own.path.rstrip("/")):] if own.path.strip("/") else target.path
        response = await upstream.send("GET", path + (f"?{target.query}" if target.query else ""),
                                       headers=_range_only(request), stream=True)
        return response, None
    pool = KeepAlivePool(f"{target.scheme}://{target.netloc}", timeout=upstream.timeout, max_connections=1)
    try:
        response = await pool.request("GET", (target.path or "/") + (f"?{target.query}" if target.query else ""),
                                      [("accept-encoding", "identity"), *_range_only(request)])
    except ConnectionFailed as exc:
        await pool.aclose()
        raise UpstreamFailure(timed_out=exc.timed_out, cause=exc.cause) from None
    return response, pool


async def fetch_media(state: ClassroomState, request: Request, upstream_path: str) -> Response:
    """The finished file of an owned job, streamed from the gateway (200, or 206 for a ``Range``); any other
    answer of the gateway (a 404 before completion) is passed on, without a ``Location``.
    :class:`UpstreamFailure` when the gateway cannot be reached."""
    upstream = state.upstream
    response = await upstream.send("GET", upstream_path, headers=_range_only(request), stream=True)
    closer: Any = None
    current = upstream.base_url + upstream_path
    for _ in range(_REDIRECTS):
        location = response.headers.get("location")
        if not (300 <= response.status_code < 400 and location):
            break
        await response.aclose()
        current = urljoin(current, location)
        if urlsplit(current).scheme not in ("http", "https"):
            raise UpstreamFailure(timed_out=False, cause="a redirect to a non-http link")
        if closer is not None:
            await closer.aclose()
        response, closer = await _follow(state, current, request)
    if response.status_code not in (200, 206):
        try:
            data = await response.aread()
        except ConnectionFailed as exc:
            raise UpstreamFailure(timed_out=exc.timed_out, cause=exc.cause) from None
        finally:
            await response.aclose()
            if closer is not None:
                await closer.aclose()
        headers = {k: v for k, v in upstream.response_headers(response).items() if k.lower() != "location"}
        return Response(upstream.scrub(data), status_code=response.status_code, headers=headers)
    headers = {name: value for name, value in response.headers.items() if name in _MEDIA_HEADERS}

    async def body() -> Any:
        try:
            async for chunk in response.aiter_raw():
                yield upstream.scrub(chunk)
        except ConnectionFailed:
            return  # the gateway broke off: the student's download ends short (its length says so)

    async def close() -> None:
        await response.aclose()
        if closer is not None:
            await closer.aclose()

    return StreamingResponse(body(), status_code=response.status_code, headers=headers,
                             background=BackgroundTask(close))
