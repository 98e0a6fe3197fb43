"""Only a job that never finished is free: a video that completed is charged however the student (or the
teacher) ends it, and a job the gateway forgot while the classroom was down is charged as unknown."""

from __future__ import annotations

from typing import Any

import httpx
from classroom_fixtures import TEACHER_KEY, auth, open_room, start_upstream, upstream_spent, wait_for

VIDEO = {"model": "video-tiers", "prompt": "a kite", "resolution": "480p"}  # $0.20


def _completed_upstream(gateway: Any, job_id: str, path: str = "/v1/videos") -> None:
    """Wait until the gateway says the job completed, asking it directly (the classroom hears nothing)."""
    wait_for(lambda: httpx.get(f"{gateway.base_url}{path}/{job_id}", headers=auth(TEACHER_KEY)).json()["status"]
             == "completed", 60, f"{job_id} to complete")


def test_a_video_deleted_after_its_content_was_fetched_is_charged(rooms: Any, upstream: Any) -> None:
    """Three $0.20 videos on a $0.50 cap, each fetched then deleted: two are charged, the third is refused."""
    room = rooms(roster=["ana"], cap=0.5, job_check_seconds=60)
    answers = []
    with httpx.Client(base_url=room.base_url, headers=auth(room.keys.key[0]), timeout=60) as ana:
        for _ in range(3):
            created = ana.post("/v1/videos", json=VIDEO)
            answers.append(created.status_code)
            if created.status_code != 200:
                break
            job = created.json()["id"]
            wait_for(lambda: ana.get(f"/v1/videos/{job}/content").status_code == 200, 60, "the video's file")
            assert ana.delete(f"/v1/videos/{job}").json()["status"] == "deleted"
    row = room.report_rows()[0]
    assert answers == [200, 200, 402]
    assert (row["spent_usd"], row["held_usd"]) == (0.4, 0) and upstream_spent(upstream) == 0.4


def test_fetching_a_finished_jobs_content_settles_it(rooms: Any, upstream: Any) -> None:
    """The file exists only once the job completed: the content fetch charges a video and a song."""
    room = rooms(roster=["ana"], job_check_seconds=60)
    with httpx.Client(base_url=room.base_url, headers=auth(room.keys.key[0]), timeout=60) as ana:
        video = ana.post("/v1/videos", json=VIDEO).json()["id"]
        song = ana.post("/v1/audio/generations", json={"model": "music-song", "prompt": "calm piano",
                                                       "lyrics_prompt": "[Verse]\nla la"}).json()["id"]
        _completed_upstream(upstream, video)
        _completed_upstream(upstream, song, "/v1/audio/generations")
        assert ana.get(f"/v1/videos/{video}/content").status_code == 200
        assert ana.get(f"/v1/audio/generations/{song}/content").status_code == 200
    row = room.report_rows()[0]
    assert (row["spent_usd"], row["held_usd"]) == (0.26, 0) and upstream_spent(upstream) == 0.26


def test_deleting_a_video_that_completed_unseen_charges_it(rooms: Any, upstream: Any) -> None:
    room = rooms(roster=["ana"], job_check_seconds=60)
    with httpx.Client(base_url=room.base_url, headers=auth(room.keys.key[0]), timeout=60) as ana:
        job = ana.post("/v1/videos", json=VIDEO).json()["id"]
        _completed_upstream(upstream, job)
        assert ana.delete(f"/v1/videos/{job}").json()["status"] == "deleted"
    assert room.report_rows()[0]["spent_usd"] == 0.2 and upstream_spent(upstream) == 0.2


def test_pause_with_cancel_jobs_charges_a_video_that_had_completed(rooms: Any, upstream: Any) -> None:
    room = rooms(roster=["ana"], job_check_seconds=60)
    job = httpx.post(f"{room.base_url}/v1/videos", json=VIDEO, headers=auth(room.keys.key[0])).json()["id"]
    _completed_upstream(upstream, job)
    assert room.pause("lunch", cancel_jobs=True)["cancelled_jobs"] == 0
    row = room.report_rows()[0]
    assert (row["spent_usd"], row["held_usd"]) == (0.2, 0) and upstream_spent(upstream) == 0.2


def test_a_student_s_ledger_records_a_job_the_classroom_settled_as_reported(rooms: Any, upstream: Any) -> None:
    """The job view the classroom answers carries the cost it charged (usage.cost), as the teacher's report has it."""
    import gatewaykit as gk

    room = rooms(roster=["ana"], job_check_seconds=60)
    with gk.Client(api_key=room.keys.key[0], base_url=room.base_url, max_retries=0, display=False,
                   ledger=gk.Ledger(path=None)) as client:  # fmt: skip
        job = client.videos.create(**VIDEO).wait(timeout=60)
        polled = httpx.get(f"{room.base_url}/v1/videos/{job.id}", headers=auth(room.keys.key[0])).json()
        rows = client.ledger.to_pandas()
    assert polled["usage"]["cost"]["total_cost"] == 0.2
    assert list(zip(rows["status"], rows["cost_source"], rows["total_cost"])) == [("completed", "reported", 0.2)]
    assert room.report_rows()[0]["spent_usd"] == 0.2


def test_a_job_the_gateway_forgot_while_the_classroom_was_down_is_charged_and_reported(tmp_path: Any) -> None:
    """Its outcome is unknown (it may have completed and been billed): charged at its price, counted as unknown."""
    db = str(tmp_path / "class.db")
    with start_upstream(retention_seconds=0.2) as gateway:
        first = open_room(gateway, roster=["ana"], db=db, job_check_seconds=60)
        try:
            job = httpx.post(f"{first.base_url}/v1/videos", json=VIDEO, headers=auth(first.keys.key[0])).json()["id"]
        finally:
            first.stop()
        wait_for(lambda: httpx.get(f"{gateway.base_url}/v1/videos/{job}", headers=auth(TEACHER_KEY)).status_code
                 == 404, 60, "the gateway to forget the job")
        second = open_room(gateway, roster=["ana"], db=db, job_check_seconds=0.05)
        try:
            row = wait_for(lambda: (lambda r: r if r["held_usd"] == 0 else None)(second.report_rows()[0]), 30,
                           "the watcher to settle the job")
            by_model = second.report_rows(by="model")
        finally:
            second.stop()
        assert upstream_spent(gateway) == 0.2
    assert (row["spent_usd"], row["unknown"], row["unknown_usd"]) == (0.2, 1, 0.2)
    assert [(r["model"], r["unknown"]) for r in by_model] == [("video-tiers", 1)]
