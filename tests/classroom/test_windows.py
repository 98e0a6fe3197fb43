"""Daily and weekly caps reset at local midnight / Monday 00:00, on a fake clock; a request held across the
reset is charged to the window it was held in, and the new window starts with the whole cap."""

from __future__ import annotations

import datetime as dt
from typing import Any

import httpx
from classroom_fixtures import auth, chat, db_rows, open_room, start_upstream

LOCAL = dt.datetime.now().astimezone().tzinfo


class FakeClock:
    def __init__(self, when: dt.datetime) -> None:
        self.now = when

    def __call__(self) -> dt.datetime:
        return self.now


def test_a_daily_cap_resets_at_midnight_even_with_a_request_held_across_it(tmp_path: Any) -> None:
    clock = FakeClock(dt.datetime(2026, 11, 26, 23, 59, 30, tzinfo=LOCAL))
    db = str(tmp_path / "class.db")
    with start_upstream(time_scale=1.0) as gateway:  # a streamed answer takes about a second
        room = open_room(gateway, roster=["ana"], cap=0.001, window="daily", clock=clock, db=db)
        try:
            with httpx.Client(base_url=room.base_url, headers=auth(room.keys.key[0]), timeout=60) as http:
                with http.stream("POST", "/v1/chat/completions", json=chat(stream=True)) as held:
                    lines = held.iter_lines()
                    assert next(lines).startswith("data: ")  # the stream is under way: its worst case is held
                    refused = http.post("/v1/chat/completions", json=chat())
                    assert refused.status_code == 402
                    assert "daily class budget of $0.001" in refused.json()["error"]["message"]
                    assert "it resets at midnight" in refused.json()["error"]["message"]
                    clock.now += dt.timedelta(seconds=31)  # 00:00:01 the next day
                    after = http.post("/v1/chat/completions", json=chat())
                    assert after.status_code == 200, after.text
                    rest = list(lines)
                assert [line for line in rest if line][-1] == "data: [DONE]"
                held_cost = [line for line in rest if '"usage"' in line]
            report = room.report_rows()[0]
            assert report["spent_usd"] == after.json()["usage"]["cost"]["total_cost"]
            assert report["held_usd"] == 0 and report["requests"] == 1
        finally:
            room.stop()
    windows = dict(db_rows(db, "SELECT window, sum(spent_nanos) FROM totals GROUP BY window"))
    assert set(windows) == {"2026-11-26", "2026-11-27"} and windows["2026-11-26"] > 0 and held_cost


def test_a_weekly_cap_resets_on_monday_and_not_on_tuesday(upstream: Any, rooms: Any) -> None:
    clock = FakeClock(dt.datetime(2026, 11, 29, 23, 0, tzinfo=LOCAL))  # a Sunday
    room = rooms(roster=["ana"], cap=0.03, window="weekly", clock=clock)
    key = room.keys.key[0]

    def image() -> int:
        return httpx.post(f"{room.base_url}/v1/images/generations", headers=auth(key), timeout=60,
                          json={"model": "image-aspect", "prompt": "a fox"}).status_code

    assert image() == 200 and image() == 402
    clock.now = dt.datetime(2026, 11, 30, 0, 0, tzinfo=LOCAL)  # Monday 00:00
    assert image() == 200 and image() == 402
    clock.now = dt.datetime(2026, 12, 1, 9, 0, tzinfo=LOCAL)  # Tuesday: the same week
    assert image() == 402
    assert room.status()["window"] == "week of 2026-11-30"
    row = room.report_rows()[0]
    assert row["spent_usd"] == 0.03 and row["refused"] == 2


def test_the_total_window_never_resets(upstream: Any, rooms: Any) -> None:
    clock = FakeClock(dt.datetime(2026, 11, 29, 23, 0, tzinfo=LOCAL))
    room = rooms(roster=["ana"], cap=0.03, clock=clock)
    key = room.keys.key[0]
    body = {"model": "image-aspect", "prompt": "a fox"}
    assert httpx.post(f"{room.base_url}/v1/images/generations", headers=auth(key), json=body).status_code == 200
    clock.now += dt.timedelta(days=8)
    assert httpx.post(f"{room.base_url}/v1/images/generations", headers=auth(key), json=body).status_code == 402


def test_a_monthly_cap_resets_on_the_first_of_the_month_at_local_midnight(upstream: Any, rooms: Any) -> None:
    """window="monthly": a cap spent on 30 November is whole again at 00:00 on 1 December, not on 31 December."""
    clock = FakeClock(dt.datetime(2026, 11, 30, 23, 59, 59, tzinfo=LOCAL))
    room = rooms(roster=["ana"], cap=0.03, window="monthly", clock=clock)
    key = room.keys.key[0]

    def image() -> httpx.Response:
        return httpx.post(f"{room.base_url}/v1/images/generations", headers=auth(key), timeout=60,
                          json={"model": "image-aspect", "prompt": "a fox"})

    assert image().status_code == 200
    refused = image()
    assert refused.status_code == 402
    assert "monthly class budget of $0.03" in refused.json()["error"]["message"]
    assert "it resets on the first of the month" in refused.json()["error"]["message"]
    clock.now = dt.datetime(2026, 12, 1, 0, 0, tzinfo=LOCAL)
    assert image().status_code == 200 and image().status_code == 402
    clock.now = dt.datetime(2026, 12, 31, 23, 59, tzinfo=LOCAL)
    assert image().status_code == 402
    assert room.status()["window"] == "month of 2026-12"
    clock.now = dt.datetime(2027, 1, 1, 0, 0, 1, tzinfo=LOCAL)
    assert image().status_code == 200
