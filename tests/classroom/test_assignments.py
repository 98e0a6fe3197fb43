"""Assignments: while one is open, each request also counts against the student's cap on it (402 naming the
assignment) and may be limited to its models; report(by="assignment"); overlapping assignments are refused."""

from __future__ import annotations

import datetime as dt
from typing import Any

import httpx
import pytest
from classroom_fixtures import FakeClock, auth, chat, open_room

LOCAL = dt.datetime.now().astimezone().tzinfo


def _post(room: Any, key: str, body: Any) -> httpx.Response:
    return httpx.post(f"{room.base_url}/v1/chat/completions", json=body, headers=auth(key))


def test_a_request_in_an_open_assignment_counts_against_its_cap_and_is_refused_naming_it(rooms: Any) -> None:
    """hw1's cap of $0.0005 stops ana's chats while it is open; her class cap still has room; after hw1 ends she
    chats again; the report by assignment has what each student spent on it."""
    clock = FakeClock(dt.datetime(2026, 12, 1, 9, 0, tzinfo=LOCAL))
    room = rooms(roster=["ana", "bo"], cap=1.0, clock=clock)
    ana, bo = room.keys.key
    room.add_assignment("hw1", cap=0.0005, start="2026-12-01T10:00", end="2026-12-08T10:00")
    before = _post(room, ana, chat(max_tokens=20))
    assert before.status_code == 200  # hw1 not open yet: counts against the class cap only
    clock.advance(hours=1)
    spent = 0.0
    while True:
        answer = _post(room, ana, chat(max_tokens=20))
        if answer.status_code != 200:
            break
        spent += answer.json()["usage"]["cost"]["total_cost"]
    assert answer.status_code == 402 and answer.json()["error"]["code"] == "assignment_budget_exceeded"
    assert "your budget for the assignment 'hw1' ($0.0005" in answer.json()["error"]["message"]
    assert _post(room, bo, chat(max_tokens=20)).status_code == 200
    rows = {r["student"]: r for r in room.report_rows(by="assignment")}
    assert rows["ana"]["assignment"] == "hw1" and rows["ana"]["spent_usd"] == pytest.approx(spent)
    assert rows["ana"]["cap_usd"] == 0.0005 and rows["ana"]["refused"] == 1 and rows["ana"]["held_usd"] == 0
    assert rows["bo"]["requests"] == 1
    frame = room.report(by="assignment")
    assert list(frame.columns[:3]) == ["assignment", "student", "spent_usd"] and len(frame) == 2
    clock.advance(days=7)
    assert _post(room, ana, chat(max_tokens=20)).status_code == 200  # hw1 is over
    assert room.report_rows()[0]["spent_usd"] > spent  # the class cap counted every request


def test_an_assignment_limited_to_models_refuses_others_naming_it(rooms: Any) -> None:
    """models=['chat-mini']: chat-reasoner is a 403 naming the assignment while it is open."""
    room = rooms(roster=["ana"])
    key = room.keys.key[0]
    room.add_assignment("essay", cap=1.0, models=["chat-mini"])
    refused = _post(room, key, chat(model="chat-reasoner"))
    assert refused.status_code == 403
    assert refused.json()["error"]["message"].startswith("The assignment 'essay' may not use the model "
                                                         "'chat-reasoner'. Allowed models for it: chat-mini.")
    assert _post(room, key, chat(model="chat-mini", max_tokens=10)).status_code == 200


def test_overlapping_assignments_are_refused_at_creation(rooms: Any) -> None:
    """An assignment whose time meets another's is a ValueError naming both; one right after it is fine."""
    room = rooms(roster=["ana"])
    room.add_assignment("hw1", cap=1.0, start="2026-12-01T10:00", end="2026-12-08T10:00")
    with pytest.raises(ValueError, match="Assignment 'hw2' would overlap 'hw1' .*give times that do not overlap"):
        room.add_assignment("hw2", cap=1.0, start="2026-12-07T10:00", end="2026-12-14T10:00")
    with pytest.raises(ValueError, match="would overlap 'hw1'"):
        room.add_assignment("forever", cap=1.0, start="2026-11-01T00:00")  # no end
    room.add_assignment("hw2", cap=2.0, start="2026-12-08T10:00", end="2026-12-14T10:00")
    assert list(room.assignments().name) == ["hw1", "hw2"]
    with pytest.raises(ValueError, match="models nope are not models this class may use"):
        room.add_assignment("hw3", cap=1.0, start="2027-01-01T00:00", models=["nope"])


def test_an_assignment_and_its_spend_survive_a_restart(upstream: Any, tmp_path: Any) -> None:
    """After a restart the assignment is open again with what each student spent on it."""
    db = str(tmp_path / "class.db")
    with open_room(upstream, roster=["ana"], db=db, announce=False) as room:
        key = room.keys.key[0]
        room.add_assignment("hw1", cap=0.5)
        assert _post(room, key, chat(max_tokens=20)).status_code == 200
        spent = room.report_rows(by="assignment")[0]["spent_usd"]
    with open_room(upstream, roster=["ana"], db=db, announce=False) as again:
        row = again.report_rows(by="assignment")[0]
        assert row["spent_usd"] == spent > 0 and row["remaining_usd"] == pytest.approx(0.5 - spent)
