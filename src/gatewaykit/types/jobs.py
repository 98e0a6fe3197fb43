"""Asynchronous video and music jobs, and the one definition of a job's lifecycle."""

from __future__ import annotations

import enum
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, List, Literal, Optional, TypeVar, Union

from pydantic import PrivateAttr, model_validator

from gatewaykit.error_text import public_call, redact
from gatewaykit.types.common import GatewayModel
from gatewaykit.types.text_views import job_repr, job_text

__all__ = [
    "FINISHED_STATES",
    "AsyncMusicJob",
    "AsyncVideoJob",
    "Job",
    "JobError",
    "JobStatus",
    "MediaLink",
    "MusicJob",
    "VideoJob",
    "is_finished",
    "is_finishing",
]


class JobStatus(str, enum.Enum):
    """Every state a job is reported in (the spec's, plus the spellings a DELETE may answer)."""

    QUEUED = "queued"
    IN_PROGRESS = "in_progress"
    COMPLETED = "completed"
    FAILED = "failed"
    CANCELLED = "cancelled"
    CANCELED = "canceled"  # US spelling some gateways send
    DELETED = "deleted"  # DELETE of an unfinished job may answer this

    def __str__(self) -> str:
        return self.value


FINISHED_STATES: frozenset[str] = frozenset(
    status.value for status in (JobStatus.COMPLETED, JobStatus.FAILED, JobStatus.CANCELLED, JobStatus.CANCELED, JobStatus.DELETED)
)
"""The states a job never leaves. ``canceled`` and ``deleted`` mean ``cancelled``."""

_CANCELLED_SPELLINGS = {JobStatus.CANCELED.value: JobStatus.CANCELLED.value, JobStatus.DELETED.value: JobStatus.CANCELLED.value}


def is_finished(status: Optional[str]) -> bool:
    """True when ``status`` is a state the job never leaves."""
    return status in FINISHED_STATES


FINISHING_AT = 99
"""A running job whose reported ``progress`` is this high (percent) is shown as "finishing", not as a figure:
a gateway may sit at 99 (or 100) while it writes the file, and a bar stuck near its end reads as hung."""


def is_finishing(progress: Any) -> bool:
    """Whether a running job's reported ``progress`` says it is finishing (:data:`FINISHING_AT`): what the
    notebook's progress bar and the terminal's job line both go by."""
    return isinstance(progress, (int, float)) and not isinstance(progress, bool) and progress >= FINISHING_AT


def canonical_status(status: str) -> str:
    """``canceled``/``deleted`` as ``cancelled``; every other status unchanged."""
    return _CANCELLED_SPELLINGS.get(status, status)


class MediaLink(GatewayModel):
    """``{type: "url", url, content_type}``: where the finished media is."""

    type: str = "url"
    url: str
    content_type: Optional[str] = None


class JobError(GatewayModel):
    """A failed job's error. Keys a gateway echoes in it are scrubbed as it is parsed, so no repr,
    display, ledger row or exception built from it can show one."""

    message: str

    @model_validator(mode="before")
    @classmethod
    def _scrub_keys(cls, data: Any) -> Any:
        return _scrubbed(data)


def _scrubbed(value: Any, depth: int = 0) -> Any:
    """``value`` with every string scrubbed of key-shaped text (dicts and lists followed 32 levels deep)."""
    if isinstance(value, str):
        return redact(value)
    if depth < 32 and isinstance(value, dict):
        return {key: _scrubbed(item, depth + 1) for key, item in value.items()}
    if depth < 32 and isinstance(value, list):
        return [_scrubbed(item, depth + 1) for item in value]
    return value


J = TypeVar("J", bound="Job")


