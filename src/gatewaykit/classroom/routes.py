"""The ``/v1`` routes students call: each authenticates the student's key, checks the class rules,
holds the worst case, and forwards with the teacher's key (:mod:`gatewaykit.classroom.passthrough`).

Order of checks: the key (401), the kill switch (503), the model (403), the
request limit and the cap (402). Anything else (a bad field, an unknown model)
is the gateway's to refuse, and its refusal is passed on unchanged.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any, Optional

import orjson
from starlette.requests import Request
from starlette.responses import Response

from gatewaykit.classroom.jobs import (
    JOB_PATHS, delete_job, job_path, owned_job, settle_completed, settle_from_view, with_settled_cost,
)
from gatewaykit.classroom.media_links import fetch_media, public_base, rewrite_links
from gatewaykit.classroom.passthrough import forward_billed, unanswered, upstream_error
from gatewaykit.classroom.prompt_log import Transcript, answer_of, prompt_of
from gatewaykit.classroom.report import student_budget
from gatewaykit.classroom.state import ClassroomState
from gatewaykit.classroom.store import NO_BALANCE, OpenHold
from gatewaykit.classroom.upstream import UpstreamFailure
from gatewaykit.request_numbers import as_integer
from gatewaykit.serving.bodies import body_read, read_json, read_json_or_form
from gatewaykit.serving.errors import bad_request
from gatewaykit.serving.responses import JSONResponse

__all__ = ["chat_completions", "my_budget", "create_music", "create_video", "edit_images", "generate_images", "list_models",
           "music_content", "music_job", "video_content", "video_job"]


#: The integer fields an image's price depends on (how many, how large).
_IMAGE_INTEGERS = ("n", "width", "height")


def _state(request: Request) -> ClassroomState:
    return request.app.state.classroom  # type: ignore[no-any-return]


def _limits(state: ClassroomState) -> Any:
    """What the offline gateway's body readers need to know: the largest body accepted."""
    return SimpleNamespace(settings=SimpleNamespace(max_body_bytes=state.settings.max_body_bytes))


async def authenticated(request: Request) -> tuple[ClassroomState, str]:
    """The classroom and the student whose key (or, with a keyless hub, whose hub token) the request carries."""
    state = _state(request)
    authorization = request.headers.get("authorization")
    if state.hub is not None:
        scheme, _, token = (authorization or "").partition(" ")
        token = token.strip()
        if scheme.lower() == "bearer" and token and len(token) <= 512 and not state.knows_key(token):
            return state, state.hub_student(await state.hub.user(token))
    return state, state.authenticate(authorization)


async def _admit(request: Request) -> tuple[ClassroomState, str]:
    state, student = await authenticated(request)
    state.check_open(student)  # before the body is read: a refusal here is counted under NO_MODEL
    return state, student


def _model(state: ClassroomState, student: str, body: dict[str, Any]) -> str:
    model = body.get("model")
    if not isinstance(model, str) or not model:
        raise bad_request("Missing required field 'model' (a model id from GET /v1/models).", param="model")
    state.check_model(student, model)
    return model


def _read_integers(body: dict[str, Any], names: tuple[str, ...]) -> None:
    """The integer fields a price depends on, read as the gateway reads them (``8.0`` is 8,
    :mod:`gatewaykit.request_numbers`) and written back; a value it would not read is refused here, so what is
    held is what the gateway will bill."""
    for name in names:
        value = body.get(name)
        if value is None:
            continue
        number = as_integer(value)
        if number is None:
            raise bad_request(f"{name} must be a whole number; got {value!r:.40}.", param=name)
        body[name] = number


def _transcript(state: ClassroomState, student: str, model: str, kind: str,
                body: dict[str, Any]) -> Optional[Transcript]:
    """Where this request's prompt and answer are kept: None unless the course keeps prompts (``log_prompts``)."""
    log = state.policy.prompts
    if log is None:
        return None
    return Transcript(log, state.policy.now(), student, model, kind, prompt_of(kind, body))


def _max_tokens(body: dict[str, Any], default: int) -> int:
    _read_integers(body, ("n", "max_tokens", "max_completion_tokens"))
    if body.get("max_tokens") is None and body.get("max_completion_tokens") is None:
        body["max_tokens"] = default
    given: list[int] = []
    for name in ("max_tokens", "max_completion_tokens"):
        value = body.get(name)
        if value is None:
            continue
        if value < 1:
            raise bad_request(f"{name} must be a whole number >= 1; got {value}.", param=name)
        given.append(value)
    return max(given)


