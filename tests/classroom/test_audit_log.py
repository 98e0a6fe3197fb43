"""The audit log: room.audit() and GET /_classroom/audit list every admin action (pause, resume, caps,
revocations, reissues, schedules, assignments) with its time and where it came from (notebook, CLI, hub hook,
another client), kept in the database across a restart; only the admin token reads it."""

from __future__ import annotations

import datetime as dt
import subprocess
import sys
from typing import Any

import httpx
from classroom_fixtures import FakeClock, auth, db_rows, open_room

LOCAL = dt.datetime.now().astimezone().tzinfo


def test_every_admin_action_is_logged_with_its_time_and_origin_and_kept_across_a_restart(
        upstream: Any, tmp_path: Any) -> None:
    """Actions from the notebook, the CLI, a hub's spawner hook and a script, in order, each with its origin;
    no key in the log; the log is still there after a restart."""
    clock = FakeClock(dt.datetime(2026, 12, 7, 9, 0, tzinfo=LOCAL))
    db = str(tmp_path / "class.db")
    with open_room(upstream, roster=["ana", "bo"], clock=clock, db=db, announce=False) as room:
        room.pause("fire drill")
        room.resume()
        room.set_cap("ana", 3.0)
        room.set_cap("bo", 5.0, until="2026-12-08T09:00")
        room.revoke("bo")
        key = room.reissue("bo")
        room.add_student("cy", 1.0)
        room.schedule_pause("2026-12-14T09:00", "2026-12-14T11:00", reason="exam")
        room.add_assignment("hw1", cap=0.5, start="2026-12-08T00:00", end="2026-12-15T00:00")
        done = subprocess.run([sys.executable, "-m", "gatewaykit.classroom", "pause", "--reason", "from a shell",
                               "--url", room.base_url, "--admin-token", room.admin_token], capture_output=True,
                              text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        hook = httpx.post(f"{room.base_url}/_classroom/students/dee/key", headers=auth(room.admin_token))
        assert hook.status_code == 200
        script = httpx.post(f"{room.base_url}/_classroom/resume", headers=auth(room.admin_token))
        assert script.status_code == 200
        remote = httpx.post(f"{room.base_url}/_classroom/students/ana/revoke",
                            headers={**auth(room.admin_token), "X-Classroom-Origin": "remote connect"})
        assert remote.status_code == 200
        log = room.audit()
        assert httpx.get(f"{room.base_url}/_classroom/audit", headers=auth(key)).status_code == 401
    assert list(zip(log.action, log.student.fillna(""), log.origin)) == [
        ("pause", "", "notebook"), ("resume", "", "notebook"), ("set cap", "ana", "notebook"),
        ("set cap", "bo", "notebook"), ("revoke", "bo", "notebook"), ("reissue", "bo", "notebook"),
        ("add student", "cy", "notebook"), ("schedule pause", "", "notebook"), ("add assignment", "", "notebook"),
        ("pause", "", "cli"), ("add student", "dee", "hub hook"), ("resume", "", "http"),
        ("revoke", "ana", "remote connect")]
    assert set(log.time) == {"2026-12-07T09:00:00" + clock.now.isoformat()[19:]}
    assert log.detail[0] == {"reason": "fire drill", "cancel_jobs": False, "cancelled_jobs": 0}
    assert log.detail[3] == {"cap_usd": 5.0, "until": "2026-12-08T09:00:00" + clock.now.isoformat()[19:]}
    assert log.detail[8]["name"] == "hw1" and log.detail[7]["reason"] == "exam"
    assert not any(key in str(row) for row in db_rows(db, "SELECT * FROM audit"))
    with open_room(upstream, roster=["ana"], clock=clock, db=db, announce=False) as again:
        assert len(again.audit()) == len(log)


def test_a_connected_classroom_drives_the_policy_and_is_logged_as_remote_connect(rooms: Any) -> None:
    """gk.classroom.connect(url) has the policy's methods; what it does is 'remote connect' in the audit log."""
    from gatewaykit import classroom

    room = rooms(roster=["ana"], log_prompts=True)
    with classroom.connect(room.base_url, room.admin_token) as remote:
        remote.schedule_pause("2030-01-01T09:00", "2030-01-01T10:00", reason="exam")
        remote.add_assignment("hw1", cap=0.5, start="2030-02-01T00:00")
        assert remote.set_cap("ana", 3.0, until="2030-01-05T00:00")["until"].startswith("2030-01-05T00:00:00")
        assert list(remote.schedules().reason) == ["exam"] and list(remote.assignments().name) == ["hw1"]
        assert remote.pseudonym("ana") == room.pseudonym("ana") and remote.prompt_log().empty
        assert list(remote.report(by="assignment").student) == ["ana"]
        log = remote.audit()
    assert list(zip(log.action, log.origin)) == [
        ("schedule pause", "remote connect"), ("add assignment", "remote connect"), ("set cap", "remote connect"),
        ("pseudonym looked up", "remote connect"), ("pseudonym looked up", "notebook")]


def test_the_cli_verbs_of_the_policy(rooms: Any) -> None:
    """cap --until, schedule-pause and audit on the command line; each action is 'cli' in the audit log."""
    room = rooms(roster=["ana"])

    def cli(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "gatewaykit.classroom", *args, "--url", room.base_url,
                               "--admin-token", room.admin_token], capture_output=True, text=True, timeout=120)

    done = cli("cap", "ana", "3.5", "--until", "2030-01-05T00:00")
    assert done.returncode == 0 and done.stdout.startswith("ana's cap is now $3.50 until 2030-01-05T00:00:00"), \
        done.stderr
    assert cli("schedule-pause", "--start", "2030-01-01T09:00", "--end", "2030-01-01T10:00").returncode == 0
    audit = cli("audit")
    assert audit.returncode == 0 and [line.split()[1:3] for line in audit.stdout.splitlines()] == [
        ["cli", "set"], ["cli", "schedule"]]
