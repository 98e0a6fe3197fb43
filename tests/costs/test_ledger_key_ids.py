"""The ledger keeps each job's key fingerprint (key_id) beside its base URL, and filters pending jobs by it."""

from __future__ import annotations

import json
import pickle
import sqlite3

import pytest

from gatewaykit.costs import Ledger
from ledger_records import video_created

GATEWAY = "https://gw.example"


def _two_keys_one_gateway(ledger: Ledger) -> Ledger:
    ledger.record(video_created("video_mine", base_url=GATEWAY, key_id="aaaaaaaaaaaaaaaa"))
    ledger.record(video_created("video_theirs", base_url=GATEWAY, key_id="bbbbbbbbbbbbbbbb"))
    return ledger


def _pending_ids(ledger: Ledger, key_id: str) -> list[str]:
    return [job["id"] for job in ledger.pending_jobs(base_url=GATEWAY, key_id=key_id)]


def test_pending_jobs_filters_by_key_id() -> None:
    """pending_jobs(key_id=) keeps that key's jobs and leaves another key's out."""
    ledger = _two_keys_one_gateway(Ledger(path=None))
    assert _pending_ids(ledger, "aaaaaaaaaaaaaaaa") == ["video_mine"]
    assert _pending_ids(ledger, "bbbbbbbbbbbbbbbb") == ["video_theirs"]
    assert [job["id"] for job in ledger.pending_jobs(base_url=GATEWAY)] == ["video_mine", "video_theirs"]


def test_rows_without_a_key_id_are_pending_for_every_key() -> None:
    """A job recorded before key ids (key_id None) is listed for any key_id on its base URL."""
    ledger = Ledger(path=None)
    ledger.record(video_created("video_old", base_url=GATEWAY))
    (job,) = ledger.pending_jobs(base_url=GATEWAY, key_id="aaaaaaaaaaaaaaaa")
    assert (job["id"], job["key_id"]) == ("video_old", None)


@pytest.mark.parametrize("suffix", [".sqlite", ".jsonl"])
def test_key_id_is_read_back_from_the_file(tmp_path, suffix: str) -> None:
    """A ledger reopened from its SQLite database or JSONL journal still tells the keys' jobs apart."""
    path = tmp_path / f"ledger{suffix}"
    _two_keys_one_gateway(Ledger(path=path)).close()
    assert _pending_ids(Ledger(path=path), "bbbbbbbbbbbbbbbb") == ["video_theirs"]


@pytest.mark.parametrize("copy", ["pickle", "merge", "jsonl"])
def test_key_id_survives_pickles_merges_and_exports(tmp_path, copy: str) -> None:
    """Pickling, merging and a JSONL export/import keep each job's key_id."""
    ledger = _two_keys_one_gateway(Ledger(path=None))
    if copy == "pickle":
        other = pickle.loads(pickle.dumps(ledger))
    elif copy == "merge":
        other = Ledger.merged([ledger])
    else:
        ledger.to_jsonl(tmp_path / "export.jsonl")
        other = Ledger.from_jsonl(tmp_path / "export.jsonl")
    assert _pending_ids(other, "aaaaaaaaaaaaaaaa") == ["video_mine"]


def test_a_database_without_the_key_id_column_opens(tmp_path) -> None:
    """An old database (rows without key_id) opens, its jobs stay pending for any key, new rows keep key ids."""
    path = tmp_path / "old.sqlite"
    old = Ledger(path=path)
    old.record(video_created("video_old", base_url=GATEWAY))
    old.close()
    with sqlite3.connect(path) as conn:  # what a ledger made before key ids looks like
        conn.execute("ALTER TABLE rows DROP COLUMN key_id")
    ledger = _two_keys_one_gateway(Ledger(path=path))
    assert _pending_ids(ledger, "aaaaaaaaaaaaaaaa") == ["video_old", "video_mine"]
    assert _pending_ids(Ledger(path=path), "bbbbbbbbbbbbbbbb") == ["video_old", "video_theirs"]


def test_a_pickle_from_before_key_ids_loads(tmp_path) -> None:
    """A pickled ledger whose rows carry three items (no key_id) unpickles with those rows pending."""
    ledger = Ledger(path=None)
    ledger.record(video_created("video_old", base_url=GATEWAY))
    function, (state,) = ledger.__reduce__()
    state["rows"] = [tuple(item[:3]) for item in state["rows"]]
    (job,) = function(state).pending_jobs(base_url=GATEWAY, key_id="aaaaaaaaaaaaaaaa")
    assert job["id"] == "video_old"


def test_the_journal_line_holds_the_key_id(tmp_path) -> None:
    """A JSONL row event carries key_id next to base_url."""
    path = tmp_path / "ledger.jsonl"
    _two_keys_one_gateway(Ledger(path=path))
    events = [json.loads(line) for line in path.read_text().splitlines()]
    assert [(e["id"], e["base_url"], e["key_id"]) for e in events] == [
        ("video_mine", GATEWAY, "aaaaaaaaaaaaaaaa"),
        ("video_theirs", GATEWAY, "bbbbbbbbbbbbbbbb"),
    ]
