"""Where a class is kept: a file readable by its owner only, the per-user database when start() is given no
db= (memory when asked), the admin token kept as a digest; and what a student reads when the classroom is down."""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any, Iterator

import httpx
import pytest
from classroom_fixtures import TEACHER_KEY, auth, chat, open_room


@pytest.fixture
def umask_022() -> Iterator[None]:
    """The usual umask, under which a plain create is readable by every local user (0644)."""
    before = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(before)


def _mode(path: Path) -> str:
    return oct(stat.S_IMODE(path.stat().st_mode))


def test_the_class_database_and_its_wal_and_shm_are_readable_by_their_owner_only(
        upstream: Any, tmp_path: Path, umask_022: None) -> None:
    """db, -wal and -shm are 0600 (the roster, spend, pause reasons and key digests)."""
    db = tmp_path / "class.db"
    room = open_room(upstream, roster=["ana"], db=str(db))
    try:
        assert httpx.post(f"{room.base_url}/v1/chat/completions", json=chat(),
                          headers=auth(room.keys.key[0])).status_code == 200
        files = [db, Path(f"{db}-wal"), Path(f"{db}-shm")]
        assert [(p.name, _mode(p)) for p in files] == [(p.name, "0o600") for p in files]
    finally:
        room.stop()


def test_a_class_database_made_readable_by_others_is_made_owner_only(
        upstream: Any, tmp_path: Path, umask_022: None) -> None:
    """A database from before (0644) is 0600 once a classroom opens it."""
    db = tmp_path / "class.db"
    open_room(upstream, roster=["ana"], db=str(db)).stop()
    db.chmod(0o644)
    room = open_room(upstream, roster=["ana"], db=str(db))
    try:
        assert _mode(db) == "0o600"
    finally:
        room.stop()


@pytest.fixture
def user_data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A per-user data folder of this test's own, and no GATEWAYKIT_CLASSROOM_DB (the tests' memory default)."""
    monkeypatch.delenv("GATEWAYKIT_CLASSROOM_DB", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    return tmp_path / "data" / "gatewaykit"


def test_a_class_started_without_db_is_kept_in_the_per_user_database(
        upstream: Any, user_data: Path, capsys: Any) -> None:
    """A restart (a new kernel) keeps the keys and the spend; the start line names the file."""
    first = open_room(upstream, roster=["ana"], cap=1.0)
    key = first.keys.key[0]
    try:
        assert httpx.post(f"{first.base_url}/v1/chat/completions", json=chat(), headers=auth(key)).status_code == 200
        spent = first.report_rows()[0]["spent_usd"]
    finally:
        first.stop()
    printed = capsys.readouterr().out
    assert f"The class is kept in {user_data / 'classroom.db'}" in printed and "db=':memory:'" in printed
    second = open_room(upstream, roster=["ana"], cap=1.0)
    try:
        assert list(second.keys.student) == []  # ana is known: no new key
        assert httpx.get(f"{second.base_url}/v1/models", headers=auth(key)).status_code == 200
        assert second.report_rows()[0]["spent_usd"] == spent > 0
    finally:
        second.stop()


def test_db_memory_keeps_the_class_in_memory_and_says_so(upstream: Any, user_data: Path, capsys: Any) -> None:
    """``db=":memory:"`` writes no file; the start line says the keys and spend are lost when it stops."""
    open_room(upstream, roster=["ana"], db=":memory:").stop()
    assert not user_data.exists()
    assert "The class is in memory only" in capsys.readouterr().out


def test_a_python_restart_on_the_same_db_accepts_the_same_admin_token(upstream: Any, tmp_path: Path) -> None:
    """The database keeps the token's digest: the token a first start made still works after a restart."""
    db = str(tmp_path / "class.db")
    first = open_room(upstream, roster=["ana"], db=db)
    token = first.admin_token
    first.stop()
    second = open_room(upstream, db=db)
    try:
        assert second.admin_token_source == "kept"
        answer = httpx.get(f"{second.base_url}/_classroom/status", headers=auth(token))
        assert answer.status_code == 200 and second.status()["students"] == 1
        wrong = httpx.get(f"{second.base_url}/_classroom/status", headers=auth(token + "x"))
        assert wrong.status_code == 401 and "admin_token=" in wrong.json()["error"]["message"]
    finally:
        second.stop()


def test_a_student_whose_classroom_is_down_reads_its_address_and_to_tell_whoever_runs_it(
        upstream: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """Not a bare "Connection refused": the address (SVC_BASE_URL) and who can fix it."""
    import gatewaykit as gk

    room = open_room(upstream, roster=["ana"])
    base_url, key = room.base_url, room.keys.key[0]
    room.stop()
    monkeypatch.setenv("SVC_BASE_URL", base_url)
    monkeypatch.setenv("SVC_API_KEY", key)
    with gk.Client(max_retries=0) as client:
        with pytest.raises(gk.APIConnectionError) as caught:
            client.chat.ask("Say hi", model="chat-mini")
    message = str(caught.value)
    assert f"Nothing answers at {base_url} (SVC_BASE_URL)" in message, message
    assert "tell whoever runs it (your teacher)" in message and TEACHER_KEY not in message


def test_a_second_classroom_on_a_database_in_use_is_refused_until_the_first_stops(
        upstream: Any, tmp_path: Path) -> None:
    """Two running classrooms on one file would each hold their own holds: the caps would not be hard."""
    from gatewaykit.classroom.store import DatabaseInUse

    db = str(tmp_path / "class.db")
    first = open_room(upstream, roster=["ana"], db=db)
    try:
        with pytest.raises(DatabaseInUse, match="is in use by another running classroom"):
            open_room(upstream, roster=["ana"], db=db)
    finally:
        first.stop()
    open_room(upstream, roster=["ana"], db=db).stop()
