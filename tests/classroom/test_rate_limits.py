"""Requests per minute: rpm= per student and class_rpm= for the whole class; past either, 429
rate_limit_exceeded with Retry-After and a message for a student, counted in refused; polling jobs and reading the
catalog are not counted; gatewaykit's client waits a classroom's 429 out as any other."""

from __future__ import annotations

import datetime as dt
import time
from typing import Any

import httpx
from classroom_fixtures import FakeClock, auth, chat, wait_for

LOCAL = dt.datetime.now().astimezone().tzinfo


def _post(room: Any, key: str, body: Any = None) -> httpx.Response:
    return httpx.post(f"{room.base_url}/v1/chat/completions", json=body or chat(max_tokens=10), headers=auth(key))


def test_a_student_past_rpm_gets_429_with_retry_after_and_a_message_counted_as_refused(rooms: Any) -> None:
    """The third chat in a minute with rpm=2 is refused; another student is not; a minute later it goes."""
    clock = FakeClock(dt.datetime(2026, 12, 7, 10, 0, tzinfo=LOCAL))
    room = rooms(roster=["ana", "bo"], rpm=2, clock=clock)
    ana, bo = room.keys.key
    assert [_post(room, ana).status_code for _ in range(2)] == [200, 200]
    clock.advance(seconds=45)
    refused = _post(room, ana)
    assert refused.status_code == 429 and refused.headers["retry-after"] == "15"
    error = refused.json()["error"]
    assert (error["type"], error["code"], error["param"]) == ("rate_limit_error", "rate_limit_exceeded", None)
    assert error["message"].startswith("You have sent 2 requests in the last minute, the most your class allows "
                                       "each student. Wait 15 s and try again (nothing was charged).")
    assert _post(room, bo).status_code == 200
    rows = {r["student"]: r for r in room.report_rows()}
    assert (rows["ana"]["requests"], rows["ana"]["refused"]) == (2, 1)
    clock.advance(seconds=15)
    assert _post(room, ana).status_code == 200


def test_the_class_ceiling_refuses_every_student_once_the_class_sent_class_rpm(rooms: Any) -> None:
    """class_rpm=3 across three students: the fourth request of the minute, whoever sends it, is a 429 saying so."""
    clock = FakeClock(dt.datetime(2026, 12, 7, 10, 0, tzinfo=LOCAL))
    room = rooms(roster=["ana", "bo", "cy"], rpm=5, class_rpm=3, clock=clock)
    keys = list(room.keys.key)
    assert [_post(room, key).status_code for key in keys] == [200, 200, 200]
    refused = _post(room, keys[0])
    assert refused.status_code == 429 and refused.headers["retry-after"] == "60"
    assert "Your class as a whole has sent 3 requests in the last minute" in refused.json()["error"]["message"]
    clock.advance(seconds=60)
    assert _post(room, keys[1]).status_code == 200


def test_polling_a_job_and_reading_the_catalog_are_not_counted(rooms: Any) -> None:
    """With rpm=1, a video job, ten polls, its file and the model list all pass; the next paid request is a 429."""
    room = rooms(roster=["ana"], rpm=1)
    key = room.keys.key[0]
    with httpx.Client(base_url=room.base_url, headers=auth(key), timeout=60) as http:
        job = http.post("/v1/videos", json={"model": "video-tiers", "prompt": "a kite", "resolution": "480p"}).json()
        for _ in range(10):
            assert http.get(f"/v1/videos/{job['id']}").status_code == 200
            assert http.get("/v1/models").status_code == 200
        wait_for(lambda: http.get(f"/v1/videos/{job['id']}").json()["status"] == "completed", 60, "the video")
        assert http.get(f"/v1/videos/{job['id']}/content").status_code == 200
        assert http.post("/v1/chat/completions", json=chat()).status_code == 429
    assert room.report_rows()[0]["refused"] == 1


def test_gatewaykit_client_waits_out_a_classroom_429_as_any_other(rooms: Any) -> None:
    """The classroom's Retry-After (1 s here) is what gk.Client waits before its retry, which then goes through."""
    import gatewaykit as gk

    clock = FakeClock.real()
    room = rooms(roster=["ana"], rpm=1, clock=clock)
    client = gk.Client(api_key=room.keys.key[0], base_url=room.base_url, ledger=gk.Ledger())
    try:
        client.chat.completions.create(model="chat-mini", messages=[{"role": "user", "content": "one"}], max_tokens=5)
        clock.advance(seconds=59)  # the first request's slot frees in one second
        began = time.monotonic()
        answer = client.chat.completions.create(model="chat-mini", messages=[{"role": "user", "content": "two"}],
                                                max_tokens=5)
        waited = time.monotonic() - began
    finally:
        client.close()
    assert answer.choices[0].message.content and waited >= 0.9
    row = room.report_rows()[0]
    assert (row["requests"], row["refused"]) == (2, 1)


def test_a_bad_limit_is_refused_at_start_naming_the_setting(rooms: Any) -> None:
    """rpm=0 or class_rpm=1.5 is a ValueError naming the setting, before anything is served."""
    import pytest

    with pytest.raises(ValueError, match="rpm must be a whole number of requests per minute >= 1"):
        rooms(roster=["ana"], rpm=0)
    with pytest.raises(ValueError, match="class_rpm must be a whole number"):
        rooms(roster=["ana"], class_rpm=1.5)
