"""Jobs through the classroom: held at creation, settled at completion (by the student's polling or the
background watcher), owned by one student; and the teacher's key never reaches anything a student or the
teacher's disk can see."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import httpx
from classroom_fixtures import TEACHER_KEY, auth, chat, upstream_spent, wait_for


def _finished(http: httpx.Client, path: str) -> dict:
    return wait_for(lambda: (lambda job: job if job["status"] not in ("queued", "in_progress") else None)(
        http.get(path).json()), 120, f"{path} to end")


def test_a_student_sees_polls_downloads_and_cancels_only_their_own_jobs(rooms: Any, upstream: Any) -> None:
    room = rooms(roster=["ana", "bo"])
    keys = dict(zip(room.keys.student, room.keys.key))
    with httpx.Client(base_url=room.base_url, headers=auth(keys["ana"]), timeout=60) as ana, \
            httpx.Client(base_url=room.base_url, headers=auth(keys["bo"]), timeout=60) as bo:
        video = ana.post("/v1/videos", json={"model": "video-tiers", "prompt": "a kite", "resolution": "480p"}).json()
        song = ana.post("/v1/audio/generations", json={"model": "music-song", "prompt": "calm piano",
                                                        "lyrics_prompt": "[Verse]\nla la la"}).json()
        for path, code in ((f"/v1/videos/{video['id']}", "video_not_found"),
                           (f"/v1/videos/{video['id']}/content", "video_not_found"),
                           (f"/v1/audio/generations/{song['id']}", "audio_not_found"),
                           (f"/v1/audio/generations/{song['id']}/content", "audio_not_found")):
            answer = bo.get(path)
            assert answer.status_code == 404 and answer.json()["error"]["code"] == code, path
        assert bo.delete(f"/v1/videos/{video['id']}").status_code == 404
        assert bo.get("/v1/videos/video_made_up").status_code == 404
        done = _finished(ana, f"/v1/videos/{video['id']}")
        assert done["status"] == "completed"
        content = ana.get(f"/v1/videos/{video['id']}/content")
        assert content.status_code == 200 and content.content[4:8] == b"ftyp"  # fetched by the classroom
        assert _finished(ana, f"/v1/audio/generations/{song['id']}")["status"] == "completed"
    rows = {r["model"]: r for r in room.report_rows(by="model")}
    assert rows["video-tiers"]["spent_usd"] == 0.2 and rows["music-song"]["spent_usd"] == 0.06  # 4 s x $0.05
    assert upstream_spent(upstream) == 0.26
    assert room.report_rows()[0]["held_usd"] == 0


def test_a_job_nobody_polls_settles_in_the_background_and_a_cancelled_one_is_released(
        rooms: Any, upstream: Any) -> None:
    room = rooms(roster=["ana"], job_check_seconds=0.05)
    with httpx.Client(base_url=room.base_url, headers=auth(room.keys.key[0]), timeout=60) as ana:
        ana.post("/v1/audio/generations", json={"model": "music-song", "prompt": "jazz", "lyrics_prompt": "[Verse]\nhm hm"})
        assert room.report_rows()[0]["held_usd"] == 0.06
        wait_for(lambda: room.report_rows()[0]["spent_usd"] == 0.06, 120, "the watcher to settle the song")
        assert room.report_rows()[0]["held_usd"] == 0
    assert upstream_spent(upstream) == 0.06


def test_cancelling_a_video_releases_its_hold(rooms: Any) -> None:
    from classroom_fixtures import open_room, start_upstream

    with start_upstream(time_scale=1.0) as slow:
        room = open_room(slow, roster=["ana"])
        try:
            with httpx.Client(base_url=room.base_url, headers=auth(room.keys.key[0]), timeout=60) as ana:
                job = ana.post("/v1/videos", json={"model": "video-tiers", "prompt": "rain", "resolution": "480p"}).json()
                assert room.report_rows()[0]["held_usd"] == 0.2
                cancelled = ana.delete(f"/v1/videos/{job['id']}").json()
                assert cancelled["status"] == "cancelled"
                row = room.report_rows()[0]
                assert row["held_usd"] == 0 and row["spent_usd"] == 0
        finally:
            room.stop()
        assert upstream_spent(slow) == 0


def test_the_teachers_key_is_never_in_an_answer_a_header_a_log_line_or_the_database(
        rooms: Any, tmp_path: Path, caplog: Any) -> None:
    caplog.set_level(logging.DEBUG)
    db = tmp_path / "class.db"
    room = rooms(roster=["ana"], db=str(db), cap=0.05)
    seen: list[str] = [repr(room), room.keys.to_string()]
    with httpx.Client(base_url=room.base_url, headers=auth(room.keys.key[0]), timeout=60) as ana:
        answers = [
            ana.get("/v1/models"),
            ana.post("/v1/chat/completions", json=chat()),
            ana.post("/v1/chat/completions", json=chat(stream=True)),
            ana.post("/v1/chat/completions", json=chat("chat-nope")),
            ana.post("/v1/chat/completions", content=b"{not json"),
            ana.post("/v1/images/generations", json={"model": "image-aspect", "prompt": "x"}),
            ana.post("/v1/images/generations", json={"model": "image-aspect", "prompt": "x"}),  # over the cap
            ana.post("/v1/videos", json={"model": "video-tiers", "prompt": "x", "resolution": "9000p"}),
            ana.get("/v1/videos/video_nope"),
            ana.get("/nowhere"),
            httpx.get(f"{room.base_url}/_classroom/report", headers=auth(room.admin_token)),
            httpx.get(f"{room.base_url}/_classroom/status", headers=auth(room.admin_token)),
        ]
    assert {a.status_code for a in answers} >= {200, 400, 402, 404}
    for answer in answers:
        seen += [answer.text, str(answer.headers)]
    room.stop()
    files = [p for p in tmp_path.iterdir() if p.is_file()]
    assert files and all(TEACHER_KEY.encode() not in p.read_bytes() for p in files)
    seen += [record.getMessage() for record in caplog.records]
    assert [text for text in seen if TEACHER_KEY in text] == []
    assert room.keys.key[0].encode() not in db.read_bytes()  # student keys are stored hashed
