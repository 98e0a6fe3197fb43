"""A class on PostgreSQL keeps its figures whatever happens to one of its processes or to the database: a video
whose process was killed is settled by another, a settle the database missed is retried when it is back (real
classroom processes and a real offline gateway process on a throwaway cluster)."""

from __future__ import annotations

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
