"""Where a ledger keeps its rows (the per-user database, a path, memory), merging,
pickling, JSONL export and the database's errors, in one process."""

from __future__ import annotations

import pickle
import subprocess
import sys

import pytest

from gatewaykit.costs import CostRecord, Ledger, LedgerWarning
from gatewaykit.costs.database import LedgerDatabaseError
from ledger_records import records  # noqa: F401  (fixture)


@pytest.fixture
def user_db(tmp_path, monkeypatch):
    """The per-user database's path, set through GATEWAYKIT_LEDGER_PATH."""
    path = tmp_path / "user" / "ledger.sqlite"
    monkeypatch.setenv("GATEWAYKIT_LEDGER_PATH", str(path))
    return path


def test_default_ledger_persists_to_the_env_path(user_db, records):
    """Ledger() writes a real gateway's row to GATEWAYKIT_LEDGER_PATH; a new Ledger() sees it."""
    Ledger().record(records.chat_ok(cost=0.25))
    assert user_db.exists()
    assert Ledger().total_cost == 0.25


def test_default_path_is_the_user_data_dir(monkeypatch):
    """Without the environment variable the database is ledger.sqlite in platformdirs' user data dir."""
    import platformdirs

    monkeypatch.delenv("GATEWAYKIT_LEDGER_PATH")
    expected = platformdirs.user_data_dir("gatewaykit", appauthor=False)
    assert str(Ledger().path) == f"{expected}/ledger.sqlite"


def test_offline_rows_stay_in_memory_by_default(user_db, records):
    """Rows from the offline gateway create no file in the default ledger."""
    ledger = Ledger()
    ledger.record(records.chat_ok(offline=True))
    ledger.record(records.video_created(offline=True))
    ledger.update_job("video_1", status="completed")
    assert not user_db.exists() and len(ledger) == 2
    assert ledger.rows[1]["status"] == "completed"


def test_offline_rows_are_kept_next_to_persisted_ones(user_db, records):
    """Once the database is open, offline rows still stay out of it but show in this ledger."""
    ledger = Ledger()
    ledger.record(records.chat_ok(cost=0.1, offline=True))
    ledger.record(records.chat_ok(cost=0.2))
    assert len(ledger) == 2 and ledger.total_cost == pytest.approx(0.3)
    assert Ledger().total_cost == pytest.approx(0.2)


def test_an_explicit_path_keeps_offline_rows(tmp_path, records):
    """Ledger(path=...) persists offline rows too."""
    path = tmp_path / "class.sqlite"
    Ledger(path=path).record(records.chat_ok(cost=0.1, offline=True))
    assert Ledger(path=path).total_cost == 0.1


def test_path_none_never_writes(user_db, records):
    """Ledger(path=None) is memory only, whatever the rows."""
    ledger = Ledger(path=None)
    ledger.record(records.chat_ok())
    assert not user_db.exists() and ledger.path is None and len(ledger) == 1


def test_env_memory_keeps_the_default_ledger_in_memory(monkeypatch, tmp_path, records):
    """GATEWAYKIT_LEDGER_PATH=memory opts every default ledger out of the database."""
    monkeypatch.setenv("GATEWAYKIT_LEDGER_PATH", "memory")
    monkeypatch.chdir(tmp_path)
    ledger = Ledger()
    ledger.record(records.chat_ok())
    assert ledger.path is None and len(ledger) == 1 and list(tmp_path.iterdir()) == []


def test_import_touches_no_disk(tmp_path):
    """import gatewaykit opens no database and loads neither sqlite3 nor platformdirs."""
    path = tmp_path / "ledger.sqlite"
    code = (
        "import sys, gatewaykit as gk\n"
        "print(sorted({'sqlite3', 'platformdirs'} & set(sys.modules)))\n"
        "print(len(gk.ledger))"
    )
    env = {**__import__("os").environ, "GATEWAYKIT_LEDGER_PATH": str(path)}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, env=env, timeout=60, check=True)
    assert out.stdout.decode().split("\n")[:2] == ["[]", "0"] and not path.exists()


def test_a_file_that_is_not_a_database_is_a_clear_error(tmp_path):
    """Ledger(path=...) on a file that is not SQLite says what to do."""
    path = tmp_path / "ledger.sqlite"
    path.write_bytes(b"this is not a database, just some text\n" * 100)
    with pytest.raises(LedgerDatabaseError, match="not a usable gatewaykit ledger database.*move it aside"):
        Ledger(path=path)


