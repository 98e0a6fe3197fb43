"""Ledger(path=...): rows survive a restart, two writers share a file, torn lines are skipped."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

from gatewaykit.costs import Ledger, LedgerWarning
from ledger_records import records  # noqa: F401  (fixture)


def test_rows_survive_a_restart(tmp_path, records):
    """A new Ledger on the same path reloads every row, costs and tags included."""
    path = tmp_path / "costs.jsonl"
    first = Ledger(path=path)
    with first.tag("exp"):
        first.record(records.chat_ok(cost=0.25))
    first.record(records.http_error())
    second = Ledger(path=path)
    assert second.rows == first.rows
    assert second.total_cost == 0.25 and second.rows[0]["tags"] == ("exp",)


def test_job_updates_survive_a_restart(tmp_path, records):
    """A job completed after creation reloads as completed, once."""
    path = tmp_path / "costs.jsonl"
    first = Ledger(path=path, fsync=False)
    first.record(records.video_created())
    first.update_job("video_1", status="completed", seconds=4)
    first.update_job("video_1", status="completed", seconds=4)
    reloaded = Ledger(path=path)
    assert len(reloaded) == 1 and reloaded.rows[0]["status"] == "completed"
    assert reloaded.rows == first.rows


@pytest.mark.parametrize("name", ["costs.jsonl", "costs.sqlite"])
def test_a_jobs_reported_cost_survives_a_restart(tmp_path, records, name):
    """A cost on the job's view (a classroom's settled cost) makes the row reported, in the file too."""
    path = tmp_path / name
    first = Ledger(path=path, fsync=False, prices={"video-tiers": {"per_second": 0.1}})
    first.record(records.video_created())
    first.update_job("video_1", status="completed", seconds=4, cost=0.2)
    reloaded = Ledger(path=path)
    for ledger in (first, reloaded):
        row = ledger.rows[0]
        assert (row["status"], row["cost_source"], row["total_cost"]) == ("completed", "reported", 0.2)


def test_duplicate_updates_are_not_written(tmp_path, records):
    """Idempotent repeats of a job update add no lines to the file."""
    path = tmp_path / "costs.jsonl"
    ledger = Ledger(path=path, fsync=False)
    ledger.record(records.video_created())
    for _ in range(3):
        ledger.update_job("video_1", status="failed", error_message="boom")
    assert len(path.read_text().splitlines()) == 2


def test_estimates_are_recomputed_from_the_current_price_table(tmp_path, records):
    """Reloaded job rows are priced with the price table of the new ledger; without one, the stored estimate
    of the ledger that saw the job finish is used (issue 31: a third process must not read $0)."""
    path = tmp_path / "costs.jsonl"
    first = Ledger(path=path, prices={"video-tiers": {"per_second": 0.1}})
    first.record(records.video_created())
    first.update_job("video_1", status="completed", seconds=4)
    assert Ledger(path=path, prices={"video-tiers": {"per_second": 0.2}}).total_cost == pytest.approx(0.8)
    stored = Ledger(path=path).rows[0]
    assert stored["cost_source"] == "estimated" and stored["total_cost"] == pytest.approx(0.4)


def test_torn_last_line_is_skipped_with_a_warning(tmp_path, records):
    """A half-written last line (a crash) is skipped with a LedgerWarning, not an error."""
    path = tmp_path / "costs.jsonl"
    Ledger(path=path).record(records.chat_ok(cost=0.5))
    with path.open("a") as file:
        file.write('{"event":"row","time":1,"kind":"chat","mod')
    with pytest.warns(LedgerWarning, match="torn last line"):
        reloaded = Ledger(path=path)
    assert len(reloaded) == 1 and reloaded.total_cost == 0.5


def test_append_after_a_torn_line_starts_a_new_line(tmp_path, records):
    """The next append ends the torn line first, so the new row is not lost."""
    path = tmp_path / "costs.jsonl"
    path.write_text('{"event":"row","time":1,"kind"')
    with pytest.warns(LedgerWarning):
        ledger = Ledger(path=path)
    ledger.record(records.chat_ok(cost=0.5))
    with pytest.warns(LedgerWarning, match="unreadable line 1"):
        reloaded = Ledger(path=path)
    assert reloaded.total_cost == 0.5


def test_foreign_lines_are_skipped(tmp_path, records):
    """Valid JSON that is not a ledger event is skipped with a warning."""
    path = tmp_path / "costs.jsonl"
    path.write_text('[1, 2]\n{"hello": "world"}\n')
    with pytest.warns(LedgerWarning):
        assert len(Ledger(path=path)) == 0


def test_file_lines_are_json_objects(tmp_path, records):
    """Each line is one JSON event (row or update) and holds no request body."""
    path = tmp_path / "costs.jsonl"
    ledger = Ledger(path=path)
    ledger.record(records.video_created(request={"prompt": "private prompt", "duration": 4}))
    ledger.update_job("video_1", status="completed", seconds=4)
    events = [json.loads(line) for line in path.read_text().splitlines()]
    assert [e["event"] for e in events] == ["row", "update"]
    assert "private prompt" not in path.read_text()


def test_clear_persisted_empties_the_file(tmp_path, records):
    """clear(persisted=True) also empties the file; plain clear() keeps it."""
    path = tmp_path / "costs.jsonl"
    ledger = Ledger(path=path)
    ledger.record(records.chat_ok())
    ledger.clear()
    assert len(Ledger(path=path)) == 1
    ledger.clear(persisted=True)
    assert len(Ledger(path=path)) == 0


def test_reload_sees_rows_from_another_ledger(tmp_path, records):
    """reload() picks up rows another kernel appended since start."""
    path = tmp_path / "costs.jsonl"
    mine, theirs = Ledger(path=path), Ledger(path=path)
    theirs.record(records.chat_ok(cost=0.3))
    assert len(mine) == 0
    mine.reload()
    assert mine.total_cost == 0.3


def test_budget_applies_to_reloaded_spend(tmp_path, records):
    """Spend reloaded from the file counts against a new session's budget."""
    from gatewaykit import BudgetExceededError
    from gatewaykit.costs import BudgetWarning

    path = tmp_path / "costs.jsonl"
    Ledger(path=path).record(records.chat_ok(cost=2.0))
    with pytest.warns(BudgetWarning):
        ledger = Ledger(path=path, budget=2.0)
    with pytest.raises(BudgetExceededError):
        ledger.check_budget("chat", "chat-mini", {})


_WRITER = textwrap.dedent(
    """
    import sys, time
    from gatewaykit.costs import CostRecord, Ledger
    path, name, start = sys.argv[1], sys.argv[2], float(sys.argv[3])
    ledger = Ledger(path=path, fsync=False)
    while time.time() < start:
        time.sleep(0.001)
    for i in range(500):
        usage = {"prompt_tokens": i, "cost": {"total_cost": 0.001}}
        ledger.record(CostRecord("chat", "chat-mini", "ok", id=f"{name}-{i}", usage=usage))
    """
)


@pytest.mark.slow
def test_two_processes_writing_one_file(tmp_path):
    """Two processes appending 500 rows each leave 1,000 valid rows."""
    import time

    path = tmp_path / "costs.jsonl"
    start = str(time.time() + 1.0)
    writers = [
        subprocess.Popen([sys.executable, "-c", _WRITER, str(path), name, start]) for name in ("a", "b")
    ]
    assert [w.wait(timeout=60) for w in writers] == [0, 0]
    ledger = Ledger(path=path)
    ids = {row["id"] for row in ledger.rows}
    assert len(ledger) == 1000 and len(ids) == 1000
    assert ledger.total_cost == pytest.approx(1.0)
