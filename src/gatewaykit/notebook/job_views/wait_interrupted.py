"""The stop button during a blocking wait: :class:`WaitInterrupted` and the line that says how to resume.

Shared by :mod:`gatewaykit.notebook.job_views.job_progress` (``JobProgress.join``) and
:mod:`gatewaykit.notebook.job_views.job_wait` (``wait_with_progress``), so neither imports the other back.
"""

from __future__ import annotations

from typing import Any

__all__ = ["WaitInterrupted", "interrupted_note", "resume_hint"]


def resume_hint(job: Any) -> str:
    """``client.videos.retrieve('<id>').wait()`` (or ``client.music...``) for this job."""
    resource = "music" if getattr(job, "object", None) == "audio" else "videos"
    return f"client.{resource}.retrieve({str(getattr(job, 'id', '')).__repr__()}).wait()"


class WaitInterrupted(KeyboardInterrupt):
    """The stop button during a wait: the job goes on; shown by IPython as one line."""

    def __init__(self, job: Any) -> None:
        self.job = job
        kind = "music" if getattr(job, "object", None) == "audio" else "video"
        super().__init__(
            f"stopped waiting for {kind} job {getattr(job, 'id', '')}; it keeps running on the gateway. "
            f"Resume with {resume_hint(job)}"
        )

    def _render_traceback_(self) -> list[str]:
        # The card above already says how to resume: one quiet line, not a red KeyboardInterrupt repeating it.
        return ["\x1b[2mStopped waiting (so Run All stops here too); the job goes on: see the card above.\x1b[0m"]


def interrupted_note(job: Any) -> str:
    """The note left on an unfinished card when the wait stops."""
    return f"Stopped waiting. The job keeps running on the gateway; resume with {resume_hint(job)}"
