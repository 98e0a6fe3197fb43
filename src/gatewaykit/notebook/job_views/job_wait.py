"""A blocking ``job.wait()`` in a kernel: the live card, a working Cancel button, a short interrupt.

The client's polling flow runs in a worker thread that repaints the card; the cell's thread handles
widget events meanwhile, so Cancel works although the cell is busy, and the stop button ends the wait
quietly, saying how to pick the job up again. Details: ``docs/internals.md``.
"""

from __future__ import annotations

import threading
import time
from typing import Any, Callable, Optional

from gatewaykit.notebook.job_views.job_progress import REPAINT_EVERY, JobProgress
from gatewaykit.notebook.cell_output.kernel import sleep_until, start_thread, threads_available
from gatewaykit.notebook.job_views.shown_once import mark_shown_live
from gatewaykit.notebook.cell_output.sinks import DisplaySink
from gatewaykit.notebook.job_views.wait_interrupted import WaitInterrupted, interrupted_note, resume_hint
from gatewaykit.notebook.cell_output.widget_events import widget_events
from gatewaykit.types.jobs import canonical_status

__all__ = ["WaitInterrupted", "resume_hint", "wait_with_progress"]

PUMP_EVERY = 0.05  # seconds between looks at widget events while blocking
BLOCKED_CANCEL_HINT = "job.wait() keeps this cell busy: to cancel, press stop (■), then run job.cancel()."


class _StopFollowing(Exception):
    """Raised into the polling flow's ``on_update`` once nobody waits any more."""


def wait_with_progress(
    job: Any,
    *,
    timeout: Optional[float] = None,
    sink: Optional[DisplaySink] = None,
    wait: Optional[Callable[[Callable[[Any], Any]], Any]] = None,
    buttons: Optional[bool] = None,
    **wait_options: Any,
) -> Any:
    """``job.wait()`` with the live display and a Cancel button: blocks until the job ends, returns it.

    Runs the client's polling flow: ``wait(on_update)`` when given (what
    ``KernelDisplay.job_wait`` passes), else ``job.wait(timeout=..., on_update=...)``.
    Raises what that raises (``JobFailedError``, ``JobTimeoutError``) after the
    card shows it; a cancel (the button) returns the cancelled job; the stop
    button raises :class:`WaitInterrupted` (the job goes on).
    """
    progress = JobProgress(job, sink=sink, buttons=False if sink is not None and buttons is None else buttons)
    progress.cancel_hint = BLOCKED_CANCEL_HINT  # shown only when there is no Cancel button (no ipywidgets)
    progress.show()
    finished = threading.Event()
    outcome: dict[str, Any] = {}

    def observe(fresh: Any) -> None:
        if finished.is_set():  # the cell stopped waiting (interrupt, cancel): end the polling flow too
            raise _StopFollowing
        progress.observe(fresh)

    def run() -> None:
        try:
            if wait is not None:
                outcome["job"] = wait(observe)
            else:
                outcome["job"] = job.wait(timeout=timeout, on_update=observe, **wait_options)
        except BaseException as exc:  # noqa: BLE001 - handed to the cell's thread below
            outcome["error"] = exc
        finally:
            finished.set()

    if not threads_available():  # a browser page's Python (Pyodide): the cell polls itself, the card follows each poll
        run()
    else:
        start_thread(run, name="gatewaykit-job-wait")
    try:
        with widget_events() as pump:
            next_paint = time.monotonic() + REPAINT_EVERY
            while not sleep_until(finished, PUMP_EVERY):  # not finished.wait(): see gatewaykit.notebook.cell_output.kernel
                pump()
                if canonical_status(job.status) == "cancelled":  # the button's cancel() updated this object
                    break
                if time.monotonic() >= next_paint:
                    progress.paint()
                    next_paint = time.monotonic() + REPAINT_EVERY
    except KeyboardInterrupt:
        finished.set()
        progress.detach(interrupted_note(job))
        raise WaitInterrupted(job) from None
    finished.set()
    progress.observe(job)
    if "error" in outcome:
        raise outcome["error"]
    result = outcome.get("job", job)
    if sink is None:  # the cell shows the final state already: `job.wait()` as its last line adds no second player
        mark_shown_live(result)
    return result
