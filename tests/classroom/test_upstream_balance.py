"""The teacher's paid balance at the gateway used up (a gateway 402): the class's problem, never the student's."""

from __future__ import annotations

import logging
from typing import Any, Iterator

import httpx
import pytest
from classroom_fixtures import ADMIN, TEACHER_KEY, auth, chat, open_room


@pytest.fixture
def broke_room() -> Iterator[Any]:
    """A classroom in front of a gateway where the teacher's account has no balance left."""
    from gatewaykit import emulator

    accounts = {"accounts": [{"id": "teacher", "balance_usd": 0.0,
                              "keys": [{"key": TEACHER_KEY, "status": "active", "models": "*"}]}]}
    with emulator.start(accounts=accounts, admin_token=ADMIN, time_scale=0, seed=1) as gateway:
        room = open_room(gateway, roster=["ana", "bo"], cap=0.5)
        try:
            yield room
        finally:
            room.stop()


def _ask(room: Any, student: int = 0) -> httpx.Response:
    return httpx.post(f"{room.base_url}/v1/chat/completions", json=chat(), headers=auth(room.keys.key[student]))


def test_the_student_reads_that_the_class_balance_is_used_up_and_is_charged_nothing(broke_room: Any) -> None:
    """A gateway 402 reaches the student as the class's paid balance used up, to tell the teacher; no spend."""
    answer = _ask(broke_room)
    assert answer.status_code == 402
    error = answer.json()["error"]
    assert "class's paid balance" in error["message"] and "Tell your teacher" in error["message"]
    assert "Add credits" not in error["message"] and error["code"] == "class_balance_exhausted"
    ana = broke_room.report_rows()[0]
    assert (ana["spent_usd"], ana["held_usd"], ana["remaining_usd"]) == (0.0, 0.0, 0.5)


def test_the_report_counts_requests_the_gateway_refused_for_want_of_balance_apart(broke_room: Any) -> None:
    """They are in balance_refused, per student and per model, not in requests."""
    for student in (0, 0, 1):
        assert _ask(broke_room, student).status_code == 402
    rows = {r["student"]: r for r in broke_room.report_rows()}
    assert [(rows[s]["requests"], rows[s]["balance_refused"]) for s in ("ana", "bo")] == [(0, 2), (0, 1)]
    by_model = broke_room.report_rows(by="model")
    assert [(r["student"], r["model"], r["balance_refused"]) for r in by_model] == [
        ("ana", "chat-mini", 2), ("bo", "chat-mini", 1)]


def test_status_names_the_used_up_balance_and_since_when(broke_room: Any) -> None:
    """``status()["upstream_balance"]`` says exhausted, with the time of the first refusal."""
    assert broke_room.status()["upstream_balance"] == {"exhausted": False, "since": None}
    import time

    before = time.time()
    _ask(broke_room)
    balance = broke_room.status()["upstream_balance"]
    assert balance["exhausted"] is True and before <= balance["since"] <= time.time()


def test_the_dashboard_shows_the_used_up_balance_in_red(broke_room: Any) -> None:
    """A red line above the students, and each student's count of unpaid requests."""
    _ask(broke_room)
    html = broke_room.dashboard()._repr_html_()
    assert 'color:#d9534f;font-weight:bold;margin-bottom:.4em">Your paid balance at the gateway is used up' in html
    assert "1 not paid (no balance)" in html


def test_the_server_logs_one_line_however_many_requests_are_refused(broke_room: Any, caplog: Any) -> None:
    """One warning for the balance running out, not one per request."""
    with caplog.at_level(logging.WARNING, logger="gatewaykit.classroom"):
        for _ in range(3):
            assert _ask(broke_room).status_code == 402
    lines = [r.getMessage() for r in caplog.records if "balance" in r.getMessage()]
    assert len(lines) == 1 and "paid balance is used up" in lines[0]
