"""A ledger's pending job rows brought up to date before they are shown or read.

A wait stopped half-way leaves a job's row ``queued`` long after the job finished. Every client that
sees a job registers :func:`refresh_pending_rows` with its ledger, which calls it (at most every
``refresh_every`` seconds, only when a row is pending) before a view, so the row settles.
Details: ``docs/internals.md``.
"""

from __future__ import annotations

import logging

from gatewaykit.client.core.base import BaseClient
from gatewaykit.client.core.flows import Flow
from gatewaykit.client.resources import job_flows
from gatewaykit.client.resources.blocking_sends import blocking_runner, send_once
from gatewaykit.client.resources.pending_jobs import Jobs
from gatewaykit.client.transports.response_decoding import read_model
from gatewaykit.errors import APIConnectionError, GatewayError
from gatewaykit.types import Job

__all__ = ["refresh_pending_rows"]

logger = logging.getLogger("gatewaykit")


def refresh_pending_rows(client: BaseClient, polled: set[str]) -> None:
    """One status request per pending job of ``client``'s (its gateway, its key) not in ``polled``.

    ``polled``: the job ids already asked about in this round (two clients of one key ask once); the ids
    asked about here are added. A connection failure ends this client's round (its gateway is down).
    """
    jobs = [job for job in Jobs(client).pending() if job.id not in polled]
    if not jobs:
        return
    run = blocking_runner(client)
    if run is None:
        return
    for job in jobs:
        polled.add(job.id)
        try:
            run(_status_flow(client, job))
        except APIConnectionError:
            logger.debug("gatewaykit: the gateway did not answer; pending rows left as they were", exc_info=True)
            return
        except GatewayError:  # gone (404), not this key's, a 5xx: the row stays as it was
            logger.debug("gatewaykit: job %s could not be refreshed", job.id, exc_info=True)


def _status_flow(client: BaseClient, job: Job) -> Flow[Job]:
    """``job.refresh()`` sent once, quickly."""
    response = yield from send_once(job_flows.job_path(job))
    return job_flows.seen(client, job_flows.absorb(job, read_model(type(job), response)))
