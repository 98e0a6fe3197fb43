"""``/_classroom/*`` for the course policy (the teacher's admin token, as every ``/_classroom`` route):

``GET  /_classroom/audit``                 every admin action: ``{"rows": [{at, action, student, detail, origin}]}``
``POST /_classroom/schedules``             ``{"start", "end", "reason"}`` (ISO 8601; naive: the classroom's zone):
                                           an AI-off window
``GET  /_classroom/schedules``             ``{"rows": [{id, start, end, reason, state}]}``
``POST /_classroom/assignments``           ``{"name", "cap_usd", "start", "end", "models"}``
``GET  /_classroom/assignments``           ``{"rows": [{name, cap_usd, start, end, models, open}]}``
``GET  /_classroom/prompts``               the prompt log (empty unless ``log_prompts``): ``{"rows": [...]}``
``GET  /_classroom/students/{student}/pseudonym``  the pseudonym the prompt log keeps the student under

Each action is written to the audit log with where it came from
(:mod:`gatewaykit.classroom.audit_log`); so is a pseudonym looked up.
"""

from __future__ import annotations

import math
from typing import Any, Optional

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from gatewaykit.classroom.admin import _json, _state, _student, audited, time_of
from gatewaykit.classroom.state import ClassroomState
from gatewaykit.money import nanos_to_usd, usd_to_nanos
from gatewaykit.serving.errors import ApiError, bad_request
from gatewaykit.serving.responses import JSONResponse

__all__ = ["policy_routes"]


async def _admin(request: Request) -> tuple[ClassroomState, dict[str, Any]]:
    state = _state(request)
    return state, (await _json(request) if request.method == "POST" else {})


async def audit(request: Request) -> Response:
    state, _ = await _admin(request)
    shown = state.policy.shown
    return JSONResponse({"rows": [{**row, "at": shown(row["at"])} for row in state.policy.audit.rows()]})


async def add_schedule(request: Request) -> Response:
    state, body = await _admin(request)
    reason = body.get("reason")
    if reason is not None and not isinstance(reason, str):
        raise bad_request("reason must be text.", param="reason")
    for name in ("start", "end"):
        if body.get(name) is None:
            raise bad_request(f"{name} is required (ISO 8601, e.g. '2026-12-14T09:00').", param=name)
    start, end = time_of(state, body["start"], "start"), time_of(state, body["end"], "end")
    policy = state.policy
    try:
        window = policy.schedules.add(start, end, reason[:500] if reason else None, policy.now())
    except ValueError as exc:
        raise bad_request(str(exc), param="end") from None
    row = policy.schedules.row(window, policy.now(), policy.shown)
    audited(state, request, "schedule pause", start=row["start"], end=row["end"], reason=window.reason)
    return JSONResponse(row)


async def schedules(request: Request) -> Response:
    state, _ = await _admin(request)
    policy = state.policy
    now = policy.now()
    return JSONResponse({"rows": [policy.schedules.row(w, now, policy.shown) for w in policy.schedules.all()]})


def _models(state: ClassroomState, value: Any) -> Optional[list[str]]:
    if value is None:
        return None
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not value or not all(isinstance(m, str) and m for m in value):
        raise bad_request("models must be a list of model ids.", param="models")
    allowed = state.settings.models
    unknown = sorted(m for m in value if m not in state.catalog.entries or (allowed is not None and m not in allowed))
    if unknown:
        raise bad_request(f"models {', '.join(unknown)} are not models this class may use; choose from "
                          f"{', '.join(sorted(allowed if allowed is not None else state.catalog.entries))}.",
                          param="models")
    return sorted(set(value))


async def add_assignment(request: Request) -> Response:
    state, body = await _admin(request)
    name = body.get("name")
    if not isinstance(name, str) or not name.strip() or len(name) > 200:
        raise bad_request("name must be the assignment's name (text, up to 200 characters).", param="name")
    cap = body.get("cap_usd")
    if isinstance(cap, bool) or not isinstance(cap, (int, float)) or not math.isfinite(cap) or cap < 0:
        raise bad_request(f"cap_usd must be a number of dollars >= 0 (each student's cap on the assignment); got "
                          f"{cap!r:.40}.", param="cap_usd")
    policy = state.policy
    start = policy.now() if body.get("start") is None else time_of(state, body["start"], "start")
    end = None if body.get("end") is None else time_of(state, body["end"], "end")
    models = _models(state, body.get("models"))
    try:
        assignment = policy.assignments.add(name.strip(), usd_to_nanos(cap), start, end, models, policy.shown)
    except ValueError as exc:
        raise bad_request(str(exc), param="start") from None
    state.budgets.assignment_caps[assignment.name] = assignment.cap_nanos
    row = _assignment_row(state, assignment)
    audited(state, request, "add assignment", name=row["name"], cap_usd=row["cap_usd"], start=row["start"],
            end=row["end"], models=row["models"])
    return JSONResponse(row)


def _assignment_row(state: ClassroomState, assignment: Any) -> dict[str, Any]:
    policy = state.policy
    return {"name": assignment.name, "cap_usd": nanos_to_usd(assignment.cap_nanos),
            "start": policy.shown(assignment.start), "end": policy.shown(assignment.end),
            "models": None if assignment.models is None else sorted(assignment.models),
            "open": assignment.open_at(policy.now())}


async def assignments(request: Request) -> Response:
    state, _ = await _admin(request)
    return JSONResponse({"rows": [_assignment_row(state, a) for a in state.policy.assignments.all()]})


async def prompts(request: Request) -> Response:
    state, _ = await _admin(request)
    policy = state.policy
    if policy.prompts is None:
        return JSONResponse({"log_prompts": False, "rows": []})
    policy.prompts.purge(policy.now())
    return JSONResponse({"log_prompts": True, "retention_days": state.settings.retention_days,
                         "rows": [{**row, "at": policy.shown(row["at"])} for row in state.store.prompt_rows()]})


async def pseudonym(request: Request) -> Response:
    state, _ = await _admin(request)
    student = _student(state, request)
    if state.policy.prompts is None:
        raise ApiError(409, "This class keeps no prompts (start it with log_prompts=True / --log-prompts), so it "
                       "has no pseudonyms.", code="prompts_not_kept")
    audited(state, request, "pseudonym looked up", student)
    return JSONResponse({"student": student, "pseudonym": state.policy.prompts.pseudonym(student)})


def policy_routes() -> list[Route]:
    return [
        Route("/_classroom/audit", audit, methods=["GET"]),
        Route("/_classroom/schedules", add_schedule, methods=["POST"]),
        Route("/_classroom/schedules", schedules, methods=["GET"]),
        Route("/_classroom/assignments", add_assignment, methods=["POST"]),
        Route("/_classroom/assignments", assignments, methods=["GET"]),
        Route("/_classroom/prompts", prompts, methods=["GET"]),
        Route("/_classroom/students/{student}/pseudonym", pseudonym, methods=["GET"]),
    ]
