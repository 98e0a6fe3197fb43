"""Video and music jobs: create, refresh, wait (polling with backoff), content, save, cancel.

Each operation is one flow shared by both clients. ``wait`` polls with a
growing interval (0.5 s, x1.5 per poll, at most 5 s), calls ``on_update(job)``
after every poll, and stops when the job is completed (returns it), failed
(:class:`JobFailedError` with the gateway's message), cancelled (returns it) or
when ``timeout`` runs out (:class:`JobTimeoutError`; the job goes on and can
be resumed by id). Every terminal state seen is reported to the ledger.
"""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator, Optional, TypeVar, Union
from urllib.parse import quote, urljoin, urlsplit

from gatewaykit.client.core import observation
from gatewaykit.client.core.base import BaseClient, raise_for_status
from gatewaykit.client.core.flows import Download, Flow, Sleep, send_with_retries
from gatewaykit.client.core.recording import report_job
from gatewaykit.client.resources.pending_jobs import register_refresh, remember_live_job
from gatewaykit.client.resources.session_media import session_media
from gatewaykit.client.core.request_pipeline import Call, Endpoint, run_call
from gatewaykit.client.api_request import NOT_GIVEN, ApiRequest
from gatewaykit.errors import APIConnectionError, JobFailedError, JobTimeoutError
from gatewaykit.types import Job, JobStatus, Model, MusicJob, VideoJob, is_finished
from gatewaykit.client.transports.response_decoding import read_model

__all__ = [
    "POLL_SCHEDULE", "PollSchedule", "create_job_flow", "job_endpoint", "job_id_segment", "job_path", "wait_flow",
]

J = TypeVar("J", bound=Job)


@dataclass(frozen=True)
class PollSchedule:
    """How often a job is polled: ``first`` seconds, growing by ``growth`` up to ``maximum``."""

    first: float = 0.5
    growth: float = 1.5
    maximum: float = 5.0

    def intervals(self, fixed: Optional[float] = None) -> Iterator[float]:
        """The pauses between polls (all ``fixed`` when given)."""
        interval = fixed if fixed is not None else self.first
        while True:
            yield interval
            if fixed is None:
                interval = min(interval * self.growth, self.maximum)


POLL_SCHEDULE = PollSchedule()
"""The one polling schedule: ``job.wait()`` and the notebook's background progress both use it."""


def job_id_segment(job_id: Any, what: str = "job id") -> str:
    """``job_id`` as one URL path segment (``/``, ``?``, ``#``, ``%`` encoded); empty or dot ids refused.

    Without this, ``videos.retrieve("../models")`` would fetch ``/v1/models``.
    """
    if not isinstance(job_id, str):
        raise TypeError(f"{what} must be a string, not {type(job_id).__name__}")
    if not job_id.strip():
        raise ValueError(f"{what} is empty: pass the id a create call returned (job.id)")
    if job_id.strip() in (".", ".."):
        raise ValueError(f"{what} {job_id!r} is not a job id")
    return quote(job_id, safe="")


def job_path(job: Job) -> str:
    if isinstance(job, VideoJob):
        return f"/v1/videos/{job_id_segment(job.id, 'video_id')}"
    return f"/v1/audio/generations/{job_id_segment(job.id, 'audio_id')}"


def _resource_name(job: Job) -> str:
    return "videos" if isinstance(job, VideoJob) else "music"


def absorb(job: J, fresh: J) -> J:
    """Copy a newer view of the job into ``job`` (the caller's object stays current)."""
    for name in type(job).model_fields:
        setattr(job, name, getattr(fresh, name))
    if fresh.__pydantic_extra__ is not None and job.__pydantic_extra__ is not None:
        job.__pydantic_extra__.clear()
        job.__pydantic_extra__.update(fresh.__pydantic_extra__)
    return job


def seen(client: BaseClient, job: J) -> J:
    """Bind a job received from the gateway to the client and report a finished state."""
    job._client = client
    if observation.current is not None:  # telemetry: a poll is an event of the job's span
        observation.current.job_seen(job)
    if is_finished(job.status):
        report_job(client.ledger, job)
    else:  # in_progress: the row (and client.jobs.pending()) says what the job object says
        note = getattr(client.ledger, "note_job_status", None)
        if note is not None:
            note(job.id, job.status)
    remember_live_job(client, job)
    register_refresh(client)  # a wait stopped half-way: the ledger brings the row up to date when shown or read
    return job


def job_endpoint(name: str, path: str, kind: str, limits: Callable[[Model, dict[str, Any]], None]) -> Endpoint:
    """A job-creating endpoint: checked against its catalog entry, POSTed once (a lost answer is never re-sent)."""

    def check(entry: Optional[Model], body: dict[str, Any], call: Call) -> None:
        assert entry is not None  # uses_catalog: checked only against a catalog entry
        limits(entry, body)

    return Endpoint(name, path, kind, check, creates_job=True)


def create_job_flow(client: BaseClient, call: Call, job_type: type[J]) -> Flow[J]:
    """The request pipeline, then the created job, recorded and bound to the client."""
    response = yield from run_call(client, call)
    job = read_model(job_type, response, recording=call.recording)
    assert call.recording is not None
    call.recording.ok(id=job.id, status=job.status)
    session_media.remember(call.kind, call.body, job, client.ledger)
    return seen(client, job)


def refresh_flow(client: BaseClient, job: J, *, timeout: Any = NOT_GIVEN) -> Flow[J]:
    headers = observation.job_headers(job)  # telemetry: the poll is part of the job's trace
    response = yield from client._get(job_path(job), extra_headers=headers, timeout=timeout)
    fresh = read_model(type(job), response)
    return seen(client, absorb(job, fresh))


