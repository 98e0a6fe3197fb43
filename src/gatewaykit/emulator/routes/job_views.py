"""JSON views of jobs, lookups that answer ``video_not_found`` / ``audio_not_found``,
and the retrieve and content endpoints both job kinds share."""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from gatewaykit.emulator.admission import admit
from gatewaykit.emulator.gateway import Gateway
from gatewaykit.emulator.host_check import own_origin
from gatewaykit.emulator.jobs import Job
from gatewaykit.serving.errors import not_found
from gatewaykit.serving.responses import JSONResponse


def media_url(request: Request, job: Job) -> str:
    """The job's media link on the address the request came in on (never from its Host header)."""
    return (own_origin(request.scope) or str(request.base_url).rstrip("/")) + job.media_path()


def job_view(request: Request, job: Job) -> dict[str, Any]:
    view: dict[str, Any] = {"id": job.id, "object": "video" if job.kind == "video" else "audio",
                            "model": job.model, "status": job.status, "created_at": job.created_at,
                            "progress": job.progress()}
    if job.kind == "video":
        view["size"] = job.size
        view["seconds"] = job.seconds
    if job.status == "completed":
        view["completed_at"] = job.completed_at
        link = [{"type": "url", "url": media_url(request, job), "content_type": job.content_type}]
        view["videos" if job.kind == "video" else "audio"] = link
        if job.kind == "music":
            view["seconds"] = job.seconds
    if job.status == "failed":
        view["error"] = {"message": job.error, "code": "generation_failed"}
    return view


def owned_job(request: Request, gateway: Gateway, owner: str, kind: str) -> Job:
    """The job named in the path if this key created it; 404 ``*_not_found`` otherwise."""
    job_id = request.path_params["job_id"]
    job = gateway.jobs.get(job_id, owner, kind)
    if job is None:
        raise not_found(kind, job_id)
    return job


async def retrieve_job(request: Request, kind: str) -> Response:
    """``GET`` a job of ``kind`` (``video`` or ``music``) that the caller's key owns."""
    gateway: Gateway = request.app.state.gateway
    caller = await admit(request, gateway)
    return JSONResponse(job_view(request, owned_job(request, gateway, caller.key.digest, kind)))


async def job_content(request: Request, kind: str) -> Response:
    """302 to the finished media; 404 ``*_not_found`` before completion."""
    gateway: Gateway = request.app.state.gateway
    caller = await admit(request, gateway)
    job = owned_job(request, gateway, caller.key.digest, kind)
    if job.status != "completed":
        noun = "Video" if kind == "video" else "Audio"
        raise not_found(kind, job.id, f"{noun} job {job.id!r} is {job.status}; its content is available only "
                                      "once it is completed.")
    return RedirectResponse(media_url(request, job), status_code=302)
