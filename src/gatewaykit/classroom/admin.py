"""``/_classroom/*``: the teacher's endpoints, answered only with ``Authorization: Bearer <admin token>``.

Report, status, pause and resume, students (add, cap, revoke, reissue, a hub hook's key); every
action is written to the audit log (:func:`audited`). The course policy's routes are
:mod:`gatewaykit.classroom.admin_policy`'s. Each route and its body: ``docs/internals.md``.
"""

from __future__ import annotations

import math
from typing import Any, Optional

import orjson
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from gatewaykit.classroom.audit_log import origin_of
from gatewaykit.classroom.course_times import seconds_of
from gatewaykit.classroom.jobs import delete_job
from gatewaykit.classroom.report import class_totals, report_rows
from gatewaykit.classroom.roster import read_roster
from gatewaykit.classroom.state import ClassroomState
from gatewaykit.classroom.store import StudentExists
from gatewaykit.classroom.upstream import UpstreamFailure
from gatewaykit.classroom.upstream_balance import STATUS_KEY
from gatewaykit.serving.errors import ApiError, bad_request
from gatewaykit.serving.responses import JSONResponse

__all__ = ["admin_routes"]


def _state(request: Request) -> ClassroomState:
    state: ClassroomState = request.app.state.classroom
    scheme, _, presented = request.headers.get("authorization", "").partition(" ")
    if scheme.lower() != "bearer" or not state.admin_token_ok(presented):
        if scheme.lower() == "bearer" and presented.strip():
            message = ("The classroom does not accept this admin token. Use the one the classroom printed when the "
                       f"class first started (or the one given with {state.settings.names.admin_token}); a "
                       "student's key is not an admin token.")
        else:
            message = "The classroom's teacher endpoints need 'Authorization: Bearer <admin token>'."
        raise ApiError(401, message, code="invalid_admin_token")
    return state


async def _json(request: Request) -> dict[str, Any]:
    raw = await request.body()
    if not raw.strip():
        return {}
    try:
        body = orjson.loads(raw)
    except orjson.JSONDecodeError:
        raise bad_request("Send a JSON object.") from None
    if not isinstance(body, dict):
        raise bad_request("Send a JSON object.")
    return body


def _student(state: ClassroomState, request: Request) -> str:
    student = request.path_params["student"]
    if student not in state.known:
        raise ApiError(404, f"No student {student[:100]!r} in this class.", code="student_not_found", param="student")
    return student


def _cap(body: dict[str, Any]) -> Any:
    cap = body.get("cap_usd")
    if cap is None:
        return None
    if isinstance(cap, bool) or not isinstance(cap, (int, float)) or not math.isfinite(cap) or cap < 0:
        raise bad_request(f"cap_usd must be a number of dollars >= 0; got {cap!r:.40}.", param="cap_usd")
    return float(cap)


async def report(request: Request) -> Response:
    state = _state(request)
    try:
        rows = report_rows(state, request.query_params.get("by"))
    except ValueError as exc:
        raise bad_request(str(exc), param="by") from None
    return JSONResponse({"window": state.window.key(), "rows": rows})


async def status(request: Request) -> Response:
    state = _state(request)
    policy = state.policy
    closed = None if state.paused else policy.closed_by(policy.now())
    scheduled = None if closed is None else {"reason": closed.reason, "until": policy.shown(closed.end)}
    return JSONResponse({"paused": state.paused or closed is not None,
                         "reason": state.paused_reason if closed is None else closed.reason,
                         "scheduled_pause": scheduled, "window": state.window.key(),
                         "window_kind": state.window.kind, "students": len(state.known),
                         "open_jobs": len(state.open_jobs()), "upstream": state.upstream.base_url,
                         "buffered_bytes": state.upstream.buffers.in_use, STATUS_KEY: state.balance.status(),
                         **class_totals(report_rows(state))})


async def pause(request: Request) -> Response:
    state = _state(request)
    body = await _json(request)
    reason = body.get("reason")
    if reason is not None and not isinstance(reason, str):
        raise bad_request("reason must be text.", param="reason")
    state.pause(reason[:500] if reason else None)
    cancelled = await _cancel_videos(state) if body.get("cancel_jobs") is True else 0
    audited(state, request, "pause", reason=state.paused_reason, cancel_jobs=body.get("cancel_jobs") is True,
             cancelled_jobs=cancelled)
    return JSONResponse({"paused": True, "reason": state.paused_reason, "cancelled_jobs": cancelled})


async def _cancel_videos(state: ClassroomState) -> int:
    """Cancel every unfinished video job (music jobs cannot be cancelled); their holds are released. A video that
    had completed unseen is charged (:func:`gatewaykit.classroom.jobs.delete_job`), not counted as cancelled."""
    cancelled = 0
    for job_id, watched in state.open_jobs().items():  # (a shared class: every process's)
        if watched.kind != "video":
            continue
        try:
            response = await delete_job(state, watched.row_id, "video", job_id)
        except UpstreamFailure:
            continue
        if response.status_code == 200:
            try:
                status = response.json().get("status")
            except (ValueError, AttributeError):
                continue
            released = state.store.request_cost(watched.row_id) == 0
            cancelled += status in ("cancelled", "canceled") or (status == "deleted" and released)
    return cancelled


