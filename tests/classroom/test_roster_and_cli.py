"""A malformed roster stops the start: a ValueError naming the line in Python, exit status 2 from the CLI.
The CLI serves a class with keys written to a file readable only by its owner, never printed."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest
from classroom_fixtures import TEACHER_KEY, auth, chat, wait_for

from gatewaykit.classroom.roster import read_roster

BAD = {
    "name,cap_usd\nana,1\n": "line 1: a roster needs a 'student' column",
    "student,cap_usd\nana,1\nbo,2\nana,3\n": "line 4: student 'ana' is already on",
    "student,cap_usd\nana,1\nbo,-2\n": "line 3: cap_usd must be 0 or more dollars",
    "student,cap_usd\nana,lots\n": "line 2: cap_usd must be a number of dollars",
    "student\nana\n\n ,\n": "line 4: the student is empty",
}


@pytest.mark.parametrize("text", list(BAD))
def test_a_bad_roster_file_is_a_value_error_naming_the_line(tmp_path: Path, text: str) -> None:
    path = tmp_path / "roster.csv"
    path.write_text(text)
    with pytest.raises(ValueError, match=BAD[text]):
        read_roster(str(path))


def test_rosters_from_a_dataframe_and_a_list(tmp_path: Path) -> None:
    import pandas as pd

    frame = pd.DataFrame({"student": ["ana", "bo"], "cap_usd": [1.5, None]})
    assert [(e.student, e.cap_usd) for e in read_roster(frame)] == [("ana", 1.5), ("bo", None)]
    assert [e.student for e in read_roster(["ana", {"student": "bo", "cap_usd": "$3"}])] == ["ana", "bo"]
    with pytest.raises(ValueError, match="row 2: student 'ana' is already on row 1"):
        read_roster(pd.DataFrame({"student": ["ana", "ana"]}))
    with pytest.raises(ValueError, match="needs a 'student' column"):
        read_roster(pd.DataFrame({"login": ["ana"]}))


def test_start_refuses_a_bad_roster_before_serving(upstream: Any, rooms: Any) -> None:
    with pytest.raises(ValueError, match="item 2: cap_usd must be 0 or more"):
        rooms(roster=["ana", {"student": "bo", "cap_usd": -1}])
    with pytest.raises(ValueError, match="models chat-nope are not in the gateway's catalog"):
        rooms(roster=["ana"], models=["chat-mini", "chat-nope"])
    with pytest.raises(ValueError, match="window must be one of total, daily, weekly, monthly"):
        rooms(roster=["ana"], window="hourly")


def _cli(*args: str, env: dict | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "gatewaykit.classroom", *args], capture_output=True, text=True,
                          timeout=120, env=env, cwd=cwd)


def test_the_cli_exits_2_on_a_bad_roster_naming_the_line(tmp_path: Path) -> None:
    roster = tmp_path / "roster.csv"
    roster.write_text("student,cap_usd\nana,1\nana,2\n")
    done = _cli("--upstream", "offline", "--roster", str(roster), "--db", str(tmp_path / "c.db"), "--port", "0")
    assert done.returncode == 2
    assert f"{roster} line 3: student 'ana' is already on" in done.stderr


def test_the_cli_needs_the_teachers_key_from_the_environment(tmp_path: Path, upstream: Any) -> None:
    roster = tmp_path / "roster.csv"
    roster.write_text("student\nana\n")
    env = {k: v for k, v in os.environ.items() if k != "SVC_API_KEY"}
    done = _cli("--upstream", upstream.base_url, "--roster", str(roster), "--db", str(tmp_path / "c.db"), env=env)
    assert done.returncode == 2 and "SVC_API_KEY" in done.stderr


def test_the_cli_serves_a_class_and_writes_keys_only_to_the_keys_file(tmp_path: Path, upstream: Any) -> None:
    roster = tmp_path / "roster.csv"
    roster.write_text("student,cap_usd\nana,0.5\nbo,\n")
    keys_file = tmp_path / "keys.csv"
    env = {**os.environ, "SVC_API_KEY": TEACHER_KEY}
    server = subprocess.Popen(
        [sys.executable, "-m", "gatewaykit.classroom", "--upstream", upstream.base_url, "--roster", str(roster),
         "--db", str(tmp_path / "c.db"), "--keys-out", str(keys_file), "--port", "0", "--admin-token", "t0ken"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        lines: list[str] = []
        url_line = wait_for(lambda: (lines.append(server.stdout.readline()) or  # type: ignore[union-attr]
                                     next((l for l in lines if "classroom on" in l), None)), 60, "the server")
        base_url = url_line.split("classroom on ")[1].split()[0]
        assert oct(keys_file.stat().st_mode & 0o777) == "0o600"
        assert b"\r" not in keys_file.read_bytes()  # a shell's `cut -d, -f2` gives the key, not the key and a \r
        keys = dict(line.split(",") for line in keys_file.read_text().splitlines()[1:])
        assert set(keys) == {"ana", "bo"}
        answer = httpx.post(f"{base_url}/v1/chat/completions", json=chat(), headers=auth(keys["ana"]))
        assert answer.status_code == 200
        report = httpx.get(f"{base_url}/_classroom/report", headers=auth("t0ken")).json()["rows"]
        assert [(r["student"], r["cap_usd"], r["requests"]) for r in report] == [("ana", 0.5, 1), ("bo", 2.0, 0)]
    finally:
        server.send_signal(signal.SIGTERM)
        out, err = server.communicate(timeout=60)
    printed = "".join(lines) + out + err
    assert server.returncode == 0, err
    assert all(key not in printed for key in keys.values()) and TEACHER_KEY not in printed


def test_the_cli_starts_an_empty_class_that_a_spawner_hook_fills(tmp_path: Path, upstream: Any) -> None:
    env = {**os.environ, "SVC_API_KEY": TEACHER_KEY, "GATEWAYKIT_CLASSROOM_ADMIN_TOKEN": "hub-token"}
    server = subprocess.Popen([sys.executable, "-m", "gatewaykit.classroom", "--upstream", upstream.base_url,
                               "--db", str(tmp_path / "c.db"), "--port", "0"],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        line = wait_for(lambda: (lambda text: text if "classroom on" in text else None)(
            server.stdout.readline()), 60, "the server")  # type: ignore[union-attr]
        base_url = line.split("classroom on ")[1].split()[0]
        key = httpx.post(f"{base_url}/_classroom/students/ana/key", headers=auth("hub-token")).json()["key"]
        assert httpx.post(f"{base_url}/v1/chat/completions", json=chat(), headers=auth(key)).status_code == 200
    finally:
        server.send_signal(signal.SIGTERM)
        out, err = server.communicate(timeout=60)
    assert server.returncode == 0, err
    assert "admin token" not in out  # it came from the environment: not printed


class _Served:
    """``python -m gatewaykit.classroom`` in a process: its start lines (read up to the last one it prints)."""

    def __init__(self, upstream: Any, db: Path, *more: str, env: dict | None = None) -> None:
        env = {**os.environ, "SVC_API_KEY": TEACHER_KEY, **(env or {})}
        env.pop("GATEWAYKIT_CLASSROOM_ADMIN_TOKEN", None)
        self.process = subprocess.Popen(
            [sys.executable, "-m", "gatewaykit.classroom", "--upstream", upstream.base_url, "--db", str(db),
             "--port", "0", *more], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        self.lines: list[str] = []
        try:
            wait_for(lambda: self._read().startswith("admin token"), 60, "the admin token line")
        except BaseException:
            self.stop()
            raise
        self.base_url = next(l for l in self.lines if l.startswith("classroom on")).split()[2]

    def _read(self) -> str:
        line = self.process.stdout.readline()  # type: ignore[union-attr]
        assert line or self.process.poll() is None, self.process.stderr.read()  # type: ignore[union-attr]
        self.lines.append(line)
        return line

    def line(self, start: str) -> str:
        return next(l for l in self.lines if l.startswith(start))

    def stop(self) -> None:
        self.process.send_signal(signal.SIGTERM)
        self.process.communicate(timeout=60)


def test_a_cli_restart_on_the_same_db_accepts_the_admin_token_it_printed_first(tmp_path: Path, upstream: Any) -> None:
    """The token is printed once; the restart's start line says where it is kept and how to replace it."""
    db = tmp_path / "c.db"
    first = _Served(upstream, db)
    first.stop()
    token = first.line("admin token: ").split()[2]
    second = _Served(upstream, db)
    try:
        kept = second.line("admin token")
        assert token not in kept and f"kept in {db}" in kept and "--new-admin-token" in kept
        assert httpx.get(f"{second.base_url}/_classroom/status", headers=auth(token)).status_code == 200
    finally:
        second.stop()


