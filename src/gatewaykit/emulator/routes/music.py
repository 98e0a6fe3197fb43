"""``/v1/audio/generations``: music jobs (create, retrieve, content)."""

from __future__ import annotations

import re

from starlette.requests import Request
from starlette.responses import Response

from gatewaykit.emulator.admission import admit, require_funds, resolve_model
from gatewaykit.emulator.fields import opt_enum, opt_seed, require_str
from gatewaykit.emulator.gateway import Gateway
from gatewaykit.emulator.jobs import Job, new_job_id
from gatewaykit.emulator.pricing import music_price
from gatewaykit.emulator.routes.job_views import job_content, retrieve_job
from gatewaykit.serving.bodies import read_json
from gatewaykit.serving.errors import bad_request
from gatewaykit.serving.responses import JSONResponse

_TAG_LINE = re.compile(r"^\s*\[[A-Za-z][A-Za-z0-9 _\-]*\]\s*$", re.M)


async def create_music(request: Request) -> Response:
    gateway: Gateway = request.app.state.gateway
    caller = await admit(request, gateway)
    body = await read_json(request, gateway)
    spec = resolve_model(body, gateway, caller, "music")
    prompt = require_str(body, "prompt")
    limit = spec.entry["prompt_max_length"]
    if len(prompt) > limit:
        raise bad_request(f"The style prompt is {len(prompt)} characters; {spec.id} accepts at most {limit}.",
                          param="prompt", code="PROMPT_TOO_LONG")
    lyrics = body.get("lyrics_prompt")
    if lyrics is None:
        raise bad_request(f"{spec.id} needs 'lyrics_prompt': lyrics with [Verse] and [Chorus] tag lines.",
                          param="lyrics_prompt")
    lyrics = require_str(body, "lyrics_prompt")
    if not 10 <= len(lyrics) <= 3000:
        raise bad_request(f"'lyrics_prompt' must be 10 to 3000 characters; got {len(lyrics)}.",
                          param="lyrics_prompt")
    if not _TAG_LINE.search(lyrics):
        raise bad_request("'lyrics_prompt' needs at least one section tag on its own line, such as [Verse] or "
                          "[Chorus], with the lyric lines under it.", param="lyrics_prompt")
    params = spec.entry["parameters"]
    sample_rate = opt_enum(body, "sample_rate", params["sample_rate"]["values"], params["sample_rate"]["default"])
    bitrate = opt_enum(body, "bitrate", params["bitrate"]["values"], params["bitrate"]["default"])
    opt_enum(body, "format", ["mp3"], "mp3")
    seed = opt_seed(body)
    price = music_price(spec)
    require_funds(caller, price)
    seed = seed if seed is not None else gateway.random_seed(body)

    def render() -> tuple[bytes, float]:
        from gatewaykit.emulator.media import render_song

        key = ("song", prompt, lyrics, seed, sample_rate, bitrate)
        return gateway.media_cache.get_or_make(key, lambda: render_song(
            prompt, lyrics, seed=seed, sample_rate=sample_rate, bitrate=bitrate))

    job = Job(id=new_job_id("music", gateway.ids, body), kind="music", token=gateway.ids.token("music-link", body),
              created_at=gateway.ids.now(), owner=caller.key.digest, account=caller.account,
              model=spec.id, price=price, render=render, queued_seconds=0.0, run_seconds=4.0,
              fail=caller.fault == "job-fail", status="in_progress")
    gateway.jobs.create(job)
    return JSONResponse({"id": job.id, "object": "audio", "model": spec.id, "status": job.status})


async def retrieve_music(request: Request) -> Response:
    return await retrieve_job(request, "music")


async def music_content(request: Request) -> Response:
    return await job_content(request, "music")
