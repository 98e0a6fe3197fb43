"""Scheduled AI-off windows: room.schedule_pause(start, end, reason=) / the CLI's schedule-pause; from start to end
every request is 503 class_paused with the reason; the boundaries take effect within a second; a manual resume
during a window overrides it (documented choice); windows survive a restart; naive times are the classroom's
local zone."""

from __future__ import annotations

import datetime as dt
import subprocess
import sys
import threading
import time
from typing import Any

import httpx
from classroom_fixtures import FakeClock, auth, chat, open_room

LOCAL = dt.datetime.now().astimezone().tzinfo
PLUS_TWO = dt.timezone(dt.timedelta(hours=2))


def _status(room: Any, key: str) -> int:
    return httpx.post(f"{room.base_url}/v1/chat/completions", json=chat(max_tokens=5), headers=auth(key)).status_code


def test_every_request_in_the_window_is_503_with_the_reason_and_open_again_after(rooms: Any) -> None:
    """Before the start 200; from start to end 503 class_paused, the reason, Retry-After to the end; after it 200."""
    clock = FakeClock(dt.datetime(2026, 12, 14, 8, 59, tzinfo=PLUS_TWO))
    room = rooms(roster=["ana"], clock=clock)
    key = room.keys.key[0]
    shown = room.schedule_pause("2026-12-14T09:00", "2026-12-14T11:00", reason="midterm exam")
    assert (shown["start"], shown["end"], shown["state"]) == ("2026-12-14T09:00:00+02:00", "2026-12-14T11:00:00+02:00",
                                                              "upcoming")
    assert _status(room, key) == 200
    clock.advance(minutes=1)
    refused = httpx.post(f"{room.base_url}/v1/chat/completions", json=chat(), headers=auth(key))
    assert refused.status_code == 503 and refused.headers["retry-after"] == "7200"
    error = refused.json()["error"]
    assert (error["type"], error["code"], error["param"]) == ("api_error", "class_paused", None)
    assert error["message"].startswith("Your class is paused (midterm exam) until 2026-12-14T11:00:00+02:00, as your "
                                       "teacher scheduled. Try again then.")
    assert room.status()["paused"] and room.status()["scheduled_pause"]["reason"] == "midterm exam"
    assert list(room.schedules().state) == ["active"]
    clock.advance(hours=2)
    assert _status(room, key) == 200
    assert list(room.schedules().state) == ["past"] and not room.status()["paused"]
    assert room.report_rows()[0]["refused"] == 1


def test_naive_times_are_the_classrooms_zone_and_aware_ones_keep_theirs(rooms: Any) -> None:
    """A naive 09:00 on a classroom whose clock is at +02:00 starts at 07:00 UTC; '09:00+00:00' starts two hours
    later."""
    clock = FakeClock(dt.datetime(2026, 12, 14, 7, 30, tzinfo=dt.timezone.utc).astimezone(PLUS_TWO))
    room = rooms(roster=["ana"], clock=clock)
    key = room.keys.key[0]
    room.schedule_pause(dt.datetime(2026, 12, 14, 9, 0), dt.datetime(2026, 12, 14, 10, 0), "naive: local 09:00")
    assert _status(room, key) == 503  # 07:30 UTC is 09:30 at +02:00
    clock.now = dt.datetime(2026, 12, 14, 8, 30, tzinfo=dt.timezone.utc)
    assert _status(room, key) == 200
    room.schedule_pause("2026-12-14T09:00+00:00", "2026-12-14T10:00+00:00", "aware")
    assert _status(room, key) == 200
    clock.now = dt.datetime(2026, 12, 14, 9, 0, tzinfo=dt.timezone.utc)
    assert _status(room, key) == 503


def test_each_boundary_takes_effect_within_a_second_on_the_real_clock(rooms: Any) -> None:
    """Students sending all along: the first 503 comes within 1 s of the start, the first 200 within 1 s of the end."""
    room = rooms(roster=["ana", "bo"], cap=50)
    start = dt.datetime.now().astimezone() + dt.timedelta(seconds=1)
    end = start + dt.timedelta(seconds=1.5)
    room.schedule_pause(start, end, reason="quiz")
    answers: list[tuple[float, float, int]] = []  # (sent, answered, status) in POSIX seconds
    stop = threading.Event()

    def student(key: str) -> None:
        with httpx.Client(base_url=room.base_url, headers=auth(key), timeout=60) as http:
            while not stop.is_set():
                sent = time.time()
                status = http.post("/v1/chat/completions", json=chat(max_tokens=5)).status_code
                answers.append((sent, time.time(), status))

    threads = [threading.Thread(target=student, args=(key,)) for key in room.keys.key]
    for thread in threads:
        thread.start()
    try:
        deadline = time.monotonic() + 60
        while not any(sent > end.timestamp() + 1.0 and s == 200 for sent, _, s in answers):
            assert time.monotonic() < deadline, "no request went through after the window"
            time.sleep(0.02)
    finally:
        stop.set()
        for thread in threads:
            thread.join()
    opens, closes = start.timestamp(), end.timestamp()
    first_refused = min(at for _, at, s in answers if s == 503)
    last_refused = max(at for _, at, s in answers if s == 503)
    print(f"\nscheduled pause: first 503 {first_refused - opens:+.3f} s after the start; last 503 "
          f"{last_refused - closes:+.3f} s after the end")
    # judged by when each request was sent, so a slow answer on a loaded machine does not move a boundary
    assert all(s == 200 for _, at, s in answers if at < opens), "refused before the window opened"
    assert {s for sent, at, s in answers if opens + 1.0 <= sent and at < closes} <= {503}, "served in the window"
    assert all(s == 200 for sent, _, s in answers if sent >= closes + 1.0), "refused over 1 s after the window"
    assert first_refused >= opens