async def _read_fields(request: Request, state: ClassroomState, integers: tuple[str, ...],
                       booleans: tuple[str, ...]) -> dict[str, Any]:
    """A JSON or multipart body as fields (the offline gateway's reader); a multipart form's files are closed
    (the raw body is what is forwarded)."""
    try:
        return await read_json_or_form(request, _limits(state), integers=integers, booleans=booleans)  # type: ignore[arg-type]
    finally:
        form = getattr(request, "_form", None)
        if form is not None:
            await form.close()


def _raw_body(request: Request) -> bytes:
    return body_read(request)  # read (and size-checked) by the shared reader


async def chat_completions(request: Request) -> Response:
    state, student = await _admit(request)
    body = await read_json(request, _limits(state))  # type: ignore[arg-type]
    model = _model(state, student, body)
    max_tokens = _max_tokens(body, state.settings.default_max_tokens)
    stream = body.get("stream") is True
    if stream:  # the final chunk then carries the cost the hold settles to
        options = body.get("stream_options")
        body["stream_options"] = {**(options if isinstance(options, dict) else {}), "include_usage": True}
    hold = state.take_hold(student, model, "chat", state.catalog.chat(body, max_tokens))
    return await forward_billed(state, hold, request.headers.items(), "/v1/chat/completions", orjson.dumps(body),
                                "application/json", stream=stream,
                                transcript=_transcript(state, student, model, "chat", body))


async def generate_images(request: Request) -> Response:
    state, student = await _admit(request)
    body = await read_json(request, _limits(state))  # type: ignore[arg-type]
    model = _model(state, student, body)
    _read_integers(body, _IMAGE_INTEGERS)
    hold = state.take_hold(student, model, "image", state.catalog.job_or_image("image", body))
    return await forward_billed(state, hold, request.headers.items(), "/v1/images/generations", _raw_body(request),
                                None, stream=body.get("stream") is True,
                                transcript=_transcript(state, student, model, "image", body))


async def edit_images(request: Request) -> Response:
    state, student = await _admit(request)
    body = await _read_fields(request, state, (*_IMAGE_INTEGERS, "seed"), ("stream",))
    model = _model(state, student, body)
    hold = state.take_hold(student, model, "image", state.catalog.job_or_image("image", body))
    return await forward_billed(state, hold, request.headers.items(), "/v1/images/edits", _raw_body(request),
                                None, stream=body.get("stream") is True,
                                transcript=_transcript(state, student, model, "image", body))


async def _create_job(request: Request, kind: str) -> Response:
    state, student = await _admit(request)
    body = await _read_fields(request, state, ("duration", "seed", "sample_rate", "bitrate"), ("generate_audio",))
    model = _model(state, student, body)
    _read_integers(body, ("duration",))
    quote = state.catalog.job_or_image(kind, body)
    hold = state.take_hold(student, model, kind, quote)
    upstream = state.upstream
    try:
        response = await upstream.send("POST", JOB_PATHS[kind], headers=request.headers.items(),
                                       content=_raw_body(request))
    except UpstreamFailure as failure:  # sent: the job may exist (and complete) with no id known here
        raise unanswered(state, hold, failure) from None
    if response.status_code == 402:  # the teacher's key cannot pay: the class's problem, never the student's
        state.budgets.release(hold.row_id, NO_BALANCE)
        raise state.balance.used_up()
    headers = upstream.response_headers(response)
    try:
        view = response.json() if response.status_code == 200 else None
    except ValueError:
        view = None
    job_id = view.get("id") if isinstance(view, dict) else None
    if not isinstance(view, dict) or not isinstance(job_id, str) or not job_id:
        state.budgets.release(hold.row_id, f"refused {response.status_code}")
        return Response(upstream.scrub(response.content), status_code=response.status_code, headers=headers)
    price = quote
    seconds = view.get("seconds")
    if kind == "video" and isinstance(seconds, (str, int, float)):
        try:  # the length the job bills at, as the gateway states it
            price = state.catalog.job_or_image(kind, body, seconds=float(seconds)) or quote
        except ValueError:
            pass
    state.balance.paid()
    transcript = _transcript(state, student, model, kind, body)
    if transcript is not None:
        transcript.answered(answer_of(kind, view))
    state.store.attach_job(hold.row_id, job_id, kind, price)
    state.watched_jobs[job_id] = OpenHold(hold.row_id, student, model, kind, hold.nanos, hold.window, job_id, price)
    settle_from_view(state, hold.row_id, view, price)
    return Response(upstream.scrub(_own_links(request, state, kind, view, response.content)), status_code=200,
                    headers=headers)


