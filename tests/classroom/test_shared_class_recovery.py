"""A class on PostgreSQL keeps its figures whatever happens to one of its processes or to the database: a video
whose process was killed is settled by another, a settle the database missed is retried when it is back (real
classroom processes and a real offline gateway process on a throwaway cluster)."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import httpx
from classroom_fixtures import TEACHER_KEY, auth, wait_for
from shared_class import ClassroomProcess, GatewayProcess


def _rows(url: str, sql: str) -> list[tuple]:
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        return conn.execute(sql).fetchall()


def test_a_video_whose_instance_was_killed_is_settled_by_another_at_the_gateways_charge(
        postgres_cluster: Any, tmp_path: Path) -> None:
    """The process that owns a running video is SIGKILLed: another settles the job at what the gateway charged."""
    url = postgres_cluster.url(postgres_cluster.new_database())
    roster = tmp_path / "roster.csv"
    roster.write_text("student\nana\n")
    gateway = GatewayProcess("--time-scale", "0.5")  # the video runs a few seconds: long enough to kill its owner
    owner = other = None
    try:
        owner = ClassroomProcess(gateway, url, tmp_path, "owner", "--roster", str(roster), "--cap", "5").ready()
        other = ClassroomProcess(gateway, url, tmp_path, "other", "--cap", "5").ready()
        key = owner.keys()["ana"]
        answer = httpx.post(f"{owner.base_url}/v1/videos", headers=auth(key), timeout=30,
                            json={"model": "video-tiers", "prompt": "waves", "resolution": "480p"})
        assert answer.status_code == 200, answer.text
        job = answer.json()["id"]
        wait_for(lambda: _rows(url, "SELECT count(*) FROM jobs WHERE next_check_at > 0") == [(1,)], 10,
                 "the job claimed by a process")
        owner.kill()
        view = httpx.get(f"{gateway.base_url}/v1/videos/{job}", headers=auth(TEACHER_KEY)).json()
        assert view["status"] in ("queued", "in_progress"), view  # still running when its owner died
        killed = time.monotonic()
        wait_for(lambda: _rows(url, "SELECT status FROM requests") == [("ok",)], 60, "the job settled by the other")
        charged = gateway.spent()
        rows = {r["student"]: r for r in other.admin("GET", "report").json()["rows"]}
        assert charged > 0
        assert abs(rows["ana"]["spent_usd"] - charged) < 1e-6, (rows["ana"], charged)
        assert rows["ana"]["held_usd"] == 0
        assert abs(sum(r["spent_usd"] for r in rows.values()) - charged) < 1e-6
        print(f"\nvideo settled by the other process {time.monotonic() - killed:.2f} s after its owner was killed; "
              f"charged ${charged:.6f}, class total ${sum(r['spent_usd'] for r in rows.values()):.6f}")
    finally:
        for process in (owner, other):
            if process is not None:
                process.stop()
        gateway.close()


def test_an_answer_the_database_missed_is_recorded_at_the_gateways_charge_once_it_is_back(
        postgres_cluster: Any, tmp_path: Path) -> None:
    """The database stops while an answer is being recorded: once it is back, the row settles at the gateway's
    charge (not held until the 6-minute bound, nor charged at its hold)."""
    url = postgres_cluster.url(postgres_cluster.new_database())
    roster = tmp_path / "roster.csv"
    roster.write_text("student\nana\n")
    gateway = GatewayProcess("--fault-rate", "1", "--faults", "slow", "--slow-seconds", "2")
    room = None
    try:
        room = ClassroomProcess(gateway, url, tmp_path, "only", "--roster", str(roster), "--cap", "5").ready()
        answers: list[httpx.Response] = []
        asking = threading.Thread(target=lambda: answers.append(httpx.post(
            f"{room.base_url}/v1/chat/completions", headers=auth(room.keys()["ana"]), timeout=60,
            json={"model": "chat-mini", "messages": [{"role": "user", "content": "hi"}], "max_tokens": 400})))
        asking.start()
        try:
            wait_for(lambda: _rows(url, "SELECT count(*) FROM requests WHERE status = 'held'") == [(1,)], 30,
                     "the request held")
            postgres_cluster.pause_server()  # the gateway answers while the database is away
            asking.join(60)
        finally:
            postgres_cluster.resume_server()
        [answer] = answers
        assert answer.status_code == 503 and "could not record it yet" in answer.text, answer.text
        back = time.monotonic()
        [(status, cost, hold)] = wait_for(lambda: [r for r in _rows(
            url, "SELECT status, cost_nanos, hold_nanos FROM requests") if r[0] != "held"], 30, "the row settled")
        charged = gateway.spent()
        assert status == "ok" and 0 < cost < hold, (status, cost, hold)
        assert abs(cost / 1e9 - charged) < 1e-6, (cost, charged)
        [row] = room.admin("GET", "report").json()["rows"]
        assert abs(row["spent_usd"] - charged) < 1e-6 and row["held_usd"] == 0, row
        print(f"\nthe missed answer was recorded {time.monotonic() - back:.2f} s after the database came back, at "
              f"${cost / 1e9:.6f} (the gateway's charge; its hold was ${hold / 1e9:.6f})")
    finally:
        if room is not None:
            room.stop()
        gateway.close()
