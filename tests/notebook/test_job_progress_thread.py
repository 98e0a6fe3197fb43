"""The background thread of ``show_progress``: an interrupted ``join()`` leaves it following, a failure is shown.

The job here is a stand-in whose refresh stays "in_progress" until the test
releases it, so the thread is surely still running when the interrupt comes.
The interrupt is a real SIGINT sent to the main thread while it is inside
``JobProgress.join()``, as the kernel's stop button sends it.
"""

from __future__ import annotations

import signal
import threading
import time
from typing import Any, Callable

import pytest
from factories import video_job
from worker_watch import current_frames

from gatewaykit.client.resources.job_flows import PollSchedule
from gatewaykit.notebook.job_views.job_progress import JobProgress
from gatewaykit.notebook.cell_output.sinks import CapturingSink
from gatewaykit.notebook.job_views.wait_interrupted import WaitInterrupted


class GatedJob:
    """A video job that stays in progress until ``release`` is set, then completes."""

    def __init__(self) -> None:
        self._job = video_job("in_progress", id="video_gated")
        self.release = threading.Event()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._job, name)

    def refresh(self) -> "GatedJob":
        if self.release.is_set():
            self._job.status = "completed"
        return self

    def content(self) -> bytes:
        return b"\x00\x00\x00\x18ftypmp42"


def wait_until(condition: Callable[[], bool], what: str, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, f"waited {seconds:g} s for {what}"
        time.sleep(0.01)


def main_thread_in(code: Any) -> bool:
    frame = current_frames().get(threading.main_thread().ident or 0)
    while frame is not None:
        if frame.f_code is code:
            return True
        frame = frame.f_back
    return False


def interrupt_main_once_in(code: Any) -> threading.Thread:
    """A thread that sends SIGINT to the main thread once the main thread runs ``code``."""
    def send() -> None:
        wait_until(lambda: main_thread_in(code), "the main thread to block in join()")
        time.sleep(0.2)  # well inside the wait loop, not at its first line
        signal.pthread_kill(threading.main_thread().ident or 0, signal.SIGINT)

    sender = threading.Thread(target=send, name="test-interrupter", daemon=True)
    sender.start()
    return sender


def test_interrupted_join_leaves_the_thread_following_to_the_player() -> None:
    """The stop button during join(): WaitInterrupted, the thread still counts as alive and ends as the player."""
    job, sink = GatedJob(), CapturingSink()
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        progress = JobProgress(job, sink=sink, buttons=False, schedule=PollSchedule(first=0.01)).start()
        sender = interrupt_main_once_in(JobProgress.join.__code__)
        with pytest.raises(WaitInterrupted):
            progress.join()
        sender.join(60)
    finally:
        signal.signal(signal.SIGINT, previous)
    assert progress.thread is not None and progress.thread.is_alive(), "join() interrupted marked the thread dead"
    job.release.set()
    wait_until(lambda: progress.done, "the view to follow the job to its end")
    assert progress.thread.ended.wait(60)
    assert "gk-video" in sink.last["text/html"] and progress.error is None


class FlakyDisplay(CapturingSink):
    """A display whose first update fails (as a closed IOPub pipe does), then works."""

    def __init__(self) -> None:
        super().__init__()
        self.failed = False

    def update(self, bundle: dict[str, Any]) -> None:
        if not self.failed:
            self.failed = True
            raise RuntimeError("the display went away")
        super().update(bundle)


def test_a_failing_thread_leaves_a_readable_card_not_a_frozen_one() -> None:
    """An exception in the background thread ends the view with a card saying so, not a frozen 'in progress'."""
    sink = FlakyDisplay()
    progress = JobProgress(GatedJob(), sink=sink, buttons=False, schedule=PollSchedule(first=0.01)).start()
    assert progress.join(60), "the view did not end after its thread failed"
    assert isinstance(progress.error, RuntimeError)
    html = sink.last["text/html"]
    assert "This view stopped updating (RuntimeError: the display went away); the job goes on" in html
    assert "show_progress(job)" in html and "Running in the background" not in html


def test_an_interrupted_playground_wait_leaves_the_run_thread_alive() -> None:
    """The stop button during Playground.wait(): KeyboardInterrupt, and the run's thread still counts as alive."""
    from types import SimpleNamespace

    from gatewaykit.notebook.cell_output.kernel import start_thread
    from gatewaykit.notebook.widgets.playground import Playground

    release = threading.Event()
    run = start_thread(lambda: wait_until(release.is_set, "the test to release the run"), name="test-playground-run")
    playground = SimpleNamespace(thread=run, _running=True)
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        sender = interrupt_main_once_in(Playground.wait.__code__)
        with pytest.raises(KeyboardInterrupt):
            Playground.wait(playground)  # type: ignore[arg-type]
        sender.join(60)
    finally:
        signal.signal(signal.SIGINT, previous)
    assert run.is_alive(), "an interrupted wait() marked the run's thread dead"
    release.set()
    playground._running = False
    assert Playground.wait(playground, 60)  # type: ignore[arg-type]