def _own_links(request: Request, state: ClassroomState, kind: str, view: Any, data: bytes) -> bytes:
    """The job view's JSON with its media links on the classroom (``data`` as it was when it has none)."""
    if rewrite_links(view, kind, public_base(request, state.settings.root_path)):
        return orjson.dumps(view)
    return data


async def create_video(request: Request) -> Response:
    return await _create_job(request, "video")


async def create_music(request: Request) -> Response:
    return await _create_job(request, "music")


async def _job(request: Request, kind: str) -> Response:
    """Retrieve or cancel (``DELETE``) a job the student created; polling settles an ended job, a ``DELETE`` settles
    it as it ended (:func:`gatewaykit.classroom.jobs.delete_job`). Its media links point at the classroom
    (:mod:`gatewaykit.classroom.media_links`); a job the classroom charged shows what it cost."""
    state, student = await authenticated(request)
    job_id = request.path_params["job_id"]
    row_id = owned_job(state, student, kind, job_id)
    upstream = state.upstream
    watched = state.watched_jobs.get(job_id)
    try:
        if request.method == "DELETE":
            response = await delete_job(state, row_id, kind, job_id, request.headers.items())
        else:
            response = await upstream.send("GET", job_path(kind, job_id), headers=request.headers.items(),
                                           params=request.query_params)
    except UpstreamFailure as failure:
        raise upstream_error(failure) from None
    data = response.content
    if response.status_code == 200:
        try:
            view = response.json()
        except ValueError:
            view = None
        if request.method != "DELETE":
            settle_from_view(state, row_id, view, watched.price_nanos if watched else None)
        costed = with_settled_cost(state, row_id, view)
        if rewrite_links(view, kind, public_base(request, state.settings.root_path)) or costed:
            data = orjson.dumps(view)
    return Response(upstream.scrub(data), status_code=response.status_code,
                    headers=upstream.response_headers(response))


async def _content(request: Request, kind: str) -> Response:
    """The finished file of a job the student created, fetched by the classroom (the gateway's redirect is
    followed here: the student never sees the gateway's address)."""
    state, student = await authenticated(request)
    job_id = request.path_params["job_id"]
    row_id = owned_job(state, student, kind, job_id)
    try:
        answer = await fetch_media(state, request, job_path(kind, job_id) + "/content")
        if answer.status_code in (200, 206):  # there is a file: the job completed, and the gateway billed it
            await settle_completed(state, row_id, kind, job_id)
        return answer
    except UpstreamFailure as failure:
        raise upstream_error(failure) from None


async def video_job(request: Request) -> Response:
    return await _job(request, "video")


async def video_content(request: Request) -> Response:
    return await _content(request, "video")


async def music_job(request: Request) -> Response:
    return await _job(request, "music")


async def music_content(request: Request) -> Response:
    return await _content(request, "music")


async def my_budget(request: Request) -> Response:
    """``GET /_classroom/me``: the student's own budget (their key, not the admin token); answered while the
    class is paused too (it says so)."""
    state, student = await authenticated(request)
    return JSONResponse(student_budget(state, student))


async def list_models(request: Request) -> Response:
    """The gateway's list, narrowed to the class's models when the teacher chose some; each chat model says the
    ``default_max_tokens`` the class sets on a chat that leaves it out (what a client quotes such a chat at)."""
    state, _ = await authenticated(request)
    upstream = state.upstream
    try:
        response = await upstream.send("GET", "/v1/models", headers=request.headers.items())
    except UpstreamFailure as failure:
        raise upstream_error(failure) from None
    data = response.content
    allowed = state.settings.models
    try:
        listing = orjson.loads(data) if response.status_code == 200 else None
    except orjson.JSONDecodeError:
        listing = None
    if isinstance(listing, dict) and isinstance(listing.get("data"), list):
        listing["data"] = [m for m in listing["data"] if isinstance(m, dict)
                           and (allowed is None or m.get("id") in allowed)]
        for entry in listing["data"]:
            if state.catalog.kind_of(str(entry.get("id"))) == "chat":
                entry["default_max_tokens"] = state.settings.default_max_tokens
        data = orjson.dumps(listing)
    return Response(upstream.scrub(data), status_code=response.status_code, headers=upstream.response_headers(response))
