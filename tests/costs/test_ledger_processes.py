"""One SQLite ledger shared by several processes (kernels): live rows, job updates,
pending jobs after a restart, a shared budget, pickling, a killed writer."""

from __future__ import annotations

import json
import pickle
import signal
import subprocess
import sys
import textwrap
import time

import pytest

import gatewaykit as gk
from gatewaykit.costs import CostRecord, Ledger
from ledger_records import records  # noqa: F401  (fixture)


def _python(code: str, *args: str, stdin: bytes = b"", timeout: float = 60) -> str:
    """Run ``code`` in a new interpreter (a new kernel) and return its stdout."""
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code), *args],
        input=stdin,
        capture_output=True,
        timeout=timeout,
    )
    assert done.returncode == 0, done.stderr.decode()
    return done.stdout.decode()


_WRITER = """
import sys, time
from gatewaykit.costs import CostRecord, Ledger
path, name, count, total = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
ledger = Ledger(path=path)
for i in range(count):
    usage = {"prompt_tokens": 1, "cost": {"total_cost": 0.001}}
    ledger.record(CostRecord("chat", "chat-mini", "ok", id=f"{name}-{i}", usage=usage))
deadline = time.time() + 30
while len(ledger) < total and time.time() < deadline:  # no reload(): every read is live
    time.sleep(0.01)
print(len(ledger), round(ledger.total_cost, 9))
"""


@pytest.mark.slow
def test_two_processes_see_each_others_rows_live(tmp_path):
    """Two processes writing one database each see the other's rows without reload()."""
    path = tmp_path / "ledger.sqlite"
    mine = Ledger(path=path)
    writers = [
        subprocess.Popen([sys.executable, "-c", _WRITER, str(path), name, "300", "600"], stdout=subprocess.PIPE)
        for name in ("a", "b")
    ]
    outputs = [w.communicate(timeout=60)[0].decode().split() for w in writers]
    assert outputs == [["600", "0.6"], ["600", "0.6"]]
    assert len(mine) == 600 and len({row["id"] for row in mine.rows}) == 600
    assert mine.total_cost == pytest.approx(0.6)


def test_a_job_completed_in_another_process_is_completed_here(tmp_path, records):
    """A job created here and completed by another kernel reads as completed and charged."""
    path = tmp_path / "ledger.sqlite"
    mine = Ledger(path=path, prices={"video-tiers": {"per_second": 0.1}})
    mine.record(records.video_created())
    assert mine.rows[0]["status"] == "queued"
    _python(
        "import sys; from gatewaykit.costs import Ledger\n"
        "Ledger(path=sys.argv[1]).update_job('video_1', status='completed', seconds=4)",
        str(path),
    )
    row = mine.rows[0]
    assert (row["status"], row["charged"]) == ("completed", True)
    assert mine.total_cost == pytest.approx(0.4)


def test_a_restarted_kernel_sees_the_pending_jobs(tmp_path, records):
    """After a restart, pending_jobs() lists the jobs whose end was never seen, with what rebuilds them."""
    path = tmp_path / "ledger.sqlite"
    first = Ledger(path=path)
    first.record(records.video_created("video_7", base_url="https://gw.example/v1"))
    first.record(records.music_created("audio_3", base_url="https://gw.example/v1"))
    first.record(records.video_created("video_8", base_url="http://127.0.0.1:9/v1"))
    first.update_job("audio_3", status="completed")
    first.close()
    seen = json.loads(
        _python(
            "import json, sys; from gatewaykit.costs import Ledger\n"
            "print(json.dumps(Ledger(path=sys.argv[1]).pending_jobs(base_url='https://gw.example/v1/')))",
            str(path),
        )
    )
    assert [(j["id"], j["kind"], j["model"], j["base_url"]) for j in seen] == [
        ("video_7", "video", "video-tiers", "https://gw.example/v1")
    ]


def test_the_budget_is_shared_across_processes(tmp_path, records):
    """A budget set in one kernel stops another kernel once their shared spend reaches it."""
    path = tmp_path / "ledger.sqlite"
    mine = Ledger(path=path, budget=1.0)
    mine.record(records.chat_ok(cost=0.4))
    answer = _python(
        """
        import sys
        from gatewaykit import BudgetExceededError
        from gatewaykit.costs import CostRecord, Ledger
        theirs = Ledger(path=sys.argv[1])
        print(theirs.budget)
        theirs.check_budget("chat", "chat-mini", {})
        usage = {"cost": {"total_cost": 0.6}}
        theirs.record(CostRecord("chat", "chat-mini", "ok", id="other", usage=usage))
        try:
            theirs.check_budget("chat", "chat-mini", {})
        except BudgetExceededError as exc:
            print("blocked", exc.spent)
        """,
        str(path),
        timeout=60,
    )
    assert answer.split() == ["1.0", "blocked", "1.0"]
    with pytest.raises(gk.BudgetExceededError):
        mine.check_budget("chat", "chat-mini", {})


