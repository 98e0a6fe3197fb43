"""``client.jobs``: the video and music jobs this client's key started whose end the ledger has not seen.

After a kernel restart (or a crash) the ledger still holds the jobs it saw
created (with a SQLite or JSONL ledger, or the default per-user database);
``client.jobs.pending()`` turns them back into :class:`VideoJob` /
:class:`MusicJob` objects bound to this client, ready to ``wait()`` and
``save()``: a paid video is never lost because a kernel died. Nothing is sent
to list them. The ledger keeps no keys: each job row carries the client's base
URL and a one-way fingerprint of its key (``client/core/key_fingerprint.py``), and
jobs are matched by both, so a job another key started on the same gateway
(which would answer 404 when polled) is left out. Rows recorded before ledgers
kept key fingerprints have none: they are returned for the matching base URL,
whichever key started them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Union, cast

from gatewaykit.types import MusicJob, VideoJob

if TYPE_CHECKING:
    from gatewaykit.client.core.base import BaseClient
    from gatewaykit.types import AsyncMusicJob, AsyncVideoJob

__all__ = ["AsyncJobs", "Jobs"]

_JOB_TYPES = {"video": VideoJob, "music": MusicJob}


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
            job = job_type(id=entry["id"], status=entry["status"], model=entry["model"])
            job._client = client
            jobs.append(job)
        return jobs


class AsyncJobs(Jobs):
    """``aclient.jobs``: the same, awaitable (``await aclient.jobs.pending()``)."""

    async def pending(self) -> list[Union["AsyncVideoJob", "AsyncMusicJob"]]:  # type: ignore[override]
        """The unfinished jobs, bound to the async client (``await job.wait()``)."""
        return cast("list[Union[AsyncVideoJob, AsyncMusicJob]]", Jobs.pending(self))
