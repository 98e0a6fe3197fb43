"""``/v1/videos``: create, retrieve, content (302 to the MP4) and delete."""

from __future__ import annotations

import re
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from gatewaykit.emulator.admission import admit, resolve_model
from gatewaykit.emulator.catalog import VIDEO_RESOLUTIONS, ModelSpec
from gatewaykit.emulator.chat.vision import decode_data_uri
from gatewaykit.emulator.fields import opt_bool, opt_enum, opt_int, opt_seed, opt_str, require_str
from gatewaykit.emulator.gateway import Gateway
from gatewaykit.emulator.jobs import Job, new_job_id
from gatewaykit.emulator.pricing import video_price
from gatewaykit.emulator.routes.job_views import job_content, job_view, owned_job, retrieve_job
from gatewaykit.serving.bodies import read_json_or_form
from gatewaykit.serving.errors import bad_request
from gatewaykit.serving.holds import Hold
from gatewaykit.serving.responses import JSONResponse

_RATIOS = {"16:9": (16, 9), "9:16": (9, 16), "1:1": (1, 1)}


def _even(value: float) -> int:
    return max(2, int(round(value / 2)) * 2)


def _frame(resolution: str, ratio: str) -> tuple[int, int]:
    short = VIDEO_RESOLUTIONS[resolution]
    a, b = _RATIOS[ratio]
    return (_even(short * a / b), short) if a >= b else (short, _even(short * b / a))


async def _reference(gateway: Gateway, account_id: str, spec: ModelSpec,
                     body: dict[str, Any]) -> tuple[bool, bytes | None, str]:
    """(image-to-video?, reference bytes or None for an unfetchable URL, the reference's aspect ratio)."""
    from gatewaykit.emulator.media import MediaError, inspect_image

    value = opt_str(body, "input_reference")
    if value is None:
        return False, None, "16:9"
    if spec.parameter("input_reference") is None:
        raise bad_request(f"{spec.id} does not support image-to-video; leave out 'input_reference'.",
                          param="input_reference")
    if re.match(r"https?://", value, re.I):
        return True, None, "16:9"  # not fetched offline: the clip is animated from the prompt alone
    if not value.startswith("data:"):
        raise bad_request("'input_reference' must be an image URL or a data: URI.", param="input_reference")
    data = decode_data_uri(value, "input_reference")
    try:
        facts = await gateway.run_decoding(account_id, inspect_image, data)
    except MediaError as exc:
        raise bad_request(f"'input_reference' is not a usable image: {exc}", param="input_reference") from None
    ratio = min(_RATIOS, key=lambda r: abs(_RATIOS[r][0] / _RATIOS[r][1] - facts.width / facts.height))
    return True, data, ratio


async def create_video(request: Request) -> Response:
    gateway: Gateway = request.app.state.gateway
    caller = await admit(request, gateway)
    body = await read_json_or_form(request, gateway, integers=("duration", "seed"), booleans=("generate_audio",))
    spec = resolve_model(body, gateway, caller, "video")
    prompt = require_str(body, "prompt")
    if len(prompt) > spec.entry["prompt_max_length"]:
        raise bad_request(f"The prompt is {len(prompt)} characters; {spec.id} accepts at most "
                          f"{spec.entry['prompt_max_length']}.", param="prompt", code="PROMPT_TOO_LONG")
    params = spec.entry["parameters"]
    resolution = opt_enum(body, "resolution", params["resolution"]["values"], params["resolution"]["default"]) \
        if "resolution" in params else "720p"
    duration_spec = params["duration"]
    duration: int
    if duration_spec["type"] == "range":
        duration = opt_int(body, "duration", duration_spec["min"], duration_spec["max"],
                           default=duration_spec["default"])
    else:
        duration = opt_enum(body, "duration", duration_spec["values"], duration_spec["default"])
    ratio = opt_enum(body, "aspect_ratio", params["aspect_ratio"]["values"], params["aspect_ratio"]["default"])
    audio = opt_bool(body, "generate_audio", params["generate_audio"]["default"])
    seed = opt_seed(body)
    price = video_price(spec, resolution, duration, bool(audio))
    # Held before the reference is decoded: of concurrent requests the balance covers once, the others
    # are 402 without decoding anything; released if the request fails before its job exists.
    hold = Hold.take(caller.account, price)
    try:
        image_to_video, reference, reference_ratio = await _reference(gateway, caller.account.id, spec, body)
        if ratio == "auto":
            if not image_to_video:
                raise bad_request("aspect_ratio 'auto' needs an input_reference image.", param="aspect_ratio")
            ratio = reference_ratio
        width, height = _frame(resolution, ratio)
        seed = seed if seed is not None else gateway.random_seed(body)

        def render() -> tuple[bytes, float]:
            from gatewaykit.emulator.media import render_video

            key = ("video", prompt, seed, duration, width, height, audio, reference)
            data = gateway.media_cache.get_or_make(key, lambda: render_video(
                prompt, seed=seed, seconds=duration, width=width, height=height, audio=bool(audio),
                reference=reference))
            return data, float(duration)

        job = Job(id=new_job_id("video", gateway.ids, body), kind="video",
                  token=gateway.ids.token("video-link", body), created_at=gateway.ids.now(),
                  owner=caller.key.digest, account=caller.account, model=spec.id, price=price, render=render,
                  queued_seconds=1.0, run_seconds=2.0 + 0.4 * duration, fail=caller.fault == "job-fail",
                  size=f"{width}x{height}", seconds=str(duration))
        gateway.jobs.create(job, hold)
    except BaseException:
        hold.release()  # (nothing once the job holds it: a job is never created before the last line)
        raise
    return JSONResponse(job_view(request, job))


async def retrieve_video(request: Request) -> Response:
    return await retrieve_job(request, "video")


async def video_content(request: Request) -> Response:
    return await job_content(request, "video")


async def delete_video(request: Request) -> Response:
    """Unfinished: cancel (status ``cancelled``, never charged). Finished: delete (then 404)."""
    gateway: Gateway = request.app.state.gateway
    caller = await admit(request, gateway)
    job = owned_job(request, gateway, caller.key.digest, "video")
    if job.status in ("queued", "in_progress"):
        gateway.jobs.cancel(job)
        return JSONResponse(job_view(request, job))
    view = job_view(request, job)
    view.pop("videos", None)
    gateway.jobs.remove(job)
    return JSONResponse({**view, "status": "deleted", "deleted": True})


async def video_job(request: Request) -> Response:
    """``GET`` retrieves, ``DELETE`` cancels or deletes (one route, so 405 lists both methods)."""
    if request.method == "DELETE":
        return await delete_video(request)
    return await retrieve_video(request)
