"""Video and music jobs through the classroom: created under a hold, owned by one student, settled once.

A job's worst case stays held until the gateway says it ended: ``completed`` is charged (reported
cost, else the catalog price), ``failed``/``cancelled`` released; a finished job deleted, or one the
gateway no longer knows, is charged, never released. Views of a charged job carry its settled cost.
Details: ``docs/internals.md``.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any, Optional

from gatewaykit.classroom.budgets import unknown_status
from gatewaykit.classroom.passthrough import reported_cost
from gatewaykit.classroom.state import ClassroomState
from gatewaykit.classroom.upstream import UpstreamResponse
from gatewaykit.money import nanos_to_usd
from gatewaykit.serving.errors import not_found

__all__ = ["JOB_PATHS", "delete_job", "job_path", "owned_job", "settle_completed", "settle_from_view", "watch_jobs",
           "with_settled_cost"]

log = logging.getLogger("gatewaykit.classroom")
JOB_PATHS = {"video": "/v1/videos", "music": "/v1/audio/generations"}
ENDED = {"completed": "ok", "failed": "failed", "cancelled": "cancelled", "canceled": "cancelled"}
RUNNING = ("queued", "in_progress")


def job_path(kind: str, job_id: str) -> str:
    from urllib.parse import quote

    return f"{JOB_PATHS[kind]}/{quote(job_id, safe='')}"


def owned_job(state: ClassroomState, student: str, kind: str, job_id: str) -> int:
    """The request row of ``job_id`` if ``student`` created it; 404 ``*_not_found`` otherwise."""
    found = state.store.job(job_id)
    if found is None or found[0] != student or found[1] != kind:
        raise not_found(kind, job_id[:100])
    return found[2]


def _ending(view: dict[str, Any], was_running: bool) -> Optional[str]:
    """How the job a view shows ended: ``ok``, ``failed``, ``cancelled``, ``unknown`` (charged), None: running."""
    status = str(view.get("status"))
    if status != "deleted":
        return ENDED.get(status)
    # DELETE of a finished job removes it: whether it was billed is whether it had completed
    if view.get("completed_at") is not None:
        return "ok"
    if view.get("error") is not None:
        return "failed"
    return "cancelled" if was_running else "unknown"


def _price(state: ClassroomState, row_id: int, price_nanos: Optional[int]) -> int:
    if price_nanos is None and state.budgets.shared:  # a job another process created: its price is in the store
        price_nanos = state.store.job_price(row_id)  # type: ignore[attr-defined]
    return price_nanos if price_nanos is not None else state.budgets.held(row_id)


def settle_from_view(state: ClassroomState, row_id: int, view: Any, price_nanos: Optional[int], *,
                     was_running: bool = False) -> None:
    """Settle the job's hold when ``view`` (the gateway's job JSON) shows it ended; nothing otherwise.

    ``was_running``: the gateway said the job was unfinished just before this view (the answer of a ``DELETE``):
    a ``deleted`` job that shows no completion is then a cancelled one."""
    if not isinstance(view, dict) or not state.budgets.is_open(row_id):
        return
    status = _ending(view, was_running)
    if status is None:
        return
    job_id = view.get("id") if isinstance(view.get("id"), str) else None
    if status == "ok":
        cost = reported_cost(view)
        state.budgets.settle(row_id, _price(state, row_id, price_nanos) if cost is None else cost, "ok", job_id)
    elif status == "unknown":
        state.budgets.settle(row_id, _price(state, row_id, price_nanos), unknown_status("deleted"), job_id)
    else:
        state.budgets.release(row_id, status, job_id)
    if job_id:
        state.watched_jobs.pop(job_id, None)


def _gone(state: ClassroomState, row_id: int, job_id: str, price_nanos: Optional[int]) -> None:
    """The gateway no longer knows the job (404): it may have completed (and been billed) unseen, so it is
    charged at its price, as unknown."""
    if state.budgets.settle(row_id, _price(state, row_id, price_nanos), unknown_status("not found at the gateway"),
                            job_id):
        log.warning("job %s is no longer known to the gateway; charged at its price (outcome unknown)", job_id[:100])
    state.watched_jobs.pop(job_id, None)


async def _teachers_view(state: ClassroomState, kind: str, job_id: str) -> Any:
    """The gateway's view of the job with the teacher's key: its JSON, ``{"_status": N}``, or None (unreachable)."""
    return await state.upstream.get_json(job_path(kind, job_id))


async def check_job(state: ClassroomState, job_id: str) -> None:
    """Ask the gateway (teacher's key) how one watched job is doing, and settle it if it ended."""
    watched = state.watched_jobs.get(job_id)
    found = state.store.job(job_id)
    if watched is None or found is None:
        return
    view = await _teachers_view(state, found[1], job_id)
    if isinstance(view, dict) and view.get("_status") == 404:
        _gone(state, found[2], job_id, watched.price_nanos)
        return
    settle_from_view(state, found[2], view, watched.price_nanos)


async def settle_completed(state: ClassroomState, row_id: int, kind: str, job_id: str) -> None:
    """The job's file was served, so it completed: settle it from the gateway's view (its reported cost), or at
    its price when the view does not say completed (say it was deleted meanwhile)."""
    if not state.budgets.is_open(row_id):
        return
    watched = state.watched_jobs.get(job_id)
    price = watched.price_nanos if watched is not None else None
    view = await _teachers_view(state, kind, job_id)
    if isinstance(view, dict) and view.get("status") == "completed":
        settle_from_view(state, row_id, view, price)
    else:
        state.budgets.settle(row_id, _price(state, row_id, price), "ok", job_id)
    state.watched_jobs.pop(job_id, None)


async def delete_job(state: ClassroomState, row_id: int, kind: str, job_id: str,
                     headers: Any = ()) -> UpstreamResponse:
    """``DELETE`` a job at the gateway, settled as it ended: a job the gateway shows finished is settled first
    (completed: charged), then the answer settles one still open. :class:`UpstreamFailure` passes through."""
    watched = state.watched_jobs.get(job_id)
    price = watched.price_nanos if watched is not None else None
    before = await _teachers_view(state, kind, job_id)
    settle_from_view(state, row_id, before, price)
    was_running = isinstance(before, dict) and before.get("status") in RUNNING
    response = await state.upstream.send("DELETE", job_path(kind, job_id), headers=headers)
    if response.status_code == 200:
        try:
            view = response.json()
        except ValueError:
            view = None
        settle_from_view(state, row_id, view, price, was_running=was_running)
    return response


def with_settled_cost(state: ClassroomState, row_id: int, view: Any) -> bool:
    """Put the cost the classroom charged for a completed (or deleted and charged) job into its view
    (``usage.cost.total_cost``) when the gateway reported none; True when the view changed."""
    if not isinstance(view, dict) or view.get("status") not in ("completed", "deleted"):
        return False
    if reported_cost(view) is not None:  # the gateway's own figure, passed on as it is
        return False
    cost = state.store.request_cost(row_id)
    if cost is None or (view.get("status") == "deleted" and cost == 0):  # a deleted job released: never charged
        return False
    usage = view.get("usage")
    view["usage"] = {**(usage if isinstance(usage, dict) else {}), "cost": {"total_cost": nanos_to_usd(cost)}}
    return True


async def _check_claimed(state: ClassroomState) -> None:
    """A class several processes share: check the jobs this process claimed (each is claimed by one process per
    ``job_check_seconds``; another claims it when this one stops)."""
    for watched in state.store.claim_jobs(state.settings.job_check_seconds):  # type: ignore[attr-defined]
        try:
            view = await _teachers_view(state, watched.kind, watched.job_id or "")
            if isinstance(view, dict) and view.get("_status") == 404:
                _gone(state, watched.row_id, watched.job_id or "", watched.price_nanos)
                continue
            settle_from_view(state, watched.row_id, view, watched.price_nanos)
        except Exception:  # noqa: BLE001 - one bad answer must not stop the watcher
            log.warning("could not check job %s", (watched.job_id or "")[:100], exc_info=True)


async def watch_jobs(state: ClassroomState) -> None:
    """Forever: every ``job_check_seconds``, check each unfinished job (the server cancels this at stop)."""
    while True:
        await asyncio.sleep(state.settings.job_check_seconds)
        if state.budgets.shared:
            try:
                await _check_claimed(state)
            except Exception:  # noqa: BLE001 - the database away: the next turn tries again
                log.warning("could not claim jobs to check", exc_info=False)
            continue
        for job_id in list(state.watched_jobs):
            try:
                await check_job(state, job_id)
            except Exception:  # noqa: BLE001 - one bad answer must not stop the watcher
                log.warning("could not check job %s", job_id[:100], exc_info=True)
