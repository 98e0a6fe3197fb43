"""A database ledger is written behind the caller's thread: nothing recorded is lost at exit or on a read."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from gatewaykit.costs import CostRecord, Ledger

_RECORD_AND_EXIT = """
import sys
from gatewaykit.costs import CostRecord, Ledger
ledger = Ledger(path=sys.argv[1])
for i in range(int(sys.argv[2])):
    ledger.record(CostRecord("chat", "chat-mini", "ok", id=f"c{i}", usage={"cost": {"total_cost": 0.001}}))
if sys.argv[3] == "raise":
    raise RuntimeError("the notebook's code failed")
"""  # no flush(), no close()


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", textwrap.dedent(_RECORD_AND_EXIT), *args], capture_output=True, timeout=120)


@pytest.mark.parametrize("ending", ["exit", "raise"])
def test_rows_written_behind_are_on_disk_after_the_process_ends(tmp_path, ending):
    """A process that records 300 rows and exits (or dies of an exception) leaves all 300 for the next one."""
    path = tmp_path / "ledger.sqlite"
    done = _run(str(path), "300", ending)
    assert done.returncode == (0 if ending == "exit" else 1), done.stderr.decode()
    reader = subprocess.run(
        [sys.executable, "-c", "import sys; from gatewaykit.costs import Ledger; print(len(Ledger(path=sys.argv[1])))", str(path)],
        capture_output=True,
        timeout=120,
        check=True,
    )
    assert reader.stdout.decode().split() == ["300"]


def test_a_row_is_on_disk_after_flush(tmp_path):
    """flush() commits what record() queued: a plain sqlite3 reader sees the row."""
    import sqlite3

    ledger = Ledger(path=tmp_path / "ledger.sqlite")
    ledger.record(CostRecord("chat", "chat-mini", "ok", id="one", usage={"cost": {"total_cost": 0.5}}))
    ledger.flush()
    with sqlite3.connect(tmp_path / "ledger.sqlite") as conn:
        assert conn.execute("SELECT id, total_cost FROM rows").fetchall() == [("one", 0.5)]


def test_another_ledger_of_this_process_sees_a_queued_row(tmp_path):
    """A second ledger on the same database, opened right after a record, reads the row (no wait)."""
    path = tmp_path / "ledger.sqlite"
    first = Ledger(path=path)
    first.record(CostRecord("chat", "chat-mini", "ok", id="one", usage={"cost": {"total_cost": 0.5}}))
    assert Ledger(path=path).total_cost == 0.5
    second = Ledger(path=path)
    first.record(CostRecord("chat", "chat-mini", "ok", id="two", usage={"cost": {"total_cost": 0.25}}))
    assert second.total_cost == 0.75


_FORK_WORKERS = """
import multiprocessing, sys
from gatewaykit.costs import CostRecord, Ledger
ledger = Ledger(path=sys.argv[1])

def work(i):
    ledger.record(CostRecord("chat", "chat-mini", "ok", id=f"w{i}", usage={"cost": {"total_cost": 0.01}}))
    return i

if __name__ == "__main__":
    with multiprocessing.get_context("fork").Pool(2) as pool:
        pool.map(work, range(40))
        pool.close()
        pool.join()
"""


def test_rows_of_forked_pool_workers_reach_the_database(tmp_path):
    """Two forked pool workers sharing one ledger: every row is written (workers leave through os._exit,
    with no atexit, and their rows never share a uid)."""
    path = tmp_path / "ledger.sqlite"
    script = tmp_path / "workers.py"
    script.write_text(textwrap.dedent(_FORK_WORKERS))
    subprocess.run([sys.executable, str(script), str(path)], capture_output=True, timeout=120, check=True)
    assert len(Ledger(path=path)) == 40


def test_record_does_not_wait_for_a_commit_in_progress(tmp_path):
    """While the writer thread holds the database (a commit), record() still queues and returns; the row lands after."""
    import threading

    ledger = Ledger(path=tmp_path / "ledger.sqlite")
    store = ledger._store
    recorded = threading.Event()

    def record() -> None:
        ledger.record(CostRecord("chat", "chat-mini", "ok", id="during", usage={"cost": {"total_cost": 0.25}}))
        recorded.set()

    with store._lock:  # what write_queued() holds for the whole transaction
        worker = threading.Thread(target=record, daemon=True)
        worker.start()
        returned = recorded.wait(timeout=60)
    worker.join(timeout=60)
    assert returned, "record() waited for the database lock (a commit) instead of queueing the row"
    ledger.flush()
    assert [row["id"] for row in ledger.rows] == ["during"]


@pytest.mark.parametrize("count", [1, 37, 300, 513])
def test_rows_are_inserted_in_groups_of_any_size(tmp_path, count):
    """A transaction of any number of rows (inserted in power-of-two groups, 256 at most) keeps every row once."""
    path = tmp_path / "ledger.sqlite"
    ledger = Ledger(path=path)
    with ledger.batch():
        for i in range(count):
            ledger.record(CostRecord("chat", "chat-mini", "ok", id=f"c{i}", usage={"cost": {"total_cost": 0.001}}))
    ledger.close()
    assert sorted(row["id"] for row in Ledger(path=path).rows) == sorted(f"c{i}" for i in range(count))


def _chat(i: object) -> CostRecord:
    return CostRecord("chat", "chat-mini", "ok", id=f"c{i}", usage={"cost": {"total_cost": 0.001}})


def test_the_writer_never_changes_the_switch_interval(tmp_path):
    """While rows are committed behind a computing caller, the interpreter's switch interval stays the user's."""
    import time

    ledger = Ledger(path=tmp_path / "ledger.sqlite")
    store = ledger._store
    len(ledger)
    normal = sys.getswitchinterval()
    seen = set()
    for i in range(20):
        ledger.record(_chat(i))
        deadline = time.monotonic() + 30
        while (store.pending() or store._lock.locked()) and time.monotonic() < deadline:  # computing, GIL held
            seen.add(sys.getswitchinterval())
        assert not store.pending()
    assert seen <= {normal}, f"the switch interval was changed to {sorted(seen - {normal})} while the writer committed"
    ledger.close()
    assert len(Ledger(path=tmp_path / "ledger.sqlite")) == 20


@pytest.mark.parametrize("count", [1, 5, 300])
def test_rows_another_connection_wrote_between_our_writes_are_read(tmp_path, count):
    """Our writes skip reading our own rows back only when nobody wrote in between: another ledger's rows
    (and job updates) committed between our read and our write still show."""
    path = tmp_path / "ledger.sqlite"
    mine, other = Ledger(path=path), Ledger(path=path)
    mine.record(_chat("first"))
    assert len(mine) == 1
    for i in range(3):
        other.record(_chat(f"other-{i}"))
    other.flush()
    with mine.batch():
        for i in range(count):
            mine.record(_chat(f"mine-{i}"))
    mine.flush()
    assert len(mine) == 4 + count
    other.record(_chat("other-last"))
    other.flush()
    assert sorted(row["id"] for row in mine.rows) == sorted(
        ["cfirst", "cother-last"] + [f"cother-{i}" for i in range(3)] + [f"cmine-{i}" for i in range(count)]
    )
