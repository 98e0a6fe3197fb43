"""Slow subprocess work that starts when the test session starts, to run beside the rest of the suite.

A few tests spend minutes waiting on subprocesses that need nothing from any
other test: building the Binder and Colab virtual environments (pip) and
type-checking ``src/`` (mypy). The suite's own process keeps one core busy; on
two cores these ran one after another with the second core mostly idle.

A test names its work with ``@pytest.mark.start_early.with_args(work)`` (``with_args``:
a lone function given to a mark would be decorated by it instead) and gets the
outcome with ``early_start.result(work, tmp_path)``. When the test is selected,
``tests/conftest.py`` starts ``work(folder)`` in a background thread as soon as
collection ends (one work at a time, in the order the tests will run; ``folder``
is a fresh temporary directory). ``result`` waits for it and returns its value
or raises its exception, so the work's asserts fail the test as before. A work
not started early (the test run on its own, say) runs in the test itself.
Subprocesses started through :func:`run` are ended when the session ends.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
import threading
from pathlib import Path
from typing import Any, Callable, TypeVar

T = TypeVar("T")

_lock = threading.Lock()
_processes: set[subprocess.Popen[str]] = set()
_queue: list[tuple[str, Callable[[Path], Any], Path]] = []
_outcomes: dict[str, tuple[threading.Event, dict[str, Any]]] = {}
_folders: list[Path] = []
_stopping = threading.Event()


def key(work: Callable[..., Any]) -> str:
    return f"{work.__module__}.{work.__qualname__}"


def start(works: list[Callable[[Path], Any]]) -> None:
    """Run ``works`` one after another in a background thread (each once, whatever the list repeats)."""
    with _lock:
        for work in works:
            if key(work) in _outcomes:
                continue
            folder = Path(tempfile.mkdtemp(prefix="gatewaykit-early-"))
            _folders.append(folder)
            _outcomes[key(work)] = (threading.Event(), {})
            _queue.append((key(work), work, folder))
    if _queue:
        threading.Thread(target=_work_through_queue, name="early-start", daemon=True).start()


def _work_through_queue() -> None:
    while True:
        with _lock:
            if not _queue:
                return
            name, work, folder = _queue.pop(0)
        done, outcome = _outcomes[name]
        try:
            if _stopping.is_set():
                raise RuntimeError("the test session ended before this work started")
            outcome["value"] = work(folder)
        except BaseException as error:  # noqa: BLE001 - raised in the test that asks for it
            outcome["error"] = error
        finally:
            done.set()


def result(work: Callable[[Path], T], folder: Path) -> T:
    """``work``'s outcome: from the background when it was started early, else ``work(folder)`` now."""
    with _lock:
        started = _outcomes.get(key(work))
    if started is None:
        return work(folder)
    done, outcome = started
    done.wait()
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]  # type: ignore[no-any-return]


def run(command: list[str], *, cwd: Path, env: dict[str, str] | None = None, timeout: float) -> subprocess.CompletedProcess[str]:
    """``subprocess.run(command, capture_output=True, text=True)`` whose process :func:`stop` can end."""
    if _stopping.is_set():
        raise RuntimeError(f"the test session ended; not starting {command[0]}")
    process = subprocess.Popen(command, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    with _lock:
        _processes.add(process)
    try:
        stdout, stderr = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.communicate()
        raise
    finally:
        with _lock:
            _processes.discard(process)
    return subprocess.CompletedProcess(command, process.returncode, stdout, stderr)


def stop() -> None:
    """At the session's end: no new work, running subprocesses killed, the folders removed."""
    _stopping.set()
    with _lock:
        running = list(_processes)
        _queue.clear()
    for process in running:
        process.kill()
    for process in running:
        try:
            process.wait(60)
        except subprocess.TimeoutExpired:
            pass
    for folder in _folders:
        shutil.rmtree(folder, ignore_errors=True)