class Job(GatewayModel):
    """What video and music jobs share: status, timing, error, and the calls that follow them.

    A job received from a ``Client`` returns values from its methods; from an
    ``AsyncClient`` (typed :data:`AsyncVideoJob`/:data:`AsyncMusicJob`) awaitables of the same values.
    """

    _client: Any = PrivateAttr(default=None)
    _saved_to: Optional[Path] = PrivateAttr(default=None)  # the last save(path), shown by str(job)

    if TYPE_CHECKING:
        # Declared by each job type, in the order its API object lists them (repr and dumps keep it).
        id: str
        model: Optional[str]
        status: str
        seconds: Optional[str]
        created_at: Optional[int]
        completed_at: Optional[int]
        error: Optional[JobError]

    def _bound(self) -> Any:
        client = self._client
        if client is None:
            raise RuntimeError(
                "This job is not bound to a client; get it with client.videos.retrieve(id) "
                "or client.music.retrieve(id)"
            )
        return client

    @property
    def done(self) -> bool:
        """True in a finished state (completed, failed, cancelled)."""
        return is_finished(self.status)

    @public_call
    def refresh(self: J) -> J:
        """Poll once; the job updates in place (and is returned)."""
        return self._bound()._job_refresh(self)  # type: ignore[no-any-return]

    @public_call
    def wait(
        self: J,
        timeout: Optional[float] = None,
        on_update: Optional[Callable[[Any], Any]] = None,
        poll_interval: Optional[float] = None,
    ) -> J:
        """Poll (0.5 s growing to 5 s) until the job ends; the completed job.

        Raises JobFailedError when it fails, JobTimeoutError after ``timeout``
        seconds (the job goes on; ``retrieve(id).wait()`` resumes). ``on_update(job)``
        is called after every poll.
        """
        return self._bound()._job_wait(self, timeout, on_update, poll_interval)  # type: ignore[no-any-return]

    @public_call
    def content(self) -> bytes:
        """The finished media as bytes (follows the gateway's redirect)."""
        return self._bound()._job_content(self)  # type: ignore[no-any-return]

    @public_call
    def save(self, path: Union[str, "os.PathLike[str]", None] = None) -> Path:
        """Stream the finished media to ``path`` (a file, or a directory for ``<id>.mp4/.mp3``); the Path."""
        saved = self._bound()._job_save(self, path)
        if isinstance(saved, Path):
            self._saved_to = saved
            return saved
        return _remember_saved(self, saved)  # type: ignore[return-value]  # an AsyncClient's awaitable

    def __str__(self) -> str:
        return job_text(self)

    def __repr__(self) -> str:
        return job_repr(self)


async def _remember_saved(job: Job, saving: Any) -> Path:
    path: Path = await saving
    job._saved_to = path
    return path


class VideoJob(Job):
    """A video job (``object: "video"``). ``status``: queued, in_progress, completed, failed.

    From a client: ``refresh()``, ``wait()``, ``content()``, ``save(path)``, ``cancel()``.
    """

    id: str
    object: Literal["video"] = "video"
    model: Optional[str] = None
    status: str
    size: Optional[str] = None
    seconds: Optional[str] = None
    created_at: Optional[int] = None
    completed_at: Optional[int] = None
    videos: Optional[List[MediaLink]] = None
    error: Optional[JobError] = None

    @public_call
    def cancel(self) -> "VideoJob":
        """Cancel the job (``DELETE /v1/videos/{id}``); a cancelled job is never charged.

        A job that had already completed is deleted instead (``status`` ``"deleted"``):
        it was charged, and the ledger keeps it charged.
        """
        return self._bound()._job_cancel(self)  # type: ignore[no-any-return]


class MusicJob(Job):
    """A music job (``object: "audio"``). ``status``: in_progress, completed, failed.

    From a client: ``refresh()``, ``wait()``, ``content()``, ``save(path)``.
    """

    id: str
    object: Literal["audio"] = "audio"
    model: Optional[str] = None
    status: str
    seconds: Optional[str] = None
    created_at: Optional[int] = None
    completed_at: Optional[int] = None
    audio: Optional[List[MediaLink]] = None
    error: Optional[JobError] = None


if TYPE_CHECKING:
    # What an AsyncClient hands out, as a type checker sees it: the same objects, awaitable calls.

    class AsyncVideoJob(VideoJob):
        async def refresh(self) -> "AsyncVideoJob": ...  # type: ignore[override]
        async def wait(  # type: ignore[override]
            self, timeout: Optional[float] = None, on_update: Optional[Callable[[Any], Any]] = None,
            poll_interval: Optional[float] = None,
        ) -> "AsyncVideoJob": ...  # fmt: skip
        async def content(self) -> bytes: ...  # type: ignore[override]
        async def save(self, path: Union[str, "os.PathLike[str]", None] = None) -> Path: ...  # type: ignore[override]
        async def cancel(self) -> "AsyncVideoJob": ...  # type: ignore[override]

    class AsyncMusicJob(MusicJob):
        async def refresh(self) -> "AsyncMusicJob": ...  # type: ignore[override]
        async def wait(  # type: ignore[override]
            self, timeout: Optional[float] = None, on_update: Optional[Callable[[Any], Any]] = None,
            poll_interval: Optional[float] = None,
        ) -> "AsyncMusicJob": ...  # fmt: skip
        async def content(self) -> bytes: ...  # type: ignore[override]
        async def save(self, path: Union[str, "os.PathLike[str]", None] = None) -> Path: ...  # type: ignore[override]

else:
    # At run time they are the very same classes (one type per object, one repr).
    AsyncVideoJob = VideoJob
    AsyncMusicJob = MusicJob