def wait_flow(
    client: BaseClient,
    job: J,
    *,
    timeout: Optional[float] = None,
    on_update: Optional[Callable[[J], Any]] = None,
    poll_interval: Optional[float] = None,
    clock: Callable[[], float] = time.monotonic,
    schedule: PollSchedule = POLL_SCHEDULE,
) -> Flow[J]:
    start = clock()
    intervals = schedule.intervals(poll_interval)
    while True:
        yield from refresh_flow(client, job)
        if on_update is not None:
            on_update(job)
        if job.status == JobStatus.FAILED:
            message = job.error.message if job.error is not None else "the job failed (no message given)"
            raise JobFailedError(message, job=job)
        if is_finished(job.status):
            return job
        elapsed = clock() - start
        if timeout is not None and elapsed >= timeout:
            raise JobTimeoutError(
                f"Job {job.id} is still {job.status} after {elapsed:.0f} s. It goes on (and is billed only "
                f"if it completes); resume with client.{_resource_name(job)}.retrieve({job.id!r}).wait()",
                job=job,
            )
        interval = next(intervals)
        pause = interval if timeout is None else min(interval, max(timeout - elapsed, 0.0))
        yield Sleep(pause)


def _same_origin(a: str, b: str) -> bool:
    first, second = urlsplit(a), urlsplit(b)
    return (first.scheme, first.netloc) == (second.scheme, second.netloc)


def content_flow(client: BaseClient, job: Job, *, path: Optional[Path] = None, timeout: Any = NOT_GIVEN) -> Flow[Any]:
    """The finished media: bytes, or written to ``path`` (streamed) and the path returned.

    Follows the gateway's 302 to the file; the Authorization header goes only to
    the gateway's own origin (the target is a capability URL that needs no key).
    """
    stream = path is not None
    url = job_path(job) + "/content"
    request = ApiRequest("GET", url, timeout=timeout, stream=stream, replay_safe=True)
    for _ in range(5):
        response, _attempts = yield from send_with_retries(request, client._policy)
        location = response.headers.get("location")
        if 300 <= response.status_code < 400 and location:
            current = request.path if request.path.startswith("http") else client.base_url + request.path
            target = urljoin(current, location)
            request = ApiRequest(
                "GET", target, timeout=timeout, stream=stream, replay_safe=True,
                auth=_same_origin(target, client.base_url),
            )  # fmt: skip
            continue
        raise_for_status(response)
        if path is None:
            return response.content
        yield Download(response, path)
        return path
    raise APIConnectionError(f"Too many redirects fetching the content of job {job.id}")


def billing_outcome(status: str, job: VideoJob, known_before: Optional[str]) -> str:
    """What a DELETE answer means for the bill: ``completed`` (charged), ``failed`` or ``cancelled``.

    The gateway answers ``deleted`` both for a finished job it removed and (the
    spec allows it) for an unfinished one it cancelled. A deleted job that had
    completed (``completed_at`` in the answer, or seen completed before) was
    charged; one with an ``error`` had failed; otherwise it was cancelled.
    """
    if status != JobStatus.DELETED:
        return status
    if known_before in (JobStatus.COMPLETED, JobStatus.FAILED):
        return known_before
    if job.completed_at is not None or job.videos:
        return JobStatus.COMPLETED.value
    if job.error is not None:
        return JobStatus.FAILED.value
    return JobStatus.CANCELLED.value


def cancel_flow(client: BaseClient, job: VideoJob, *, timeout: Any = NOT_GIVEN) -> Flow[VideoJob]:
    """``DELETE /v1/videos/{id}``: the answer's job view if it sends one, else status ``cancelled``.

    ``job.status`` is what the gateway answered (``cancelled`` or ``deleted``);
    the ledger hears the job's billing outcome (:func:`billing_outcome`): a
    completed job that is deleted stays charged.
    """
    known_before = job.status
    headers = observation.job_headers(job)  # telemetry: the cancel is part of the job's trace
    request = ApiRequest("DELETE", job_path(job), headers=headers, timeout=timeout, replay_safe=True)
    response, _ = yield from send_with_retries(request, client._policy)
    raise_for_status(response)
    body: Any = None
    if response.content:
        try:
            body = json.loads(response.content)
        except ValueError:
            body = None
    if isinstance(body, dict) and body.get("status"):
        absorb(job, VideoJob.model_validate({"id": job.id, **body}))
    else:
        job.status = JobStatus.CANCELLED.value
    job._client = client
    if observation.current is not None:
        observation.current.job_event(job, "gatewaykit.job.cancel")
    report_job(client.ledger, job, status=billing_outcome(job.status, job, known_before))
    return job


_UNSAFE_NAME = re.compile(r"[^A-Za-z0-9._-]+")


def safe_file_stem(job_id: Any) -> str:
    """A file name made from a job id the server sent: no separators, no leading dots, at most 120 characters.

    ``../escaped/owned`` becomes ``escaped_owned``: the saved file stays in the folder it was saved to.
    """
    stem = _UNSAFE_NAME.sub("_", str(job_id)).strip("._")[:120].rstrip("._")
    return stem or "job"


def default_save_path(job: Job, path: Union[str, Path, None]) -> Path:
    """``path`` as given, or ``<id>.mp4``/``<id>.mp3`` inside it when it is a directory (or None: cwd).

    The id comes from the server, so the name is :func:`safe_file_stem` of it, always inside the directory.
    """
    suffix = ".mp4" if isinstance(job, VideoJob) else ".mp3"
    target = Path(path) if path is not None else Path.cwd()
    if target.is_dir():
        target = target / f"{safe_file_stem(job.id)}{suffix}"
    return target
