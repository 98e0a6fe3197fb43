"""Live progress for video and music jobs, turning into players when they finish.

``show_progress(job_or_jobs)`` returns at once: a background thread polls and updates one output in
place, several jobs share one dashboard, and each card becomes its player on completion.
Details: ``docs/internals.md``.
"""

from __future__ import annotations

import statistics
import sys
import threading
import time
import traceback
from typing import Any, Callable, Iterable, Optional, Union

from gatewaykit.client.resources.job_flows import POLL_SCHEDULE, PollSchedule
from gatewaykit.notebook.html_views import html as views
from gatewaykit.notebook.html_views import style
from gatewaykit.notebook.job_views.cancel import CancelButtons, cancellable
from gatewaykit.notebook.cell_output.kernel import CellThread, sleep_until, start_thread
from gatewaykit.notebook.html_views.media_html import job_cost
from gatewaykit.notebook.html_views.players import job_player_html
from gatewaykit.notebook.cell_output.sinks import DisplaySink, default_sink
from gatewaykit.types import is_finished

__all__ = [
    "JobProgress",
    "estimate_seconds",
    "expected_seconds",
    "record_duration",
    "reported_progress",
    "show_progress",
]

REPAINT_EVERY = 1.0  # seconds between repaints of the elapsed time
JOIN_PUMP_EVERY = 0.05  # seconds between looks at widget events (and at the thread) while join() blocks
MAX_REFRESH_FAILURES = 5
BACKGROUND_NOTE = (
    "Running in the background: this view updates live in Jupyter while you go on. To block until "
    "the job ends, call job.wait(); headless runs (nbconvert, papermill) keep only this first view."
)

_durations: dict[str, list[float]] = {}  # model id -> run times of this session's finished jobs


def record_duration(model: Optional[str], seconds: float) -> None:
    """Remember how long a job of ``model`` ran (feeds :func:`estimate_seconds`)."""
    if model and seconds > 0:
        _durations.setdefault(model, []).append(seconds)
        del _durations[model][:-10]


def estimate_seconds(model: Optional[str]) -> Optional[float]:
    """The median run time of this model's recent jobs in this session, or None."""
    runs = _durations.get(model or "")
    return statistics.median(runs) if runs else None


# Before a model's first job finishes: a per-kind guess, scaled by the clip length a video bills.
VIDEO_BASE_SECONDS, VIDEO_SECONDS_PER_CLIP_SECOND, MUSIC_SECONDS = 20.0, 5.0, 30.0


def expected_seconds(job: Any) -> float:
    """How long ``job`` should take: this session's history of its model, else a per-kind default."""
    known = estimate_seconds(getattr(job, "model", None))
    if known:
        return known
    if getattr(job, "object", None) == "audio":
        return MUSIC_SECONDS
    try:
        clip = float(getattr(job, "seconds", None) or 4)
    except ValueError:
        clip = 4.0
    return VIDEO_BASE_SECONDS + VIDEO_SECONDS_PER_CLIP_SECOND * clip


def reported_progress(job: Any) -> Optional[float]:
    """The gateway's own ``progress`` (0-100) when it sends one."""
    extra = getattr(job, "__pydantic_extra__", None) or {}
    value = extra.get("progress", getattr(job, "progress", None))
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


class _Tracked:
    __slots__ = ("job", "started", "player", "note", "done", "failures", "cost")

    def __init__(self, job: Any, started: float) -> None:
        self.job, self.started = job, started
        self.player = self.note = self.cost = ""
        self.done = False
        self.failures = 0


def _server_age(job: Any) -> Optional[float]:
    created = getattr(job, "created_at", None)
    if not created:
        return None
    age = time.time() - created
    return age if 0 <= age < 86_400 else None


