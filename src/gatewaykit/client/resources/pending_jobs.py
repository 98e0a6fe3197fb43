"""``client.jobs``: the video and music jobs this client's key started whose end the ledger has not seen.

After a kernel restart or a crash, ``client.jobs.pending()`` turns the ledger's unfinished job rows
back into job objects bound to this client, ready to ``wait()`` and ``save()``: a paid video is never
lost because a kernel died. Details: ``docs/internals.md``.
"""

from __future__ import annotations

import weakref
from typing import TYPE_CHECKING, Any, Optional, Union, cast

from gatewaykit.types import Job, MusicJob, VideoJob

if TYPE_CHECKING:
    from gatewaykit.client.core.base import BaseClient
    from gatewaykit.types import AsyncMusicJob, AsyncVideoJob

__all__ = ["AsyncJobs", "Jobs", "live_job", "register_refresh", "remember_live_job"]

_JOB_TYPES = {"video": VideoJob, "music": MusicJob}


def remember_live_job(client: "BaseClient", job: Job) -> None:
    """Keep (weakly) the job object the user holds, so ``pending()`` and a refresh use it, not a copy."""
    live = client.__dict__.get("_live_jobs")
    if live is None:
        live = client.__dict__.setdefault("_live_jobs", weakref.WeakValueDictionary())
    live[job.id] = job


def live_job(client: "BaseClient", job_id: str) -> Optional[Job]:
    """The job object with this id the user still holds, if any."""
    live = client.__dict__.get("_live_jobs")
    return live.get(job_id) if live is not None else None


def register_refresh(client: "BaseClient") -> None:
    """Have ``client``'s ledger bring this client's pending rows up to date before it is shown or read."""
    register = getattr(client.ledger, "refresh_jobs_with", None)
    refresher = getattr(client, "_refresh_pending_jobs", None)
    if register is not None and refresher is not None:
        register(refresher)


class Jobs:
    """``client.jobs.pending()``: unfinished jobs from the ledger, as job objects."""

    def __init__(self, client: "BaseClient") -> None:
        self._client = client

    def pending(self) -> list[Union[VideoJob, MusicJob]]:
        """The jobs this client's key started on its gateway whose end the ledger has not seen, oldest first.

        Jobs recorded before the ledger kept key fingerprints (no ``key_id``) are
        included when their base URL matches: the ledger cannot tell whose they are.
        """
        client = self._client
        listing = getattr(client.ledger, "pending_jobs", None)
        if listing is None:  # a custom ledger sink without the listing
            return []
        jobs: list[Union[VideoJob, MusicJob]] = []
        for entry in listing(base_url=client._shown_url, key_id=client._key_id):
            job_type: Any = _JOB_TYPES.get(entry["kind"])
            if job_type is None:
                continue
            job = live_job(client, entry["id"])
            if not isinstance(job, job_type):
                job = job_type(id=entry["id"], status=entry["status"], model=entry["model"])
                job._client = client
            jobs.append(job)
        if jobs:
            register_refresh(client)  # after a restart: the ledger brings these rows up to date when shown
        return jobs


class AsyncJobs(Jobs):
    """``aclient.jobs``: the same, awaitable (``await aclient.jobs.pending()``)."""

    async def pending(self) -> list[Union["AsyncVideoJob", "AsyncMusicJob"]]:  # type: ignore[override]
        """The unfinished jobs, bound to the async client (``await job.wait()``)."""
        return cast("list[Union[AsyncVideoJob, AsyncMusicJob]]", Jobs.pending(self))
