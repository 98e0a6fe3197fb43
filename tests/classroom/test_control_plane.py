"""The teacher's control plane from anywhere: ``gk.classroom.connect(url)`` drives a classroom another process
runs with the same methods ``start()`` gives, and every admin action is a CLI verb too."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import httpx
import pytest
from classroom_fixtures import TEACHER_KEY, auth, chat, wait_for

import gatewaykit as gk
from gatewaykit.classroom.cli import main

TOKEN_VARIABLE = "GATEWAYKIT_CLASSROOM_ADMIN_TOKEN"


def _kernel(script: str, env: dict[str, str]) -> Any:
    """Run ``script`` in a fresh Python process (a notebook kernel's view: no state but its environment); the
    JSON it prints last."""
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(script)], capture_output=True, text=True,
                          timeout=120, env=env)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_a_teacher_drives_a_cli_classroom_from_a_kernel_and_again_after_its_restart(tmp_path: Path,
                                                                                      upstream: Any) -> None:
    """Start from the CLI, drive it from a kernel, restart the kernel, drive it again: all from the environment."""
    roster = tmp_path / "roster.csv"
    roster.write_text("student\nana\nbo\n")
    env = {**os.environ, "SVC_API_KEY": TEACHER_KEY, TOKEN_VARIABLE: "teacher-token-1"}
    server = subprocess.Popen([sys.executable, "-m", "gatewaykit.classroom", "--upstream", upstream.base_url,
                               "--roster", str(roster), "--db", str(tmp_path / "c.db"), "--port", "0"],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        line = wait_for(lambda: (lambda text: text if "classroom on" in text else None)(
            server.stdout.readline()), 60, "the server")  # type: ignore[union-attr]
        url = line.split("classroom on ")[1].split()[0]
        kernel_env = {k: v for k, v in env.items() if k != "SVC_API_KEY"}  # the teacher's kernel: no paid key
        first = _kernel(f"""
            import json, gatewaykit as gk
            room = gk.classroom.connect({url!r})
            room.set_cap("ana", 0.5)
            key = room.add_student("cy", cap=0.25)
            room.pause("lunch")
            print(json.dumps({{"key": key, "status": room.status()}}))
        """, kernel_env)
        assert first["status"]["paused"] and first["status"]["students"] == 3
        refused = httpx.post(f"{url}/v1/chat/completions", json=chat(), headers=auth(first["key"]))
        assert refused.status_code == 503 and "lunch" in refused.text
        again = _kernel(f"""
            import json, gatewaykit as gk
            room = gk.classroom.connect({url!r})
            room.resume()
            print(json.dumps(room.report_rows()))
        """, kernel_env)
        assert [(r["student"], r["cap_usd"]) for r in again] == [("ana", 0.5), ("bo", 2.0), ("cy", 0.25)]
        assert httpx.post(f"{url}/v1/chat/completions", json=chat(), headers=auth(first["key"])).status_code == 200
    finally:
        server.send_signal(signal.SIGTERM)
        server.communicate(timeout=60)
    assert server.returncode == 0


def test_connect_drives_every_admin_method_of_a_running_classroom(rooms: Any) -> None:
    """A connected Classroom reports, caps, revokes, reissues, adds and pauses the class another object started."""
    room = rooms(roster=["ana", "bo"])
    with gk.classroom.connect(room.base_url, admin_token=room.admin_token) as remote:
        _drive_every_method(room, remote)


def _drive_every_method(room: Any, remote: Any) -> None:
    assert isinstance(remote, gk.Classroom)
    remote.set_cap("ana", 0.75)
    old = room.keys.set_index("student").key["bo"]
    new = remote.reissue("bo")
    assert httpx.post(f"{room.base_url}/v1/chat/completions", json=chat(), headers=auth(old)).status_code == 401
    assert httpx.post(f"{room.base_url}/v1/chat/completions", json=chat(), headers=auth(new)).status_code == 200
    cy = remote.add_student("cy")
    remote.revoke("cy")
    assert httpx.post(f"{room.base_url}/v1/chat/completions", json=chat(), headers=auth(cy)).status_code == 401
    assert list(remote.keys.student) == ["bo", "cy"]
    remote.pause("exam")
    assert room.status()["paused"] and room.status()["reason"] == "exam"
    remote.resume()
    frame = remote.report()
    assert list(frame.student) == ["ana", "bo", "cy"] and frame.cap_usd.tolist() == [0.75, 2.0, 2.0]
    assert frame.requests.tolist() == [0, 1, 0] and frame.revoked.tolist() == [False, False, True]
    with pytest.raises(KeyError, match="No student 'dee'"):
        remote.revoke("dee")


def test_connect_takes_the_admin_token_from_the_environment(rooms: Any, monkeypatch: Any) -> None:
    """Without admin_token=, GATEWAYKIT_CLASSROOM_ADMIN_TOKEN is the token."""
    room = rooms(roster=["ana"])
    monkeypatch.setenv(TOKEN_VARIABLE, room.admin_token)
    with gk.classroom.connect(room.base_url + "/") as remote:
        assert remote.status()["students"] == 1


def test_connect_with_a_wrong_token_is_one_authentication_error(rooms: Any) -> None:
    """A token the classroom refuses fails at connect(), naming where the token comes from."""
    room = rooms(roster=["ana"])
    with pytest.raises(gk.AuthenticationError, match="refused the admin token.*GATEWAYKIT_CLASSROOM_ADMIN_TOKEN"):
        gk.classroom.connect(room.base_url, admin_token="admin-wrong")


def test_connect_without_any_token_says_where_to_put_one(monkeypatch: Any) -> None:
    """No argument and no environment variable: one error naming both, before anything is sent."""
    monkeypatch.delenv(TOKEN_VARIABLE, raising=False)
    with pytest.raises(gk.AuthenticationError, match="pass admin_token= or set GATEWAYKIT_CLASSROOM_ADMIN_TOKEN"):
        gk.classroom.connect("http://127.0.0.1:9")


def test_connect_where_nothing_listens_is_one_connection_error() -> None:
    """A URL where no server answers is a gk.APIConnectionError saying to check the URL."""
    with pytest.raises(gk.APIConnectionError, match=r"Could not reach a classroom at http://127\.0\.0\.1:9 "):
        gk.classroom.connect("http://127.0.0.1:9", admin_token="admin-x")


def test_connect_to_a_server_that_is_no_classroom_says_so(upstream: Any) -> None:
    """The gateway's own URL (no /_classroom) is a gk.NotFoundError saying it is not a classroom."""
    with pytest.raises(gk.NotFoundError, match="it is not a classroom"):
        gk.classroom.connect(upstream.base_url, admin_token="admin-x")


def test_a_connected_classroom_cannot_stop_the_server_and_says_where(rooms: Any) -> None:
    """stop() on a connected Classroom raises, saying where the class is stopped; the class keeps serving."""
    room = rooms(roster=["ana"])
    remote = gk.classroom.connect(room.base_url, admin_token=room.admin_token)
    with pytest.raises(RuntimeError, match="did not start it, so it cannot stop it"):
        remote.stop()
    assert remote.status()["students"] == 1 and room.running
    remote.close()
    assert room.status()["students"] == 1


# -- the CLI verbs ---------------------------------------------------------------------------------------------

def _verb(capsys: Any, *argv: str) -> tuple[int, str, str]:
    capsys.readouterr()  # what came before (a start line): not this verb's
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_the_cli_help_lists_every_verb(capsys: Any) -> None:
    """`--help` names each teacher's verb."""
    with pytest.raises(SystemExit):
        main(["--help"])
    shown = capsys.readouterr().out
    for verb in ("status", "report", "pause", "resume", "cap STUDENT USD", "revoke STUDENT", "reissue STUDENT",
                 "add STUDENT [--cap USD]"):
        assert f"  {verb}" in shown, verb


def test_cli_verbs_change_the_class_with_a_line_a_person_reads(rooms: Any, capsys: Any, tmp_path: Path,
                                                               monkeypatch: Any) -> None:
    """cap, add, reissue, revoke, pause, resume and status each print one readable line (token from the env)."""
    room = rooms(roster=["ana", "bo"])
    monkeypatch.setenv(TOKEN_VARIABLE, room.admin_token)
    url = ["--url", room.base_url]
    keys = tmp_path / "keys.csv"
    assert _verb(capsys, "cap", "ana", "3.5", *url)[1] == "ana's cap is now $3.50\n"
    assert _verb(capsys, "cap", "ana", "class", *url)[1] == "ana's cap is now the class cap, $2.00\n"
    code, out, _ = _verb(capsys, "add", "cy", "--cap", "0.25", "--keys-out", str(keys), *url)
    assert (code, out) == (0, f"added cy with a cap of $0.25; the key is appended to {keys}\n")
    cy_key = keys.read_text().splitlines()[1].split(",")[1]
    assert cy_key not in out and oct(keys.stat().st_mode & 0o777) == "0o600"
    assert httpx.post(f"{room.base_url}/v1/chat/completions", json=chat(), headers=auth(cy_key)).status_code == 200
    assert _verb(capsys, "reissue", "cy", "--keys-out", str(keys), *url)[1].startswith("new key for cy")
    assert keys.read_text().splitlines()[2].split(",")[1] != cy_key
    assert _verb(capsys, "revoke", "bo", *url)[1] == "bo's key is revoked (reissue gives a new one)\n"
    assert _verb(capsys, "pause", "--reason", "exam", *url)[1] == "paused: exam\n"
    assert _verb(capsys, "status", *url)[1].startswith("paused (exam) · 3 students · window total · $0.")
    assert _verb(capsys, "resume", *url)[1] == "resumed\n"
    by_day = _verb(capsys, "report", "--by", "day", *url)[1].splitlines()
    assert by_day[0] == "window: total" and by_day[1].split() == ["student", "day", "spent_usd", "requests",
                                                                   "refused", "cap_hits"]
    assert [line.split()[0] for line in by_day[2:]] == ["cy"]  # the one student who sent a request today
    rows = {r["student"]: r for r in room.report_rows()}
    assert rows["ana"]["cap_usd"] == 2.0 and rows["cy"]["cap_usd"] == 0.25 and rows["bo"]["revoked"]


def test_cli_verbs_print_json_for_scripts(rooms: Any, capsys: Any) -> None:
    """--json prints what the classroom answered (add: the new key, for a script to hand out)."""
    room = rooms(roster=["ana"])
    url = ["--url", room.base_url, "--admin-token", room.admin_token, "--json"]
    assert json.loads(_verb(capsys, "status", *url)[1])["students"] == 1
    added = json.loads(_verb(capsys, "add", "bo", *url)[1])
    assert added["student"] == "bo" and added["key"].startswith("sk-bf-")
    assert json.loads(_verb(capsys, "cap", "bo", "1.25", *url)[1]) == {"student": "bo", "cap_usd": 1.25}


def test_cli_add_without_a_keys_file_asks_for_one(rooms: Any, capsys: Any) -> None:
    """A new key is never printed: add without --keys-out (or --json) is a usage error, and nobody is added."""
    room = rooms(roster=["ana"])
    capsys.readouterr()
    with pytest.raises(SystemExit) as exited:
        main(["add", "bo", "--url", room.base_url, "--admin-token", room.admin_token])
    assert exited.value.code == 2 and "--keys-out FILE" in capsys.readouterr().err
    assert room.status()["students"] == 1


def test_cli_verbs_fail_with_one_line_on_a_wrong_token_or_student(rooms: Any, capsys: Any) -> None:
    """A wrong token or an unknown student: exit 1 and one 'error:' line naming the command-line option."""
    room = rooms(roster=["ana"])
    code, _, err = _verb(capsys, "status", "--url", room.base_url, "--admin-token", "admin-wrong")
    assert code == 1 and err.startswith("error: The classroom at") and "--admin-token" in err
    assert "admin_token=" not in err and len(err.strip().splitlines()) == 1
    code, _, err = _verb(capsys, "revoke", "dee", "--url", room.base_url, "--admin-token", room.admin_token)
    assert (code, err) == (1, "error: No student 'dee' in this class.\n")