def test_a_broken_default_database_warns_and_stays_in_memory(user_db, records):
    """A corrupt per-user database never stops a request: one warning, rows kept in memory."""
    user_db.parent.mkdir(parents=True)
    user_db.write_bytes(b"garbage" * 1000)
    ledger = Ledger()
    with pytest.warns(LedgerWarning, match="stays in memory"):
        ledger.record(records.chat_ok(cost=0.1))
    ledger.record(records.chat_ok(cost=0.2))
    assert ledger.total_cost == pytest.approx(0.3)


def test_the_budget_is_stored_in_the_database(tmp_path, records):
    """A budget set on one ledger is the budget of every ledger on that file."""
    path = tmp_path / "ledger.sqlite"
    Ledger(path=path).budget = 3.0
    assert Ledger(path=path).budget == 3.0
    Ledger(path=path, budget=4.0)
    assert Ledger(path=path).budget == 4.0


def test_batch_writes_every_row_at_its_end(tmp_path, records):
    """Rows recorded inside batch() reach the database when the block ends."""
    path = tmp_path / "ledger.sqlite"
    ledger, other = Ledger(path=path), Ledger(path=path)
    with ledger.batch():
        for i in range(100):
            ledger.record(CostRecord("chat", "chat-mini", "ok", id=f"c{i}", usage={"cost": {"total_cost": 0.01}}))
        assert len(ledger) == 100 and len(other) == 0
    assert len(other) == 100 and other.total_cost == pytest.approx(1.0)


def test_missing_values_and_flags_read_back_as_they_were_recorded(tmp_path, records):
    """None is bound as NaN and True/False as 1/0 (sqlite3 binds those without its adapter lookup):
    another ledger reads back None, True, False and the numbers exactly, and the file holds NULLs."""
    import sqlite3

    from gatewaykit.costs.database_store import flush_path

    path = tmp_path / "ledger.sqlite"
    ledger = Ledger(path=path)
    with ledger.tag("lesson-1"):
        ledger.record(records.chat_ok(cost=0.5, offline=True, base_url="http://gateway.test"))
    ledger.record(CostRecord("chat.stream", "chat-mini", "interrupted", error_message="dropped"))  # charged None
    ledger.record(records.http_error())  # charged False, every cost None
    ledger.record(records.image_ok(images=None, request={"n": 2, "size": "1024x1024"}))  # pricing kept
    ledger.record(CostRecord("chat", None, "ok", usage={"prompt_tokens": 3, "cost": {"total_cost": 0.0}}))
    flush_path(path)
    written = [(row.charged, row.offline, row.model) for row in ledger._book.rows]

    reader = Ledger(path=path)
    assert len(reader) == 5
    for mine, theirs in zip(ledger._book.rows, reader._book.rows):
        assert theirs == mine
        for name in ("charged", "offline", "total_cost", "prompt_tokens", "model", "http_status", "pricing", "tags"):
            assert type(getattr(theirs, name)) is type(getattr(mine, name)), name
    assert [(row.charged, row.offline, row.model) for row in reader._book.rows] == written == [
        (True, True, "chat-mini"), (None, False, "chat-mini"), (False, False, "chat-mini"),
        (True, False, "image-pixels"), (True, False, None),
    ]  # fmt: skip
    with sqlite3.connect(path) as conn:
        types = conn.execute(
            "SELECT typeof(charged), typeof(offline), typeof(key_id), typeof(error_code), typeof(pricing) "
            "FROM rows ORDER BY seq"
        ).fetchall()
    assert types[1] == ("null", "integer", "null", "null", "null")  # NULL, never a stored NaN
    assert types[0][:2] == ("integer", "integer") and types[3][4] == "text"


def test_an_in_memory_ledger_pickles_its_rows(records):
    """pickle round-trip of a memory ledger keeps rows, tags, budget and a pending job."""
    ledger = Ledger(path=None, budget=5.0, prices={"video-tiers": {"per_second": 0.1}})
    with ledger.tag("exp"):
        ledger.record(records.chat_ok(cost=0.2))
    ledger.record(records.video_created(base_url="http://gw/v1"))
    copy = pickle.loads(pickle.dumps(ledger))
    assert copy.rows == ledger.rows and copy.budget == 5.0
    assert copy.pending_jobs() == ledger.pending_jobs()
    copy.update_job("video_1", status="completed", seconds=4)
    assert copy.total_cost == pytest.approx(0.6) and ledger.total_cost == pytest.approx(0.2)


