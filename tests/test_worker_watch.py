"""The stack sampler the tests use (``worker_watch.current_frames``) cannot deadlock a process that starts threads.

CPython 3.11's ``sys._current_frames()`` holds the runtime's thread-state lock while it allocates; a garbage
collection there runs ``gc.callbacks`` (Python code, which may hand the GIL over), and a thread starting a
thread then waits for that lock while holding the GIL: both stop for good. A CI worker hung so in
``Thread.start``; with plain ``sys._current_frames`` the script below hangs at its first thread.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

SCRIPT = textwrap.dedent(
    """
    import gc, sys, threading, time
    sys.path.insert(0, {tests!r})
    from worker_watch import current_frames

    gc.callbacks.append(lambda phase, info: time.sleep(0))  # Python code in every collection, giving up the GIL
    gc.set_threshold(3)  # a collection every few allocations: inside the sampling, as often as can be
    stop = False

    def sample():
        while not stop:
            current_frames()

    threading.Thread(target=sample, daemon=True).start()
    for _ in range(300):
        started = threading.Thread(target=lambda: [object() for _ in range(100)])
        started.start()
        started.join()
    stop = True
    print("started 300 threads")
    """
)


def test_sampling_stacks_while_threads_start_and_collections_run_callbacks_never_deadlocks() -> None:
    script = SCRIPT.format(tests=str(Path(__file__).parent))
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "started 300 threads" in done.stdout
