"""Reports over time: ``report(by="day")`` (student, day, spent_usd, requests, refused, cap_hits), how often
each student's cap refused a request, the class's totals in ``status()``, and money shown as the CLI does."""

from __future__ import annotations

import datetime as dt
from typing import Any

import httpx
from classroom_fixtures import auth, chat

from gatewaykit.classroom.report_frame import DAY_COLUMNS


def _send(room: Any, student: str, **more: Any) -> int:
    key = room.keys.set_index("student").key[student]
    return httpx.post(f"{room.base_url}/v1/chat/completions", json=chat(**more), headers=auth(key)).status_code


def test_report_by_day_has_a_row_per_student_and_day_that_adds_up(rooms: Any) -> None:
    """by="day": a row per student with requests today, whose spend and counts match the per-student report."""
    room = rooms(roster=["ana", "bo", "cy"])
    assert [_send(room, s, max_tokens=20) for s in ("ana", "ana", "bo")] == [200, 200, 200]
    days = room.report(by="day")
    assert list(days.columns) == list(DAY_COLUMNS)
    today = dt.datetime.now().astimezone().date()
    assert list(days.student) == ["ana", "bo"] and set(days.day) == {today}
    per_student = room.report().set_index("student")
    for row in days.itertuples():
        assert row.spent_usd == per_student.spent_usd[row.student] > 0
        assert row.requests == per_student.requests[row.student]


def test_cap_hits_count_only_the_requests_a_cap_refused(rooms: Any) -> None:
    """Two requests over ana's cap are two cap hits (per day, per student, in status); a paused refusal is not."""
    room = rooms(roster=["ana", "bo"], cap=1.0)
    room.set_cap("ana", 0)
    assert [_send(room, "ana", max_tokens=500) for _ in range(2)] == [402, 402]
    room.pause("break")
    assert _send(room, "bo") == 503
    room.resume()
    report = room.report().set_index("student")
    assert report.cap_hits.to_dict() == {"ana": 2, "bo": 0}
    assert report.refused.to_dict() == {"ana": 2, "bo": 1}
    days = room.report(by="day").set_index("student")
    assert days.cap_hits.to_dict() == {"ana": 2, "bo": 0} and days.refused.to_dict() == {"ana": 2, "bo": 1}
    status = room.status()
    assert status["cap_hits"] == 2 and status["students_at_cap"] == 1


def test_status_carries_the_class_totals(rooms: Any) -> None:
    """status(): the class's spend and the caps added up, as the report's rows sum them."""
    room = rooms(roster=["ana", "bo"], cap=0.5)
    assert _send(room, "ana", max_tokens=20) == 200
    status = room.status()
    assert status["spent_usd"] == room.report().spent_usd.sum() > 0
    assert status["cap_usd"] == 1.0 and status["held_usd"] == 0


def test_a_report_stays_a_dataframe_and_displays_money_as_the_cli_does(rooms: Any) -> None:
    """The report is a DataFrame of floats; its display (HTML and text) writes money as $2.00, not 2.000000."""
    import pandas as pd

    room = rooms(roster=["ana"], cap=2)
    assert _send(room, "ana", max_tokens=20) == 200
    report = room.report()
    assert isinstance(report, pd.DataFrame) and report.cap_usd.dtype == float
    html, text = report._repr_html_(), repr(report)
    assert "$2.00" in html and "$2.00" in text and "2.000000" not in html
    spent = report.spent_usd[0]
    from gatewaykit.money import format_usd

    assert format_usd(spent) in html
    assert type(report[report.spent_usd > 0]) is pd.DataFrame  # derived frames are plain pandas


def test_a_reports_display_is_the_same_html_each_time(rooms: Any) -> None:
    """The styled HTML carries no random id: the same report displays identically (stored notebooks compare it)."""
    room = rooms(roster=["ana"])
    assert room.report()._repr_html_() == room.report()._repr_html_()
