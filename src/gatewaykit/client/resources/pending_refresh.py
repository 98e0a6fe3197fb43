"""A ledger's pending job rows brought up to date before they are shown or read (issue 31, item 3).

A wait stopped half-way (Ctrl-C, Interrupt, a ``timeout=``) leaves the job's row
``queued`` / ``in_progress`` long after the job has finished. Every client that
sees a job registers :func:`refresh_pending_rows` with its ledger
(:func:`~gatewaykit.client.resources.pending_jobs.register_refresh`); the ledger calls it,
at most every ``refresh_every`` seconds and only when a row is pending, before
it is displayed, printed or read (``rows``, ``total_cost``, ``to_pandas()``,
``history()``). The refresh then sends one status request per pending job of
this client's gateway and key (``client.jobs.pending()``: rows of another
gateway or key are not asked about), with no retry and a short timeout, and
reports what it finds as ``job.refresh()`` would. A job the user still holds
(the object an interrupted ``wait()`` left) is the one refreshed, so the object,
the row and ``client.jobs.pending()`` agree. Anything that goes wrong (the job
is gone, the gateway is down) leaves the row as it was, silently: a display
never fails because a job could not be asked about.

An ``AsyncClient`` is asked from a synchronous property, perhaps inside a
running event loop: its refresh sends with a blocking transport of its own
(:mod:`~gatewaykit.client.resources.blocking_sends`).
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
