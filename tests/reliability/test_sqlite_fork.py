"""fork() waits for a SQLite call in progress in another thread, for every object that talks to SQLite from several
threads: the ledger's database store (its writer thread), the classroom's store (the teacher's kernel runs the
classroom in a thread, notebook 11) and a map/batch checkpoint (its worker threads store results).

A mutex SQLite holds in a thread at the instant of fork() stays locked in the child, whose first sqlite3.connect then
waits forever (gatewaykit/sqlite_fork.py; tests/costs/test_ledger_database.py forks while the ledger's writer thread
commits and caught such a hang in 1 fork in 30). Here each object's lock is held by a thread, as its SQLite call
holds it, and fork() must return only after that thread let it go; the child gets a free lock. The scenario runs in a
fresh interpreter: forking a pytest worker would copy whatever its other threads hold."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SCENARIO = """
import os, sys, threading, time
from gatewaykit.classroom.store import SQLiteStore
from gatewaykit.client.session_tools.checkpoint import Checkpoint
from gatewaykit.costs.database_store import DatabaseStore

folder = sys.argv[1]
owners = {"classroom": SQLiteStore(folder + "/classroom.sqlite"), "checkpoint": Checkpoint(folder + "/map.sqlite"),
          "ledger": DatabaseStore(folder + "/ledger.sqlite")}
for name, owner in owners.items():
    taken, let_go, released = threading.Event(), threading.Event(), []

    def in_sqlite():  # holds the lock as the object's SQLite call does, until told to let go
        with owner._lock:
            taken.set()
            let_go.wait()
            released.append(time.monotonic())

    thread = threading.Thread(target=in_sqlite)
    thread.start()
    taken.wait()
    threading.Timer(0.3, let_go.set).start()
    pid = os.fork()
    if pid == 0:
        os._exit(0 if owner._lock.acquire(timeout=5) else 3)  # the child's lock: a new one, free
    forked = time.monotonic()
    thread.join()
    print(name, "waited" if forked >= released[0] else "did-not-wait", os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]))
"""


def test_fork_waits_for_the_sqlite_call_in_progress_and_the_child_gets_free_locks(tmp_path: Path) -> None:
    script = tmp_path / "forks.py"
    script.write_text(SCENARIO)
    done = subprocess.run([sys.executable, str(script), str(tmp_path)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.splitlines() == ["classroom waited 0", "checkpoint waited 0", "ledger waited 0"], done.stdout