def test_merge_adds_each_row_once(records):
    """Merging ledgers that share rows (a pickled copy) adds only the new ones; a job's end carries over."""
    origin = Ledger(path=None)
    origin.record(records.chat_ok(cost=0.1))
    origin.record(records.video_created())
    worker = pickle.loads(pickle.dumps(origin))
    worker.record(records.chat_ok(cost=0.2))
    worker.update_job("video_1", status="failed", error_message="boom")
    origin.merge(worker, worker)
    assert len(origin) == 3 and origin.total_cost == pytest.approx(0.3)
    assert origin.rows[1]["status"] == "failed"
    merged = Ledger.merged([origin, worker, origin])
    assert merged.rows == origin.rows


def test_merge_into_a_database_writes_the_new_rows(tmp_path, records):
    """Rows merged into a database ledger are in the database."""
    path = tmp_path / "ledger.sqlite"
    worker = Ledger(path=None)
    worker.record(records.chat_ok(cost=0.5))
    Ledger(path=path).merge(worker)
    Ledger(path=path).merge(worker)
    assert len(Ledger(path=path)) == 1


def test_jsonl_export_round_trip(tmp_path, records):
    """to_jsonl then from_jsonl gives the same rows, and merging them back adds nothing."""
    ledger = Ledger(path=tmp_path / "ledger.sqlite", prices={"video-tiers": {"per_second": 0.1}})
    ledger.record(records.chat_ok(cost=0.2))
    ledger.record(records.video_created())
    ledger.update_job("video_1", status="completed", seconds=2)
    ledger.to_jsonl(tmp_path / "export.jsonl")
    loaded = Ledger.from_jsonl(tmp_path / "export.jsonl", prices={"video-tiers": {"per_second": 0.1}})
    assert loaded.rows == ledger.rows and loaded.path is None
    ledger.merge(loaded)
    assert len(ledger) == 2


def test_reload_reads_the_database_again(tmp_path, records):
    """reload() after clear() brings back every row of the database."""
    path = tmp_path / "ledger.sqlite"
    ledger = Ledger(path=path)
    ledger.record(records.chat_ok(cost=0.1))
    ledger.clear()
    assert len(ledger) == 0
    ledger.reload()
    assert len(ledger) == 1


def test_clear_persisted_empties_the_database(tmp_path, records):
    """clear(persisted=True) deletes the database's rows."""
    path = tmp_path / "ledger.sqlite"
    ledger = Ledger(path=path)
    ledger.record(records.chat_ok())
    ledger.clear(persisted=True)
    assert len(Ledger(path=path)) == 0


def test_a_pickled_default_ledger_still_keeps_offline_rows_in_memory(user_db, records):
    """The unpickled copy of the default ledger writes real rows to the database, offline rows nowhere."""
    ledger = Ledger()
    ledger.record(records.chat_ok(cost=0.1))
    copy = pickle.loads(pickle.dumps(ledger))
    copy.record(records.chat_ok(cost=0.2, offline=True))
    assert copy.path == user_db and copy.total_cost == pytest.approx(0.3)
    assert Ledger(path=user_db).total_cost == pytest.approx(0.1)


def test_a_closed_ledger_reopens_on_next_use(tmp_path, records):
    """close() releases the database; the next record or read opens it again."""
    path = tmp_path / "ledger.sqlite"
    ledger = Ledger(path=path)
    ledger.record(records.chat_ok(cost=0.1))
    ledger.close()
    ledger.record(records.image_ok(cost=0.2))
    assert len(ledger) == 2 and Ledger(path=path).total_cost == pytest.approx(0.3)


def test_env_path_to_a_jsonl_file_keeps_the_journal_format(tmp_path, monkeypatch, records):
    """GATEWAYKIT_LEDGER_PATH ending in .jsonl makes the default ledger a JSONL journal."""
    path = tmp_path / "costs.jsonl"
    monkeypatch.setenv("GATEWAYKIT_LEDGER_PATH", str(path))
    Ledger().record(records.chat_ok(cost=0.4))
    assert '"event":"row"' in path.read_text() and Ledger().total_cost == 0.4


FORK_SCENARIO = """
import multiprocessing, os, sys
from gatewaykit.costs import CostRecord, Ledger

def in_child(ledger):
    ledger.record(CostRecord("chat", "chat-mini", "ok", id="child", usage={"cost": {"total_cost": 0.2}}))
    ledger.flush()
    if ledger._store._connection().pid != os.getpid():  # SQLite forbids using a connection across fork()
        raise SystemExit(3)

if __name__ == "__main__":
    ledger = Ledger(path=sys.argv[1])
    ledger.record(CostRecord("chat", "chat-mini", "ok", id="parent", usage={"cost": {"total_cost": 0.1}}))
    child = multiprocessing.get_context("fork").Process(target=in_child, args=(ledger,))
    child.start()
    child.join(timeout=120)
    print(child.exitcode, len(ledger), round(ledger.total_cost, 6))
"""


