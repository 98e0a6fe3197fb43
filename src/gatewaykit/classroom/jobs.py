"""Video and music jobs through the classroom: created under a hold, owned by one student, settled once.

A job's worst case is held when it is created and stays held until the
gateway says the job ended: ``completed`` charges the gateway's reported cost
(a ``usage.cost.total_cost`` on the job, when there is one) or else the
catalog price of what the job bills at (its duration and resolution), which is
what the gateway charges; ``failed`` and ``cancelled`` release it. A job
settles when its student polls it through the classroom, or when the
background watcher (:func:`watch_jobs`) finds it ended, after a restart too.
A job id another student created is answered 404, as the gateway answers a
job of another key.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any, Optional

from gatewaykit.classroom.passthrough import reported_cost
from gatewaykit.classroom.state import ClassroomState
from gatewaykit.emulator.errors import not_found

__all__ = ["JOB_PATHS", "job_path", "owned_job", "settle_from_view", "watch_jobs"]

log = logging.getLogger("gatewaykit.classroom")
JOB_PATHS = {"video": "/v1/videos", "music": "/v1/audio/generations"}
ENDED = {"completed": "ok", "failed": "failed", "cancelled": "cancelled", "canceled": "cancelled",
         "deleted": "cancelled", "expired": "failed"}


def job_path(kind: str, job_id: str) -> str:
    from urllib.parse import quote

    return f"{JOB_PATHS[kind]}/{quote(job_id, safe='')}"


def owned_job(state: ClassroomState, student: str, kind: str, job_id: str) -> int:
    """The request row of ``job_id`` if ``student`` created it; 404 ``*_not_found`` otherwise."""
    found = state.store.job(job_id)
    if found is None or found[0] != student or found[1] != kind:
        raise not_found(kind, job_id[:100])
    return found[2]


def settle_from_view(state: ClassroomState, row_id: int, view: Any, price_nanos: Optional[int]) -> None:
    """Settle the job's hold when ``view`` (the gateway's job JSON) shows it ended; nothing otherwise."""
    if not isinstance(view, dict) or not state.budgets.is_open(row_id):
        return
    status = ENDED.get(str(view.get("status")))
    if status is None:
        return
    job_id = view.get("id") if isinstance(view.get("id"), str) else None
    if status == "ok":
        cost = reported_cost(view)
        if cost is None:
            cost = price_nanos if price_nanos is not None else state.budgets.held(row_id)
        state.budgets.settle(row_id, cost, "ok", job_id)
    else:
        state.budgets.release(row_id, status, job_id)
    if job_id:
        state.watched_jobs.pop(job_id, None)


async def check_job(state: ClassroomState, job_id: str) -> None:
    """Ask the gateway (teacher's key) how one watched job is doing, and settle it if it ended."""
    watched = state.watched_jobs.get(job_id)
    found = state.store.job(job_id)
    if watched is None or found is None:
        return
    view = await state.upstream.get_json(job_path(found[1], job_id))
    if isinstance(view, dict) and view.get("_status") == 404:  # the gateway forgot it (expired): never billed
        view = {"id": job_id, "status": "expired"}
    settle_from_view(state, found[2], view, watched.price_nanos)


async def watch_jobs(state: ClassroomState) -> None:
    """Forever: every ``job_check_seconds``, check each unfinished job (the server cancels this at stop)."""
    while True:
        await asyncio.sleep(state.settings.job_check_seconds)
        for job_id in list(state.watched_jobs):
            try:
                await check_job(state, job_id)
            except Exception:  # noqa: BLE001 - one bad answer must not stop the watcher
                log.warning("could not check job %s", job_id[:100], exc_info=True)
