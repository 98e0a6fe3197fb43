"""The stop button during a blocking wait: :class:`WaitInterrupted` and the line that says how to resume.

Shared by :mod:`gatewaykit.notebook.job_views.job_progress` (``JobProgress.join``) and
:mod:`gatewaykit.notebook.job_views.job_wait` (``wait_with_progress``), so neither imports the other back.

A stop is the user's choice, not a failure: :class:`WaitInterrupted` is a
:class:`~gatewaykit.notebook.cell_output.quiet_stops.QuietStop`, so the cell ends with one dim line
of ordinary output (what became of the job, and how to pick it up again), not an error box;
the cell still fails, so Run All stops there, and ``%tb`` shows the whole traceback.
"""

from __future__ import annotations

from typing import Any, Sequence

from gatewaykit.notebook.cell_output.quiet_stops import QuietStop
from gatewaykit.types import is_finished
from gatewaykit.types.jobs import canonical_status

__all__ = ["WaitInterrupted", "interrupted_note", "resume_hint"]


def resume_hint(job: Any) -> str:
    """``client.videos.retrieve('<id>').wait()`` (or ``client.music...``) for this job."""
    resource = "music" if getattr(job, "object", None) == "audio" else "videos"
    return f"client.{resource}.retrieve({str(getattr(job, 'id', '')).__repr__()}).wait()"


def _named(job: Any) -> str:
    kind = "music" if getattr(job, "object", None) == "audio" else "video"
    return f"{kind} job {getattr(job, 'id', '')}"


class WaitInterrupted(KeyboardInterrupt, QuietStop):
    """The stop button during a wait: the job goes on; the cell ends with one dim line saying so.

    ``following``: the view above goes on following the jobs (``progress.join()`` interrupted), rather than
    being left with a note (``job.wait()`` interrupted). ``jobs``: every job the wait was for (default: ``job``).
    """

    def __init__(self, job: Any, *, following: bool = False, jobs: Sequence[Any] = ()) -> None:
        self.job = job
        self.jobs = list(jobs) or [job]
        self.following = following
        super().__init__(
            f"stopped waiting for {_named(job)}; it keeps running on the gateway. Resume with {resume_hint(job)}"
        )

    def quiet_line(self) -> str:
        """What became of the job(s) (as last seen) and how to pick them up again, in one line."""
        ends = "(Run All stops here too)"
        if len(self.jobs) > 1:
            running = sum(1 for job in self.jobs if not is_finished(getattr(job, "status", "")))
            return (f"Stopped waiting for {len(self.jobs)} jobs {ends}; {running} still running on the gateway, "
                    "and the view above keeps following them: call its join() again to wait.")
        job = self.job
        status = canonical_status(getattr(job, "status", ""))
        if status == "cancelled":
            return f"Stopped waiting {ends}: {_named(job)} was cancelled."
        if is_finished(status):  # it ended as the stop arrived
            return f"Stopped waiting {ends}: {_named(job)} had already {status}; see it with {resume_hint(job)}"
        goes_on = "the card above keeps following it" if self.following else "it keeps running on the gateway"
        return f"Stopped waiting for {_named(job)} {ends}; {goes_on}. Pick it up again with {resume_hint(job)}"



def interrupted_note(job: Any) -> str:
    """The note left on an unfinished card when the wait stops (the cell's last line says how to resume)."""
    return "This card no longer updates."