def test_a_forked_child_uses_its_own_connection(tmp_path):
    """A ledger inherited through fork() reopens the database in the child; the parent sees the row.

    The fork happens in a fresh interpreter: forked from a pytest worker, the child inherits whatever locks the
    worker's other threads (servers and views of earlier tests) held at that instant, and once hung on one."""
    script = tmp_path / "fork_scenario.py"
    script.write_text(FORK_SCENARIO)
    done = subprocess.run([sys.executable, str(script), str(tmp_path / "ledger.sqlite")], capture_output=True,
                          text=True, timeout=240)  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["0", "2", "0.3"], (done.stdout, done.stderr[-2000:])


FORKS_WHILE_COMMITTING = """
import multiprocessing, sys
from gatewaykit.costs import CostRecord, Ledger

def in_child(ledger):
    ledger.record(CostRecord("chat", "chat-mini", "ok", usage={"cost": {"total_cost": 0.5}}))
    ledger.flush()

if __name__ == "__main__":
    ledger, forks = Ledger(path=sys.argv[1]), int(sys.argv[2])
    context = multiprocessing.get_context("fork")
    for fork in range(forks):
        for _ in range(40):  # the writer thread commits these while the next fork() happens
            ledger.record(CostRecord("chat", "chat-mini", "ok", usage={"cost": {"total_cost": 0.25}}))
        child = context.Process(target=in_child, args=(ledger,), daemon=True)
        child.start()
        child.join(timeout=60)  # a hung child never ends: 60 s is only what a loaded machine may need
        if child.exitcode != 0:
            print("fork", fork, "child exit code", child.exitcode, flush=True)
            child.kill()
            raise SystemExit(1)
    ledger.reload()  # the children's rows too
    print(len(ledger), round(ledger.total_cost, 6))
"""


def test_forks_while_the_writer_thread_commits_never_hang_the_child(tmp_path):
    """fork() while the ledger's writer thread is inside SQLite: the child's own connection still opens.

    Without the stores' before-fork hook, a mutex SQLite held in the writer thread stayed locked in the child,
    whose sqlite3.connect then waited forever; this scenario hung a child in about one fork in 30."""
    script = tmp_path / "forks.py"
    script.write_text(FORKS_WHILE_COMMITTING)
    forks = 150
    done = subprocess.run([sys.executable, str(script), str(tmp_path / "ledger.sqlite"), str(forks)],
                          capture_output=True, text=True, timeout=600)  # fmt: skip
    assert done.returncode == 0, (done.stdout[-2000:], done.stderr[-2000:])
    assert done.stdout.split() == [str(forks * 41), str(round(forks * (40 * 0.25 + 0.5), 6))], done.stdout


def test_the_database_never_holds_the_key(tmp_path, emulator, keys):
    """After a chat and a video job through a real client, the key is in no byte of the database files."""
    import gatewaykit as gk

    ledger = Ledger(path=tmp_path / "ledger.sqlite")
    with gk.Client(api_key=keys.acme, base_url=emulator.base_url, ledger=ledger) as client:
        client.chat.completions.create(model="chat-mini", messages=[{"role": "user", "content": "hi"}])
        client.videos.create(model="video-tiers", prompt="waves", duration=4).wait(timeout=60)
    ledger.close()
    files = list(tmp_path.glob("ledger.sqlite*"))
    assert len(Ledger(path=tmp_path / "ledger.sqlite")) == 2
    assert all(keys.acme.encode() not in path.read_bytes() for path in files)


def test_a_closed_default_ledger_reopens_the_same_database(user_db, records):
    """close() on the default ledger, then a record: the row lands in the same per-user database."""
    ledger = Ledger()
    ledger.record(records.chat_ok(cost=0.1))
    ledger.close()
    ledger.record(records.chat_ok(cost=0.2))
    assert ledger.path == user_db and Ledger(path=user_db).total_cost == pytest.approx(0.3)


def test_replayed_rows_stay_in_memory_by_default(user_db, records):
    """Rows replayed from a cassette (nothing sent) create no file in the default ledger."""
    ledger = Ledger()
    ledger.record(records.chat_ok(cost=0.3, replayed=True))
    assert not user_db.exists() and len(ledger) == 1 and ledger.rows[0]["cost_source"] == "replayed"