def test_a_budget_reached_elsewhere_stops_the_client_before_sending(tmp_path, emulator, admin, keys):
    """The client's call raises BudgetExceededError and the gateway's balance stays put."""
    path = tmp_path / "ledger.sqlite"
    ledger = Ledger(path=path, budget=0.5)
    _python(
        "import sys; from gatewaykit.costs import CostRecord, Ledger\n"
        "Ledger(path=sys.argv[1]).record(CostRecord('chat', 'chat-mini', 'ok', usage={'cost': {'total_cost': 0.5}}))",
        str(path),
    )
    before = admin.balance("acme")
    with gk.Client(api_key=keys.acme, base_url=emulator.base_url, ledger=ledger) as client:
        with pytest.raises(gk.BudgetExceededError):
            client.chat.completions.create(model="chat-mini", messages=[{"role": "user", "content": "hi"}])
    assert admin.balance("acme") == before and len(ledger) == 1


def test_a_pickled_ledger_writes_to_the_same_database_from_another_process(tmp_path, records):
    """An unpickled database ledger in another process records into the same file."""
    path = tmp_path / "ledger.sqlite"
    mine = Ledger(path=path)
    mine.record(records.chat_ok(cost=0.1))
    answer = _python(
        """
        import pickle, sys
        from gatewaykit.costs import CostRecord
        theirs = pickle.loads(sys.stdin.buffer.read())
        print(len(theirs), theirs.path.name)
        theirs.record(CostRecord("chat", "chat-mini", "ok", id="w", usage={"cost": {"total_cost": 0.2}}))
        """,
        stdin=pickle.dumps(mine),
    )
    assert answer.split() == ["1", "ledger.sqlite"]
    assert len(mine) == 2 and mine.total_cost == pytest.approx(0.3)


_KILLED_WRITER = """
import sys
from gatewaykit.costs import CostRecord, Ledger
ledger = Ledger(path=sys.argv[1])
i = 0
while True:
    ledger.record(CostRecord("chat", "chat-mini", "ok", id=f"c{i}", usage={"cost": {"total_cost": 0.001}}))
    i += 1
    if i % 50 == 0:
        ledger.flush()  # a database is written behind the caller: what is flushed is committed
        print(i, flush=True)
"""


@pytest.mark.slow
def test_a_writer_killed_mid_write_loses_no_committed_row(tmp_path):
    """SIGKILL while writing leaves a readable database with every row flushed before the kill, in order, none twice."""
    path = tmp_path / "ledger.sqlite"
    writer = subprocess.Popen([sys.executable, "-c", _KILLED_WRITER, str(path)], stdout=subprocess.PIPE)
    reported = 0
    while reported < 500:
        reported = int(writer.stdout.readline())
    writer.send_signal(signal.SIGKILL)
    writer.wait(timeout=30)
    writer.stdout.close()
    ledger = Ledger(path=path)
    ids = [row["id"] for row in ledger.rows]
    assert len(ids) >= reported and len(set(ids)) == len(ids)
    assert ids == [f"c{i}" for i in range(len(ids))]


def test_a_locked_database_defers_the_write_and_retries(tmp_path, records, monkeypatch):
    """A write that cannot get the lock warns (at the next flush: the database is written behind
    the caller), keeps the row, and lands with the next write."""
    import sqlite3

    from gatewaykit.costs import LedgerWarning, database

    monkeypatch.setattr(database, "BUSY_TIMEOUT", 0.1)
    path = tmp_path / "ledger.sqlite"
    ledger = Ledger(path=path)
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    started = time.perf_counter()
    with pytest.warns(LedgerWarning, match="database is locked.*retried with the next write"):
        ledger.record(records.chat_ok(cost=0.1))
        ledger.flush()
    assert time.perf_counter() - started < 5
    holder.execute("COMMIT")
    holder.close()
    ledger.record(CostRecord("chat", "chat-mini", "ok", id="second", usage={"cost": {"total_cost": 0.2}}))
    assert Ledger(path=path).total_cost == pytest.approx(0.3)


def _worker_ledger(start: int) -> Ledger:
    """A worker process's own in-memory ledger, returned (pickled) to the parent."""
    ledger = Ledger(path=None)
    for i in range(start, start + 50):
        ledger.record(CostRecord("chat", "chat-mini", "ok", id=f"c{i}", usage={"cost": {"total_cost": 0.01}}))
    return ledger


@pytest.mark.slow
def test_ledgers_from_spawned_workers_merge_without_duplicates():
    """Ledgers built in spawned worker processes come back pickled and merge into one, each row once."""
    import multiprocessing

    with multiprocessing.get_context("spawn").Pool(2) as pool:
        parts = pool.map(_worker_ledger, [0, 50, 100])
    merged = Ledger.merged(parts + parts)
    assert len(merged) == 150 and len({row["id"] for row in merged.rows}) == 150
    assert merged.total_cost == pytest.approx(1.5)