def test_a_new_admin_token_replaces_the_kept_one_and_a_refusal_names_the_cli_option(
        tmp_path: Path, upstream: Any) -> None:
    """``--new-admin-token``: the new one works, the old one is refused in command-line words."""
    db = tmp_path / "c.db"
    first = _Served(upstream, db)
    first.stop()
    old = first.line("admin token: ").split()[2]
    second = _Served(upstream, db, "--new-admin-token")
    try:
        new = second.line("admin token: ").split()[2]
        assert new != old
        assert httpx.get(f"{second.base_url}/_classroom/status", headers=auth(new)).status_code == 200
        refused = httpx.get(f"{second.base_url}/_classroom/status", headers=auth(old))
        message = refused.json()["error"]["message"]
        assert refused.status_code == 401 and "--admin-token" in message and "admin_token=" not in message
    finally:
        second.stop()


def test_every_key_the_classroom_issues_is_appended_to_the_keys_file(tmp_path: Path, upstream: Any) -> None:
    """A reissued key and an added student's key land in the keys file; its last line per student works."""
    roster = tmp_path / "roster.csv"
    roster.write_text("student\nana\n")
    keys_file = tmp_path / "keys.csv"
    served = _Served(upstream, tmp_path / "c.db", "--roster", str(roster), "--keys-out", str(keys_file))
    try:
        token = served.line("admin token: ").split()[2]
        first = dict(line.split(",") for line in keys_file.read_text().splitlines()[1:])
        reissued = httpx.post(f"{served.base_url}/_classroom/students/ana/reissue", headers=auth(token)).json()
        added = httpx.post(f"{served.base_url}/_classroom/students", json={"student": "bo"},
                           headers=auth(token)).json()
        rows = [line.split(",") for line in keys_file.read_text().splitlines()[1:]]
        assert rows == [["ana", first["ana"]], ["ana", reissued["key"]], ["bo", added["key"]]]
        latest = dict(rows)
        for student in ("ana", "bo"):
            answer = httpx.post(f"{served.base_url}/v1/chat/completions", json=chat(), headers=auth(latest[student]))
            assert answer.status_code == 200, student
    finally:
        served.stop()


def test_the_cli_names_its_own_option_not_the_python_parameter(tmp_path: Path, upstream: Any) -> None:
    """No teacher's key, or a negative cap: the message names SVC_API_KEY / --cap, never upstream_key= / cap."""
    env = {k: v for k, v in os.environ.items() if k != "SVC_API_KEY"}
    no_key = _cli("--upstream", upstream.base_url, "--db", str(tmp_path / "c.db"), env=env)
    assert no_key.returncode == 2 and "set SVC_API_KEY" in no_key.stderr and "upstream_key=" not in no_key.stderr
    negative = _cli("--upstream", "offline", "--cap", "-1", "--db", str(tmp_path / "c.db"))
    assert negative.returncode == 2 and "--cap must be a number of dollars" in negative.stderr, negative.stderr
