"""Raises that end: set_cap(student, usd, until=) gives a student more until a time, then the cap from before is
back by itself (a request held under the raise settles where it was held); kept across a restart."""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

import httpx
from classroom_fixtures import FakeClock, auth, chat, open_room, start_upstream, wait_for

LOCAL = dt.datetime.now().astimezone().tzinfo


def test_a_raise_ends_at_until_and_the_previous_cap_is_back(rooms: Any) -> None:
    """A $1 raise until 12:00 over a $0.0002 cap: chats pass before, a 402 after; the report's cap is back; the
    audit log says the classroom ended it."""
    clock = FakeClock(dt.datetime(2026, 12, 7, 11, 0, tzinfo=LOCAL))
    room = rooms(roster=["ana"], cap=0.0002, clock=clock)
    key = room.keys.key[0]
    answer = room.set_cap("ana", 1.0, until="2026-12-07T12:00")
    assert answer["cap_usd"] == 1.0 and answer["until"].startswith("2026-12-07T12:00:00")
    for _ in range(12):  # more than the cap from before
        assert httpx.post(f"{room.base_url}/v1/chat/completions", json=chat(max_tokens=40),
                          headers=auth(key)).status_code == 200
    clock.advance(hours=1)
    wait_for(lambda: room.report_rows()[0]["cap_usd"] == 0.0002, 10, "the background tick to end the raise")
    refused = httpx.post(f"{room.base_url}/v1/chat/completions", json=chat(max_tokens=40), headers=auth(key))
    assert refused.status_code == 402 and "class budget of $0.0002 is used up" in refused.json()["error"]["message"]
    assert room.report_rows()[0]["spent_usd"] > 0.0002
    assert list(room.audit().action) == ["set cap", "cap raise ended"]
    assert list(room.audit().origin) == ["notebook", "classroom"]


def test_a_request_held_under_the_raise_settles_where_it_was_held() -> None:
    """A stream held under the raise goes on past its end and is charged its cost; nothing stays held."""
    clock = FakeClock(dt.datetime(2026, 12, 7, 11, 59, 50, tzinfo=LOCAL))
    with start_upstream(time_scale=1.0) as gateway:  # a streamed answer takes about a second
        room = open_room(gateway, roster=["ana"], cap=0.00001, clock=clock, announce=False)
        try:
            room.set_cap("ana", 1.0, until="2026-12-07T12:00")
            with httpx.Client(base_url=room.base_url, headers=auth(room.keys.key[0]), timeout=60) as http:
                with http.stream("POST", "/v1/chat/completions", json=chat(stream=True)) as held:
                    lines = held.iter_lines()
                    assert next(lines).startswith("data: ")
                    assert room.report_rows()[0]["held_usd"] > 0
                    clock.advance(seconds=11)
                    wait_for(lambda: room.report_rows()[0]["cap_usd"] == 0.00001, 10, "the raise to end")
                    rest = list(lines)
            usage = next(json.loads(line[6:]) for line in rest if '"usage"' in line)["usage"]
            row = room.report_rows()[0]
            assert row["held_usd"] == 0 and row["requests"] == 1 and row["remaining_usd"] == 0
            assert row["spent_usd"] == usage["cost"]["total_cost"] > 0.00001
        finally:
            room.stop()


def test_a_raise_is_kept_across_a_restart_and_ends_there(upstream: Any, tmp_path: Any) -> None:
    """Restarted before until: the raise holds; restarted after: the cap from before is back."""
    clock = FakeClock(dt.datetime(2026, 12, 7, 11, 0, tzinfo=LOCAL))
    db = str(tmp_path / "class.db")
    with open_room(upstream, roster=["ana"], cap=0.5, clock=clock, db=db, announce=False) as room:
        room.set_cap("ana", 3.0, until="2026-12-07T12:00")
    with open_room(upstream, roster=["ana"], cap=0.5, clock=clock, db=db, announce=False) as room:
        assert room.report_rows()[0]["cap_usd"] == 3.0
    clock.advance(hours=2)
    with open_room(upstream, roster=["ana"], cap=0.5, clock=clock, db=db, announce=False) as room:
        assert room.report_rows()[0]["cap_usd"] == 0.5


def test_a_cap_set_without_until_replaces_a_raise(rooms: Any) -> None:
    """set_cap(student, usd) during a raise is the student's cap from then on: the raise's end changes nothing."""
    clock = FakeClock(dt.datetime(2026, 12, 7, 11, 0, tzinfo=LOCAL))
    room = rooms(roster=["ana"], cap=0.5, clock=clock)
    room.set_cap("ana", 3.0, until="2026-12-07T12:00")
    room.set_cap("ana", 2.0)
    clock.advance(hours=2)
    httpx.post(f"{room.base_url}/v1/chat/completions", json=chat(max_tokens=5), headers=auth(room.keys.key[0]))
    assert room.report_rows()[0]["cap_usd"] == 2.0
