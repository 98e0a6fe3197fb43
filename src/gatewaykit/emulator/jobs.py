"""Video and music jobs: the state machine, billing on completion, retention and media links.

States: video ``queued`` → ``in_progress`` → ``completed`` | ``failed``; music starts
``in_progress``. ``DELETE`` on an unfinished video makes it ``cancelled`` (never
charged); on a finished one it removes the job. A job's price is held on the
account when it is created (the route answers 402 when it cannot be held), so
jobs in flight can never spend more than the balance; the hold is charged when
the job completes and released when it fails or is cancelled.
Finished jobs and their media links expire ``retention_seconds`` after they end.
Durations are multiplied by ``time_scale``.
"""

from __future__ import annotations

import asyncio
import secrets
import time
from dataclasses import dataclass, field
from typing import Any, Awaitable, Callable, Protocol, TypeVar

from gatewaykit.emulator.request_ids import RequestIds
from gatewaykit.emulator.settings import Settings
from gatewaykit.serving.accounts import Account
from gatewaykit.serving.holds import Hold

T = TypeVar("T")

TERMINAL = ("completed", "failed", "cancelled")


@dataclass
class Job:
    id: str
    kind: str  # video or music
    owner: str  # key digest
    account: Account
    model: str
    price: int
    render: Callable[[], tuple[bytes, float]]  # -> (media bytes, seconds)
    queued_seconds: float
    run_seconds: float
    fail: bool = False
    status: str = "queued"
    created_at: int = field(default_factory=lambda: int(time.time()))
    started: float = field(default_factory=time.monotonic)
    completed_at: int | None = None
    error: str | None = None
    size: str | None = None
    seconds: str | None = None
    token: str = field(default_factory=lambda: secrets.token_urlsafe(32))
    content: bytes | None = None
    expires: float | None = None
    task: asyncio.Task | None = None
    hold: Hold | None = None  # the price, held on the account from creation until settle()

    def settle(self, *, paid: bool) -> None:
        """Charge (``paid``) or release the held price; only the first call counts."""
        if self.hold is None:
            return
        if paid:
            self.hold.charge()
        else:
            self.hold.release()

    @property
    def filename(self) -> str:
        return f"{self.id}.{'mp4' if self.kind == 'video' else 'mp3'}"

    @property
    def content_type(self) -> str:
        return "video/mp4" if self.kind == "video" else "audio/mpeg"

    def media_path(self) -> str:
        return f"/_media/{self.token}/{self.filename}"

    def progress(self) -> int:
        if self.status == "completed":
            return 100
        total = self.queued_seconds + self.run_seconds
        if self.status in TERMINAL or total <= 0:
            return 0
        return min(99, int(100 * (time.monotonic() - self.started) / total))


class JobHost(Protocol):
    """What a :class:`JobStore` needs from its gateway (the gateway owns the store: no import back)."""

    settings: Settings
    ids: RequestIds

    def scaled(self, seconds: float) -> float: ...

    def run_job_render(self, function: Callable[..., T], *args: Any, **kwargs: Any) -> Awaitable[T]: ...

    def log_bug(self, where: str) -> None: ...


class JobStore:
    def __init__(self, gateway: JobHost) -> None:
        self.gateway = gateway
        self.jobs: dict[str, Job] = {}
        self.by_token: dict[str, Job] = {}
        #: Jobs ever created, per account id and kind (kept after the jobs expire).
        self.created: dict[str, dict[str, int]] = {}
        self._last_sweep = 0.0

    def create(self, job: Job, hold: Hold | None = None) -> Job:
        """Hold the job's price on its account (402 ``insufficient_quota`` when it cannot be held) and start it.

        ``hold``: the price, already held by a route that had work to do before the job could be made
        (a video decodes its ``input_reference`` only once the money is held)."""
        self.sweep()
        job.hold = hold if hold is not None else Hold.take(job.account, job.price)
        self.jobs[job.id] = job
        self.by_token[job.token] = job
        counts = self.created.setdefault(job.account.id, {})
        counts[job.kind] = counts.get(job.kind, 0) + 1
        job.task = asyncio.get_running_loop().create_task(self._run(job))
        return job

    def get(self, job_id: str, owner: str, kind: str) -> Job | None:
        self.sweep()
        job = self.jobs.get(job_id)
        if job is None or job.kind != kind or not secrets.compare_digest(job.owner, owner):
            return None
        return job

    def media(self, token: str, filename: str) -> Job | None:
        self.sweep()
        job = self.by_token.get(token)
        if job is None or job.status != "completed" or job.filename != filename:
            return None
        return job

    def cancel(self, job: Job) -> None:
        if job.status not in TERMINAL:
            job.status = "cancelled"
            job.settle(paid=False)
            job.expires = time.monotonic() + self.gateway.settings.retention_seconds
            if job.task is not None:
                job.task.cancel()

    def remove(self, job: Job) -> None:
        self.jobs.pop(job.id, None)
        self.by_token.pop(job.token, None)
        job.content = None

    def sweep(self, force: bool = False) -> None:
        """Forget finished jobs past their retention (at most once a second unless forced)."""
        now = time.monotonic()
        if not force and now - self._last_sweep < 1.0:
            return
        self._last_sweep = now
        for job in [j for j in self.jobs.values() if j.expires is not None and j.expires <= now]:
            self.remove(job)

    def _finish(self, job: Job, status: str, error: str | None = None) -> None:
        job.settle(paid=status == "completed")
        job.status = status
        job.error = error
        if status == "completed":
            job.completed_at = self.gateway.ids.finished_at(job.created_at, job.queued_seconds + job.run_seconds)
        job.expires = time.monotonic() + self.gateway.settings.retention_seconds

    async def _run(self, job: Job) -> None:
        from gatewaykit.emulator.media import MediaError

        gateway = self.gateway
        try:
            if job.status == "queued":
                await asyncio.sleep(gateway.scaled(job.queued_seconds))
                job.status = "in_progress"
            if job.fail:
                await asyncio.sleep(gateway.scaled(job.run_seconds / 2))
                self._finish(job, "failed", "The generation failed (injected fault 'job-fail'). You were not "
                                            "charged; a retry needs a new job.")
                return
            (content, seconds), _ = await asyncio.gather(
                gateway.run_job_render(job.render), asyncio.sleep(gateway.scaled(job.run_seconds)))
            if job.status != "in_progress":
                return
            job.content = content
            if job.seconds is None:
                job.seconds = f"{round(seconds, 2):g}"
            self._finish(job, "completed")
        except asyncio.CancelledError:
            job.settle(paid=False)
            if job.status not in TERMINAL:
                job.status = "cancelled"
        except MediaError as exc:
            self._finish(job, "failed", f"The generation failed: {exc}. You were not charged.")
        except Exception:  # noqa: BLE001 - a bug fails the job, never the server
            gateway.log_bug(f"{job.kind} job {job.id}")
            self._finish(job, "failed", "The generation failed with an internal error. You were not charged.")

    def close(self) -> None:
        for job in list(self.jobs.values()):
            if job.task is not None and not job.task.done():
                job.task.cancel()


def new_job_id(kind: str, ids: RequestIds | None = None, basis: Any = None) -> str:
    """``video_<32 hex>`` / ``audio_<32 hex>``: random, or derived from the request when ``ids`` is reproducible."""
    digits = ids.hex(f"{kind}-job", basis, 16) if ids is not None else secrets.token_hex(16)
    return ("video_" if kind == "video" else "audio_") + digits
