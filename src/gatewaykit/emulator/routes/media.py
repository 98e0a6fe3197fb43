"""``/_media/<token>/<id>.mp4|.mp3``: capability links to finished media (no key; Range supported).

The token is unguessable (256 random bits); the link stops working when the job
is deleted or its retention ends. Browsers seek in ``<video>`` with Range requests,
answered 206 Partial Content. As RFC 9110 (section 14.2) allows, a Range the link cannot
use (another unit such as ``items=0-1``, a malformed or reversed range, several ranges)
is ignored: 200 and the whole file. Only a well-formed single ``bytes`` range that
starts past the end (or asks for no bytes) is 416.
"""

from __future__ import annotations

import re

from starlette.requests import Request
from starlette.responses import Response

from gatewaykit.emulator.gateway import Gateway
from gatewaykit.serving.errors import ApiError

_RANGE = re.compile(r"bytes=(\d{0,30})-(\d{0,30})$", re.IGNORECASE)  # longer numbers: malformed, ignored


async def media_file(request: Request) -> Response:
    gateway: Gateway = request.app.state.gateway
    job = gateway.jobs.media(request.path_params["token"], request.path_params["filename"])
    if job is None or job.content is None:
        raise ApiError(404, "This media link does not exist or has expired.", code="media_not_found")
    data = job.content
    headers = {"Accept-Ranges": "bytes", "Cache-Control": "private, max-age=3600",
               "Content-Disposition": f'inline; filename="{job.filename}"'}
    spec = request.headers.get("range")
    if spec is None:
        return Response(data, media_type=job.content_type, headers=headers)
    match = _RANGE.match(spec.strip())
    first, last = match.groups() if match else ("", "")
    if not (first or last) or (first and last and int(last) < int(first)):
        return Response(data, media_type=job.content_type, headers=headers)  # a Range we cannot use: ignored
    if first:
        start, end = int(first), min(int(last) if last else len(data) - 1, len(data) - 1)
    else:
        start, end = max(0, len(data) - int(last)), len(data) - 1
    if start >= len(data):
        return _unsatisfiable(len(data), headers)
    headers["Content-Range"] = f"bytes {start}-{end}/{len(data)}"
    return Response(data[start:end + 1], status_code=206, media_type=job.content_type, headers=headers)


def _unsatisfiable(size: int, headers: dict[str, str]) -> Response:
    from gatewaykit.serving.responses import JSONResponse

    body = {"error": {"message": "The requested byte range is not satisfiable.", "type": "invalid_request_error",
                      "code": "range_not_satisfiable", "param": None}}
    return JSONResponse(body, status_code=416, headers={**headers, "Content-Range": f"bytes */{size}"})