def test_a_manual_resume_during_a_window_overrides_it_until_its_end_only(rooms: Any) -> None:
    """resume() says which window it overrode; requests go through in it; the next window closes the class again."""
    clock = FakeClock(dt.datetime(2026, 12, 14, 9, 30, tzinfo=LOCAL))
    room = rooms(roster=["ana"], clock=clock)
    key = room.keys.key[0]
    room.schedule_pause("2026-12-14T09:00", "2026-12-14T10:00", reason="exam")
    room.schedule_pause("2026-12-14T11:00", "2026-12-14T12:00", reason="second exam")
    assert _status(room, key) == 503
    answer = room.resume()
    assert answer["overrode"]["reason"] == "exam" and answer["overrode"]["state"] == "overridden"
    assert _status(room, key) == 200
    assert list(room.schedules().state) == ["overridden", "upcoming"]
    clock.advance(hours=1, minutes=40)
    assert _status(room, key) == 503
    assert room.resume()["overrode"]["reason"] == "second exam"
    assert room.resume()["overrode"] is None  # nothing left to override


def test_windows_survive_a_restart_on_the_same_database(upstream: Any, tmp_path: Any) -> None:
    """A window scheduled before a stop closes the class after the restart, as its override does not reopen it."""
    clock = FakeClock(dt.datetime(2026, 12, 14, 8, 0, tzinfo=LOCAL))
    db = str(tmp_path / "class.db")
    with open_room(upstream, roster=["ana"], clock=clock, db=db, announce=False) as room:
        key = room.keys.key[0]
        room.schedule_pause("2026-12-14T09:00", "2026-12-14T10:00", reason="exam")
    clock.advance(hours=1, minutes=10)
    with open_room(upstream, roster=["ana"], clock=clock, db=db, announce=False) as again:
        assert list(again.schedules().reason) == ["exam"]
        assert _status(again, key) == 503


def test_the_cli_schedules_a_pause_on_a_running_classroom(rooms: Any) -> None:
    """schedule-pause --start --end --reason prints the window; a bad time exits 1 with the server's message."""
    room = rooms(roster=["ana"])
    begin = dt.datetime.now().astimezone().replace(microsecond=0) - dt.timedelta(minutes=1)

    def cli(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "gatewaykit.classroom", "schedule-pause", *args, "--url",
                               room.base_url, "--admin-token", room.admin_token], capture_output=True, text=True,
                              timeout=120)

    done = cli("--start", begin.isoformat(), "--end", (begin + dt.timedelta(hours=1)).isoformat(), "--reason", "lab")
    assert done.returncode == 0 and done.stdout.startswith("scheduled pause ") and done.stdout.endswith(": lab\n")
    assert _status(room, room.keys.key[0]) == 503
    bad = cli("--start", "next tuesday", "--end", "2026-12-14T10:00")
    assert bad.returncode == 1 and "start must be a date and time such as" in bad.stderr
    assert list(room.audit().origin) == ["cli"]


def test_a_students_own_budget_says_paused_during_a_window(rooms: Any) -> None:
    """GET /_classroom/me with a student's key: paused, with the window's reason, while it lasts."""
    clock = FakeClock(dt.datetime(2026, 12, 14, 9, 30, tzinfo=LOCAL))
    room = rooms(roster=["ana"], clock=clock)
    key = room.keys.key[0]
    room.schedule_pause("2026-12-14T09:00", "2026-12-14T10:00", reason="exam")
    me = httpx.get(f"{room.base_url}/_classroom/me", headers=auth(key)).json()
    assert (me["paused"], me["reason"]) == (True, "exam")
    clock.advance(hours=1)
    assert httpx.get(f"{room.base_url}/_classroom/me", headers=auth(key)).json()["paused"] is False
