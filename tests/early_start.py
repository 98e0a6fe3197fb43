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

Under pytest-xdist (``.ci/run`` uses ``-n 3``) every worker collects every test
but the works must run once: only worker ``gw0`` starts them, and writes each
outcome (value or exception, pickled) to a folder all workers of the run share;
``result`` in another worker waits for that file. ``gw0`` lets its works finish
before its session ends (unless interrupted), since another worker may still
need them; a work it never ran gets an outcome that says so, so no test waits
forever.
"""

from __future__ import annotations

import os
import pickle
import shutil
import subprocess
import tempfile
import threading
import time
import traceback
from pathlib import Path
from typing import Any, Callable, TypeVar

T = TypeVar("T")

_lock = threading.Lock()
_processes: set[subprocess.Popen[str]] = set()
_queue: list[tuple[str, Callable[[Path], Any], Path]] = []
_outcomes: dict[str, tuple[threading.Event, dict[str, Any]]] = {}
_folders: list[Path] = []
_stopping = threading.Event()

# pytest-xdist: which worker this is, and the folder the run's workers share outcomes through.
_WORKER = os.environ.get("PYTEST_XDIST_WORKER")
_OWNER = "gw0"
_SHARED = (Path(tempfile.gettempdir()) / f"gatewaykit-early-{os.environ['PYTEST_XDIST_TESTRUNUID']}"
           if _WORKER and os.environ.get("PYTEST_XDIST_TESTRUNUID") else None)
_elsewhere: set[str] = set()  # works another worker (gw0) runs for this one
# The environment as this process had it before any test ran (conftest imports this module first). A work runs
# beside the tests of its own process, and a test's monkeypatch.setenv is seen by every thread: the Colab venv's
# kernel once started while a proxy test had HTTP_PROXY set to a proxy of its own, then gone, and every call it
# made was refused. Works take their subprocesses' environment from here.
_ENVIRONMENT = dict(os.environ)


def environment() -> dict[str, str]:
    """A copy of the environment as the session started (before any test changed ``os.environ``)."""
    return dict(_ENVIRONMENT)


def key(work: Callable[..., Any]) -> str:
    return f"{work.__module__}.{work.__qualname__}"


def start(works: list[Callable[[Path], Any]]) -> None:
    """Run ``works`` one after another in a background thread (each once, whatever the list repeats).

    Under pytest-xdist only worker gw0 runs them; the other workers read their outcomes (see the module's docstring).
    """
    if _SHARED is not None and _WORKER != _OWNER:
        _elsewhere.update(key(work) for work in works)
        return
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
            _share(name, outcome)
            done.set()


def _outcome_file(name: str) -> Path:
    assert _SHARED is not None
    return _SHARED / f"{name}.pickle"


def _share(name: str, outcome: dict[str, Any]) -> None:
    """Under pytest-xdist: ``outcome`` where the other workers find it (written whole, then renamed)."""
    if _SHARED is None:
        return
    if "error" in outcome:
        error = outcome["error"]
        text = "".join(traceback.format_exception(error))
        try:
            data = pickle.dumps({"error": error, "traceback": text})
            pickle.loads(data)
        except Exception:  # noqa: BLE001 - an exception that does not survive pickling: its text does
            data = pickle.dumps({"error": RuntimeError(f"{name} failed in worker {_WORKER}:\n{text}")})
    else:
        data = pickle.dumps(outcome)
    _SHARED.mkdir(parents=True, exist_ok=True)
    partial = _outcome_file(name).with_suffix(".partial")
    partial.write_bytes(data)
    partial.replace(_outcome_file(name))


def _remove_shared_if_empty() -> None:
    try:
        _SHARED.rmdir()  # type: ignore[union-attr]
    except OSError:
        pass  # outcomes still unread (or none written)


def _shared_result(name: str) -> Any:
    """Under pytest-xdist, in a worker other than gw0: wait for gw0's outcome of work ``name``."""
    while not _outcome_file(name).exists():
        time.sleep(0.5)
    outcome = pickle.loads(_outcome_file(name).read_bytes())
    _outcome_file(name).unlink()  # one test reads each work's outcome
    _remove_shared_if_empty()
    if "error" in outcome:
        error = outcome["error"]
        if "traceback" in outcome:
            error.add_note(f"(raised in worker {_OWNER}, which ran this work:)\n{outcome['traceback']}")
        raise error
    return outcome["value"]


def result(work: Callable[[Path], T], folder: Path) -> T:
    """``work``'s outcome: from the background when it was started early, else ``work(folder)`` now."""
    if key(work) in _elsewhere:
        return _shared_result(key(work))
    with _lock:
        started = _outcomes.get(key(work))
    if started is None:
        return work(folder)
    done, outcome = started
    done.wait()
    if _SHARED is not None:  # this worker ran it and uses it: no other worker reads the shared copy
        _outcome_file(key(work)).unlink(missing_ok=True)
        _remove_shared_if_empty()
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


def stop(*, interrupted: bool = True) -> None:
    """At the session's end: no new work, running subprocesses killed, the folders removed.

    Under pytest-xdist a run that was not ``interrupted`` first lets the works finish: tests in other
    workers may be waiting for them.
    """
    if _SHARED is not None and not interrupted:
        for done, _outcome in list(_outcomes.values()):
            done.wait()
    _stopping.set()
    with _lock:
        running = list(_processes)
        unstarted = [name for name, _work, _folder in _queue]
        _queue.clear()
    for name in unstarted:
        _share(name, {"error": RuntimeError(f"the test session of worker {_WORKER} ended before this work started")})
    for process in running:
        process.kill()
    for process in running:
        try:
            process.wait(60)
        except subprocess.TimeoutExpired:
            pass
    for folder in _folders:
        shutil.rmtree(folder, ignore_errors=True)
    if _SHARED is not None:
        _remove_shared_if_empty()
