"""Reading a request's body, for both servers: the size limit (413), JSON (400 naming what to change),
and the multipart forms the openai SDK sends, read into the same shape as JSON.
"""

from __future__ import annotations

from typing import Any, Protocol

import orjson
from starlette.datastructures import FormData
from starlette.requests import Request
from starlette.types import Message

from gatewaykit.request_numbers import as_integer
from gatewaykit.serving.errors import ApiError, bad_request


class BodyLimit(Protocol):
    @property
    def max_body_bytes(self) -> int: ...


class HasBodyLimit(Protocol):
    """A server whose ``settings.max_body_bytes`` caps a request body (the offline gateway, the classroom)."""

    @property
    def settings(self) -> BodyLimit: ...


async def read_body(request: Request, gateway: HasBodyLimit) -> bytes:
    """The request's body, read once within the size limit (413 past it) and kept on ``request.state``:
    the ASGI stream can be read only once, and a fault or a form reads it before the route does."""
    kept = getattr(request.state, "gatewaykit_body", None)
    if kept is not None:
        return kept
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
    body = request.state.gatewaykit_body = b"".join(chunks)
    return body


def body_read(request: Request) -> bytes:
    """The body :func:`read_body` already read for ``request``."""
    return request.state.gatewaykit_body  # type: ignore[no-any-return]


async def read_form(request: Request, gateway: HasBodyLimit, *, max_files: int, max_fields: int) -> FormData:
    """A multipart body read within the size limit (:func:`read_body`), then parsed by starlette: the bytes
    already read are handed to a request over the same scope (the ASGI stream can be read only once)."""
    body = await read_body(request, gateway)

    async def replay() -> Message:
        return {"type": "http.request", "body": body, "more_body": False}

    return await Request(request.scope, replay).form(max_files=max_files, max_fields=max_fields)


def too_large(limit: int) -> ApiError:
    size = f"{limit / (1024 * 1024):g} MiB" if limit >= 1024 * 1024 else f"{limit / 1024:g} KiB"
    return ApiError(413, f"The request body is larger than the {size} limit. Send fewer or smaller images, "
                    "or a shorter conversation.", code="request_too_large")


async def read_json(request: Request, gateway: HasBodyLimit) -> dict[str, Any]:
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


async def read_json_or_form(request: Request, gateway: HasBodyLimit, integers: tuple[str, ...] = (),
                            booleans: tuple[str, ...] = ()) -> dict[str, Any]:
    """A JSON body, or (as the openai SDK sends video jobs) a multipart form read into the same shape.

    File parts become ``data:`` URIs; the named integer and boolean fields are decoded.
    """
    content_type = request.headers.get("content-type", "").lower()
    if not content_type.startswith("multipart/form-data"):
        return await read_json(request, gateway)
    from starlette.formparsers import MultiPartException

    try:
        form = await read_form(request, gateway, max_files=4, max_fields=64)
    except MultiPartException as exc:
        raise bad_request(f"The multipart body could not be read: {exc.message}") from None
    try:
        return await _form_values(form, integers, booleans)
    finally:
        await form.close()  # its uploads' spooled files


async def _form_values(form: FormData, integers: tuple[str, ...], booleans: tuple[str, ...]) -> dict[str, Any]:
    import base64

    from starlette.datastructures import UploadFile

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


def integer_text(text: str, name: str) -> int:
    """A multipart text field read as an integer, by the same rule as a JSON number (``"6.0"`` is 6;
    :mod:`gatewaykit.request_numbers`)."""
    try:
        return int(text)
    except ValueError:
        pass
    try:
        value = as_integer(float(text))
    except (ValueError, OverflowError):
        value = None
    if value is None:
        raise bad_request(f"'{name}' must be an integer; got {text[:40]!r}.", param=name)
    return value
