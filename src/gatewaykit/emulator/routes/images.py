"""``POST /v1/images/generations`` (JSON) and ``POST /v1/images/edits`` (multipart).

With ``stream: true`` the answer is SSE: ``: keepalive`` comment lines while the
picture renders, then one ``event: image_generation.completed`` whose ``data``
is the same image response object a buffered request returns, plus OpenAI's event
fields: ``type`` and the first image's ``b64_json`` at the top level. A stream that
breaks off before that event is not charged.

The price is held (:class:`.holds.Hold`) before anything is decoded or drawn, so a request the
balance cannot cover is a 402 that costs no work; it is charged once the images are delivered and
released when drawing fails or the client leaves. Drawing runs in the request pool at most
``ACCOUNT_WORKERS`` requests of one account at a time, so one account's big requests queue behind
each other instead of taking the threads every account's chats use.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import time
from functools import partial
from typing import Any, AsyncIterator

import orjson
from starlette.datastructures import UploadFile
from starlette.formparsers import MultiPartException
from starlette.requests import Request
from starlette.responses import Response

from gatewaykit.emulator.admission import Caller, admit, resolve_model
from gatewaykit.emulator.catalog import ModelSpec
from gatewaykit.emulator.chat.tokens import count_tokens
from gatewaykit.emulator.faults import DropConnection
from gatewaykit.emulator.gateway import Gateway
from gatewaykit.emulator.image_sampling import drifted_prompt, request_seed
from gatewaykit.emulator.image_sizing import ImageRequest, form_to_body, parse_image_request
from gatewaykit.emulator.pricing import cost_object, image_price
from gatewaykit.serving.bodies import read_form, read_json
from gatewaykit.serving.errors import ApiError, bad_request
from gatewaykit.serving.holds import Hold
from gatewaykit.serving.responses import SSE_HEADERS, HeldStreamingResponse, JSONResponse

_MIME = {"png": "image/png", "jpeg": "image/jpeg", "webp": "image/webp"}
MAX_FORM_FILES = 32


async def generate_images(request: Request) -> Response:
    gateway: Gateway = request.app.state.gateway
    caller = await admit(request, gateway, streamable=True)
    body = await read_json(request, gateway)
    spec = resolve_model(body, gateway, caller, "image")
    job = parse_image_request(spec, body)
    return await _answer(gateway, caller, spec, job, [], Hold.take(caller.account, _price(spec, job)))


async def edit_images(request: Request) -> Response:
    gateway: Gateway = request.app.state.gateway
    caller = await admit(request, gateway, streamable=True)
    content_type = request.headers.get("content-type", "")
    if not content_type.lower().startswith("multipart/form-data"):
        raise bad_request("Image edits are sent as multipart/form-data with the images as 'image[]' parts.")
    try:
        form = await read_form(request, gateway, max_files=MAX_FORM_FILES, max_fields=64)
    except MultiPartException as exc:
        raise bad_request(f"The multipart body could not be read: {exc.message}") from None
    hold = None
    try:
        body = form_to_body(form)
        spec = resolve_model(body, gateway, caller, "image")
        image_request = parse_image_request(spec, body)
        hold = Hold.take(caller.account, _price(spec, image_request))  # before any image is decoded
        parts = [*form.getlist("image[]"), *form.getlist("image")]
        references = await _reference_images(gateway, caller.account.id, spec, parts)
    except BaseException:
        if hold is not None:
            hold.release()
        raise
    finally:
        await form.close()  # the uploads' spooled temporary files; unclosed they warn (ResourceWarning)
    return await _answer(gateway, caller, spec, image_request, references, hold)


async def _reference_images(gateway: Gateway, account_id: str, spec: ModelSpec, parts: list[Any]) -> list[bytes]:
    from gatewaykit.emulator.media import MediaError, inspect_image
    from gatewaykit.emulator.media.decoding import MAX_INPUT_PIXELS, MAX_REQUEST_PIXELS, declared_pixels

    limit = spec.entry["edit"]["max_reference_images"]
    if not parts:
        raise bad_request("Send at least one input image as an 'image[]' (or 'image') file part.", param="image")
    if len(parts) > limit:
        raise bad_request(f"{spec.id} accepts at most {limit} reference image{'s' * (limit > 1)}; "
                          f"got {len(parts)}.", param="image")
    images = []
    for number, part in enumerate(parts, 1):
        if not isinstance(part, UploadFile):
            raise bad_request(f"Image {number} must be a file part, not a text field.", param="image")
        images.append(await part.read())
    total = 0
    for number, (part, data) in enumerate(zip(parts, images), 1):
        try:
            total += declared_pixels(data)  # from the headers: nothing decoded yet
        except MediaError as exc:
            raise _unusable(number, part, exc) from None
    if total > MAX_REQUEST_PIXELS:
        raise bad_request(f"The input images have {total:,} pixels in all; one request may send at most "
                          f"{MAX_REQUEST_PIXELS:,} (each image at most {MAX_INPUT_PIXELS:,}). Send fewer or "
                          "smaller images.", param="image")
    for number, (part, data) in enumerate(zip(parts, images), 1):  # one at a time: one full decode in memory
        try:
            await gateway.run_decoding(account_id, inspect_image, data)
        except MediaError as exc:
            raise _unusable(number, part, exc) from None
    return images


def _unusable(number: int, part: Any, exc: Exception) -> ApiError:
    return bad_request(f"Image {number} ({part.filename or 'unnamed'}) is not a usable image: {exc}", param="image")


def _price(spec: ModelSpec, job: ImageRequest) -> int:
    return job.n * image_price(spec, job.width, job.height, job.quality, job.resolution)


def _render(gateway: Gateway, spec: ModelSpec, job: ImageRequest, seed: int, references: list[bytes]) -> list[bytes]:
    from gatewaykit.emulator.media import draw_image

    refs_key = hashlib.sha256(b"".join(hashlib.sha256(r).digest() for r in references)).hexdigest()
    outputs = []
    for index in range(job.n):
        prompt = drifted_prompt(job, seed, index) or job.prompt  # temperature > 0: a picture may drift
        key = ("image", prompt, seed + index, job.width, job.height, job.output_format, job.quality, refs_key)
        outputs.append(gateway.media_cache.get_or_make(key, partial(
            draw_image, prompt, seed=seed + index, width=job.width, height=job.height, fmt=job.output_format,
            references=references or None, quality=job.quality)))
    return outputs


def _result(spec: ModelSpec, job: ImageRequest, images: list[bytes], price: int, created: int) -> dict[str, Any]:
    data = []
    for index, image in enumerate(images):
        encoded = base64.b64encode(image).decode()
        item: dict[str, Any] = {"index": index, "revised_prompt": job.prompt}
        if job.response_format == "url":
            item["url"] = f"data:{_MIME[job.output_format]};base64,{encoded}"
        else:
            item["b64_json"] = encoded
        data.append(item)
    prompt_tokens = count_tokens(job.prompt)
    image_tokens = job.n * max(1, job.width * job.height // 1024)
    usage = {
        "prompt_tokens": prompt_tokens, "completion_tokens": image_tokens,
        "total_tokens": prompt_tokens + image_tokens,
        "prompt_tokens_details": {"text_tokens": prompt_tokens, "image_tokens": 0, "cached_tokens": 0},
        "completion_tokens_details": {"image_tokens": image_tokens, "text_tokens": 0, "reasoning_tokens": 0},
        "cost": cost_object({"input_tokens_cost": 0, "output_tokens_cost": 0, "reasoning_tokens_cost": 0,
                             "citation_tokens_cost": 0, "search_queries_cost": 0, "request_cost": price}),
    }
    return {"created": created, "model": spec.id, "size": job.size, "output_format": job.output_format,
            "data": data, "usage": usage}


def _completed_event(spec: ModelSpec, job: ImageRequest, images: list[bytes], price: int,
                     created: int) -> dict[str, Any]:
    """The terminal event's payload: the whole image response, plus what OpenAI's own event carries
    (``type`` and the first image's ``b64_json`` at the top level), so openai-python's typed
    ``ImageGenCompletedEvent`` reads ``event.type`` and ``event.b64_json``."""
    result = _result(spec, job, images, price, created)
    first = result["data"][0] if result["data"] else {}
    event = {"type": "image_generation.completed", **result, "created_at": result["created"],
             "quality": job.quality or "auto", "background": getattr(job, "background", None) or "auto"}
    if "b64_json" in first:
        event["b64_json"] = first["b64_json"]
    elif "url" in first:
        event["url"] = first["url"]
    return event


async def _answer(gateway: Gateway, caller: Caller, spec: ModelSpec, job: ImageRequest,
                  references: list[bytes], hold: Hold) -> Response:
    """Draw the images (their price already held by ``hold``), then charge it; released on any failure."""
    try:
        if caller.fault == "disconnect" and not job.stream:
            raise DropConnection()
        seed = request_seed(gateway, job, [spec.id, job.prompt, job.n, job.size, job.output_format, len(references)])
        created = gateway.ids.now()
        render = gateway.run_for_account(caller.account.id, _render, gateway, spec, job, seed, references)
        simulated = gateway.scaled(1.0 + 0.5 * job.n)
        if job.stream:
            drop = caller.fault in ("disconnect", "stream-drop")
            task = asyncio.ensure_future(render)
            return HeldStreamingResponse(_stream(hold, spec, job, task, simulated, drop, created), hold,
                                         media_type="text/event-stream", headers=SSE_HEADERS)
        images, _ = await asyncio.gather(render, asyncio.sleep(simulated))
    except BaseException:
        hold.release()
        raise
    hold.charge()
    return JSONResponse(_result(spec, job, images, hold.nanos, created))


async def _stream(hold: Hold, spec: ModelSpec, job: ImageRequest, task: Any, simulated: float,
                  drop: bool, created: int) -> AsyncIterator[bytes]:
    """Keepalives, then the completed event; the held price is charged once the event was sent."""
    deadline = time.monotonic() + simulated
    interval = max(0.05, min(0.5, simulated / 4)) if simulated else 0.0
    try:
        yield b": keepalive\n\n"
        if drop:
            raise DropConnection()
        while not task.done() or time.monotonic() < deadline:
            await asyncio.wait({task}, timeout=interval or None)
            if not task.done() or time.monotonic() < deadline:
                yield b": keepalive\n\n"
        try:
            images = task.result()
        except ApiError as exc:
            hold.release()
            yield b"event: error\ndata: " + orjson.dumps(exc.envelope()) + b"\n\n"
            return
        event = _completed_event(spec, job, images, hold.nanos, created)
        yield b"event: image_generation.completed\ndata: " + orjson.dumps(event) + b"\n\n"
        hold.charge()
    finally:
        hold.release()  # nothing happens once charged
        if not task.done():
            task.cancel()