async def resume(request: Request) -> Response:
    state = _state(request)
    overridden = state.resume()
    policy = state.policy
    answer: dict[str, Any] = {"paused": False, "overrode": None}
    if overridden is not None:  # a manual resume during a scheduled window overrides it (docs/classroom.md)
        answer["overrode"] = policy.schedules.row(overridden, policy.now(), policy.shown)
    audited(state, request, "resume", overrode=answer["overrode"])
    return JSONResponse(answer)


async def add_student(request: Request) -> Response:
    state = _state(request)
    body = await _json(request)
    try:
        entry = read_roster([{"student": body.get("student"), "cap_usd": body.get("cap_usd")}])[0]
        key = state.add_student(entry.student, entry.cap_usd)
    except StudentExists as exc:  # (added a moment ago by another classroom process too)
        raise ApiError(409, str(exc), code="student_exists", param="student") from None
    except ValueError as exc:
        raise bad_request(str(exc).replace("roster item 1: ", ""), param="student") from None
    audited(state, request, "add student", entry.student, cap_usd=entry.cap_usd)
    return JSONResponse({"student": entry.student, "key": key})


async def set_cap(request: Request) -> Response:
    state = _state(request)
    student = _student(state, request)
    body = await _json(request)
    cap, until = _cap(body), until_of(state, body)
    state.set_cap(student, cap, until)
    shown_until = state.policy.shown(until)
    audited(state, request, "set cap", student, cap_usd=cap, until=shown_until)
    answer: dict[str, Any] = {"student": student, "cap_usd": state.budgets.cap(student) / 1e9}
    if until is not None:
        answer["until"] = shown_until  # when the raise ends
    return JSONResponse(answer)


async def revoke(request: Request) -> Response:
    state = _state(request)
    student = _student(state, request)
    state.revoke(student)
    audited(state, request, "revoke", student)
    return JSONResponse({"student": student, "revoked": True})


async def reissue(request: Request) -> Response:
    state = _state(request)
    student = _student(state, request)
    key = state.reissue(student)
    audited(state, request, "reissue", student)
    return JSONResponse({"student": student, "key": key})


async def key_for(request: Request) -> Response:
    state = _state(request)
    student = request.path_params["student"]
    if state.known.get(student):  # revoked by the teacher: a server start must not hand a key back
        raise ApiError(403, f"The teacher has revoked {student[:100]!r}; only the teacher can reissue a key "
                       "(room.reissue or POST /_classroom/students/{student}/reissue).", code="student_revoked")
    if student in state.known:
        key = state.reissue(student)
        audited(state, request, "reissue", student, default_origin="hub hook")
        return JSONResponse({"student": student, "key": key, "new": False})
    try:
        entry = read_roster([student])[0]
        key = state.add_student(entry.student, None)
    except StudentExists:  # another classroom process added them a moment ago: as for a known student
        state.reload()
        return JSONResponse({"student": student, "key": state.reissue(student), "new": False})
    except ValueError as exc:
        raise bad_request(str(exc).replace("roster item 1: ", ""), param="student") from None
    audited(state, request, "add student", entry.student, default_origin="hub hook", cap_usd=None)
    return JSONResponse({"student": entry.student, "key": key, "new": True})


def audited(state: ClassroomState, request: Request, action: str, student: Optional[str] = None,
            default_origin: str = "http", **detail: Any) -> None:
    """Write an admin action to the audit log, with where the request says it came from."""
    policy = state.policy
    policy.audit.record(policy.now(), action, origin_of(request.headers, default_origin), student, **detail)


def time_of(state: ClassroomState, value: Any, name: str) -> float:
    """A time an admin body gives (ISO 8601; naive: the classroom's zone) as POSIX seconds; 400 naming ``name``."""
    try:
        return seconds_of(value, state.policy.clock, name)
    except ValueError as exc:
        raise bad_request(str(exc), param=name) from None


def until_of(state: ClassroomState, body: dict[str, Any]) -> Optional[float]:
    """A cap's ``until`` (POSIX seconds) from an admin body; 400 for one that is not in the future."""
    if body.get("until") is None:
        return None
    until = time_of(state, body["until"], "until")
    if until <= state.policy.now():
        raise bad_request(f"until must be in the future; got {body['until']!r:.60}", param="until")
    return until


def admin_routes() -> list[Route]:
    return [
        Route("/_classroom/report", report, methods=["GET"]),
        Route("/_classroom/status", status, methods=["GET"]),
        Route("/_classroom/pause", pause, methods=["POST"]),
        Route("/_classroom/resume", resume, methods=["POST"]),
        Route("/_classroom/students", add_student, methods=["POST"]),
        Route("/_classroom/students/{student}/cap", set_cap, methods=["POST"]),
        Route("/_classroom/students/{student}/revoke", revoke, methods=["POST"]),
        Route("/_classroom/students/{student}/reissue", reissue, methods=["POST"]),
        Route("/_classroom/students/{student}/key", key_for, methods=["POST"]),
    ]