class JobProgress:
    """One live display for one or several jobs; ``start()`` polls in the background."""

    #: The note on a cancellable job's card when no Cancel button is shown ("" for none).
    cancel_hint = "Cancel with job.cancel()."
    #: The note on a running music job's card: why it has no Cancel button.
    music_hint = "No Cancel button: the API cannot cancel music jobs, so this one runs to the end."

    def __init__(
        self,
        jobs: Union[Any, Iterable[Any]],
        *,
        sink: Optional[DisplaySink] = None,
        clock: Callable[[], float] = time.monotonic,
        buttons: Optional[bool] = None,
        schedule: PollSchedule = POLL_SCHEDULE,
    ) -> None:
        items = list(jobs) if isinstance(jobs, (list, tuple)) else [jobs]
        self._clock = clock
        self._schedule = schedule
        now = clock()
        self._tracked = [_Tracked(job, now - (_server_age(job) or 0.0)) for job in items]
        self.sink = sink if sink is not None else default_sink()
        self._buttons = CancelButtons.create(self, items) if buttons is not False else None
        self._background = False  # set by start(): nothing blocks the cell while the jobs run
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._lock = threading.RLock()
        self.thread: Optional[CellThread] = None
        #: What stopped the background thread, when something did (the cards say so): None otherwise.
        self.error: Optional[Exception] = None
        for tracked in self._tracked:
            self._settle(tracked)

    @property
    def jobs(self) -> list[Any]:
        return [tracked.job for tracked in self._tracked]

    @property
    def done(self) -> bool:
        return all(tracked.done for tracked in self._tracked)

    def bundle(self) -> dict[str, Any]:
        """The current display: a job card, or a dashboard of cards."""
        with self._lock:
            now = self._clock()
            cards, lines = [], []
            for tracked in self._tracked:
                job = tracked.job
                elapsed = None if tracked.done else now - tracked.started
                estimate = None if tracked.done else expected_seconds(job)
                hint = tracked.note
                if not hint and self._buttons is None and cancellable(job):
                    hint = self.cancel_hint
                if not hint and not tracked.done and getattr(job, "object", None) == "audio":
                    hint = self.music_hint
                cards.append(views.render_job_html(job, elapsed=elapsed, estimate=estimate, player=tracked.player,
                                                   hint=hint, reported=reported_progress(job),
                                                   estimate_is_guess=estimate_seconds(job.model) is None,
                                                   cost=tracked.cost))
                line = f"{type(job).__name__} {job.id} ({job.model}): {job.status}"
                if elapsed is not None:
                    line += f", {elapsed:.0f}s elapsed"
                if job.status == "failed" and getattr(job, "error", None) is not None:
                    line += f": {job.error.message}"
                lines.append(line)
            statuses = [tracked.job.status for tracked in self._tracked]
            running = not all(tracked.done for tracked in self._tracked)
        html = cards[0] if len(cards) == 1 else views.render_jobs_dashboard_html(cards, statuses)
        if self._background and running:
            html += f'<div class="gk-background-note" style="{style.MUTED};font-size:0.85em">{style.esc(BACKGROUND_NOTE)}</div>'
            lines.append(BACKGROUND_NOTE)
        return {"text/plain": "\n".join(lines), "text/html": html}

    def _settle(self, tracked: _Tracked) -> None:
        """Bookkeeping for a job that reached a terminal state: duration, player."""
        job = tracked.job
        if tracked.done or not is_finished(job.status):
            return
        tracked.done = True
        if job.status == "completed":
            if job.completed_at and job.created_at:
                record_duration(job.model, job.completed_at - job.created_at)
            else:
                record_duration(job.model, self._clock() - tracked.started)
            tracked.player = job_player_html(job)
            tracked.cost = job_cost(job)

    def show(self) -> "JobProgress":
        self.sink.show(self.bundle())
        if self._buttons is not None:
            self._buttons.show()
        return self

    def paint(self) -> None:
        self.sink.update(self.bundle())
        if self._buttons is not None:
            if self.done:
                self._buttons.remove()
            else:
                self._buttons.reveal_when_due()

    def observe(self, job: Any) -> None:
        """A fresh view of a job arrived (``wait(on_update=...)`` calls this)."""
        with self._lock:
            for tracked in self._tracked:
                if tracked.job is job or tracked.job.id == getattr(job, "id", None):
                    tracked.job = job
                    self._settle(tracked)
        self.paint()

    def poll_once(self) -> None:
        """Refresh every unfinished job once (errors are noted, not raised)."""
        for tracked in self._tracked:
            if tracked.done:
                continue
            try:
                fresh = tracked.job.refresh()
            except Exception as exc:  # noqa: BLE001 - a poll problem must not kill the display
                tracked.failures += 1
                tracked.note = f"could not refresh ({type(exc).__name__}: {exc}); retrying"
                if tracked.failures >= MAX_REFRESH_FAILURES:
                    tracked.done = True
                    tracked.note = f"stopped following this job after {tracked.failures} failed refreshes: {exc}"
                continue
            tracked.failures, tracked.note = 0, ""
            with self._lock:
                if fresh is not None and getattr(fresh, "id", None) == tracked.job.id:
                    tracked.job = fresh
                self._settle(tracked)

    def start(self) -> "JobProgress":
        """Show the display and follow the jobs in a background thread; returns at once."""
        self._background = True
        self.show()
        if not self.done:
            self.thread = start_thread(self._run, name="gatewaykit-job-progress")
        else:
            self.paint()
        return self

    def _run(self) -> None:
        try:
            self._follow()
        except Exception as exc:  # noqa: BLE001 - shown on the cards: a view must not freeze silently
            self._fail(exc)

    def _follow(self) -> None:
        intervals = self._schedule.intervals()
        next_poll = self._clock()
        while not self._stop.is_set():
            if self._clock() >= next_poll or self._wake.is_set():
                self._wake.clear()
                self.poll_once()
                next_poll = self._clock() + next(intervals)
            self.paint()
            if self.done:
                return
            self._wake.wait(min(REPAINT_EVERY, max(0.05, next_poll - self._clock())))

    def _fail(self, exc: Exception) -> None:
        """The thread hit ``exc``: each unfinished card says the view stopped and how to follow the job again."""
        self.error = exc
        with self._lock:
            for tracked in self._tracked:
                if not tracked.done:
                    tracked.done = True
                    tracked.note = (f"This view stopped updating ({type(exc).__name__}: {exc}); the job goes on. "
                                    "Follow it again with show_progress(job) or job.wait().")
        self._background = False
        try:
            self.paint()
        except Exception:  # noqa: BLE001 - the display itself is broken: say so where the kernel logs go
            print(f"gatewaykit: a job's live view stopped updating: {type(exc).__name__}: {exc}", file=sys.__stderr__)
            traceback.print_exception(type(exc), exc, exc.__traceback__, file=sys.__stderr__)

    def poll_soon(self) -> None:
        """Poll now instead of at the next scheduled time (after a cancel, say)."""
        self._wake.set()

    def stop(self) -> None:
        """Stop following the jobs (the display keeps its last state)."""
        self._stop.set()
        self._wake.set()

    def join(self, timeout: Optional[float] = None) -> bool:
        """Block until the jobs finish (or ``timeout``); True when all finished.

        Widget events are handled meanwhile (the Cancel button works); the stop
        button stops waiting, not the jobs (one dim line, not an error box; the view goes on).
        """
        if self.thread is None:
            return self.done
        from gatewaykit.notebook.job_views.wait_interrupted import WaitInterrupted
        from gatewaykit.notebook.cell_output.widget_events import widget_events

        # Never Thread.join() here: an interrupted join marks the running thread dead (gatewaykit.notebook.cell_output.kernel).
        deadline = None if timeout is None else self._clock() + timeout
        try:
            with widget_events() as pump:
                while deadline is None or self._clock() < deadline:
                    pump()
                    if sleep_until(self.thread.ended, JOIN_PUMP_EVERY):
                        break
        except KeyboardInterrupt:
            raise WaitInterrupted(self._tracked[0].job, following=True, jobs=self.jobs) from None
        return self.done

    def detach(self, note: str) -> None:
        """Stop following the jobs and leave ``note`` on each unfinished card (an interrupted wait)."""
        self.stop()
        with self._lock:
            for tracked in self._tracked:
                if not tracked.done:
                    tracked.done, tracked.note = True, note
        self._background = False
        self.paint()
        if self._buttons is not None:
            self._buttons.remove()

    def _ipython_display_(self) -> None:
        # Returned from show_progress() as a cell's last expression: already on screen.
        if self.thread is None and not self.done:
            self.start()


def show_progress(jobs: Union[Any, Iterable[Any]], **options: Any) -> JobProgress:
    """Follow one job or several (one dashboard) without blocking; returns the :class:`JobProgress`.

    The display is updated from a background thread while the kernel goes on
    with the next cells, and ends as the player. That works wherever a front
    end is connected to the kernel (JupyterLab, Notebook 7, VS Code, Colab).

    Headless runs are different: nbclient, nbconvert ``--execute`` and
    papermill record only the messages of the cell they are running, so an
    update that arrives after this cell finished is dropped and the saved
    notebook keeps the *first* view. That first view therefore says that the
    job runs in the background and how to wait for it. To get the player in a
    headless run, block in the same cell::

        progress = show_progress(job)
        progress.join()        # or: job.wait(), which shows the same display

    A notebook meant for nbconvert/papermill/nbval is best written with
    ``job.wait()`` (blocking, the final display is kept).
    """
    return JobProgress(jobs, **options).start()

