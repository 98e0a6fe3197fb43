"""Asynchronous video and music jobs."""

from __future__ import annotations

import os
from typing import Any, Callable, List, Literal, Optional, Union

from pydantic import PrivateAttr

from gatewaykit.types.common import GatewayModel


class MediaLink(GatewayModel):
    """``{type: "url", url, content_type}``: where the finished media is."""

    type: str = "url"
    url: str
    content_type: Optional[str] = None


class JobError(GatewayModel):
    message: str


class _JobMethods:
    """Methods of a job received from a client; they go through that client (sync or async).

    With a ``Client`` they return values; with an ``AsyncClient`` they return
    awaitables of the same values (``await job.wait()``).
    """

    _client: Any

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
        """True in a terminal state (completed, failed, cancelled)."""
        return getattr(self, "status", None) in ("completed", "failed", "cancelled", "canceled", "deleted")

    def refresh(self) -> Any:
        """Poll once; the job updates in place (and is returned)."""
        return self._bound()._job_refresh(self)

    def wait(
        self,
        timeout: Optional[float] = None,
        on_update: Optional[Callable[[Any], Any]] = None,
        poll_interval: Optional[float] = None,
    ) -> Any:
        """Poll (0.5 s growing to 5 s) until the job ends; the completed job.

        Raises JobFailedError when it fails, JobTimeoutError after ``timeout``
        seconds (the job goes on; ``retrieve(id).wait()`` resumes). ``on_update(job)``
        is called after every poll.
        """
        return self._bound()._job_wait(self, timeout, on_update, poll_interval)

    def content(self) -> Any:
        """The finished media as bytes (follows the gateway's redirect)."""
        return self._bound()._job_content(self)

    def save(self, path: Union[str, "os.PathLike[str]", None] = None) -> Any:
        """Stream the finished media to ``path`` (a file, or a directory for ``<id>.mp4/.mp3``); the Path."""
        return self._bound()._job_save(self, path)


class VideoJob(_JobMethods, GatewayModel):
    """A video job (``object: "video"``). ``status``: queued, in_progress, completed, failed.

    From a client: ``refresh()``, ``wait()``, ``content()``, ``save(path)``, ``cancel()``.
    """

    _client: Any = PrivateAttr(default=None)

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

    def cancel(self) -> Any:
        """Cancel the job (``DELETE /v1/videos/{id}``); a cancelled job is never charged."""
        return self._bound()._job_cancel(self)


class MusicJob(_JobMethods, GatewayModel):
    """A music job (``object: "audio"``). ``status``: in_progress, completed, failed.

    From a client: ``refresh()``, ``wait()``, ``content()``, ``save(path)``.
    """

    _client: Any = PrivateAttr(default=None)

    id: str
    object: Literal["audio"] = "audio"
    model: Optional[str] = None
    status: str
    seconds: Optional[str] = None
    created_at: Optional[int] = None
    completed_at: Optional[int] = None
    audio: Optional[List[MediaLink]] = None
    error: Optional[JobError] = None
