"""A classroom restarted mid-job keeps its students' keys, their spend, the job's hold and who owns it."""

from __future__ import annotations

from typing import Any

import httpx
from classroom_fixtures import auth, chat, db_rows, open_room, start_upstream, upstream_spent, wait_for


def test_a_restart_keeps_keys_spend_holds_and_job_ownership(tmp_path: Any) -> None:
    db = str(tmp_path / "class.db")
    with start_upstream(time_scale=1.0) as gateway:
        first = open_room(gateway, roster=["ana", "bo"], db=db, cap=1.0)
        keys = dict(zip(first.keys.student, first.keys.key))
        try:
            answer = httpx.post(f"{first.base_url}/v1/chat/completions", json=chat(max_tokens=30),
                                headers=auth(keys["ana"]), timeout=60)
            chat_cost = answer.json()["usage"]["cost"]["total_cost"]
            job = httpx.post(f"{first.base_url}/v1/videos", headers=auth(keys["ana"]),
                             json={"model": "video-tiers", "prompt": "a kite", "resolution": "480p"}).json()
            assert job["status"] in ("queued", "in_progress")
        finally:
            first.stop()
        # the roster again, plus a newcomer: only the newcomer gets a key
        second = open_room(gateway, roster=["ana", "bo", "cy"], db=db, cap=1.0, job_check_seconds=60)
        try:
            assert list(second.keys.student) == ["cy"]
            ana = {r["student"]: r for r in second.report_rows()}["ana"]
            assert ana["spent_usd"] == chat_cost and ana["held_usd"] == 0.2 and ana["requests"] == 1
            stranger = httpx.get(f"{second.base_url}/v1/videos/{job['id']}", headers=auth(keys["bo"]))
            assert stranger.status_code == 404
            with httpx.Client(base_url=second.base_url, headers=auth(keys["ana"]), timeout=60) as http:
                done = wait_for(lambda: (lambda v: v if v["status"] == "completed" else None)(
                    http.get(f"/v1/videos/{job['id']}").json()), 120, "the video to finish")
                assert done["id"] == job["id"]
            ana = {r["student"]: r for r in second.report_rows()}["ana"]
            assert ana["held_usd"] == 0 and round(ana["spent_usd"], 9) == round(chat_cost + 0.2, 9)
            total = sum(r["spent_usd"] for r in second.report_rows())
        finally:
            second.stop()
        assert round(upstream_spent(gateway), 9) == round(total, 9)
    statuses = db_rows(db, "SELECT kind, status FROM requests ORDER BY id")
    assert statuses == [("chat", "ok"), ("video", "ok")]


def test_a_plain_request_cut_off_by_a_stop_is_charged_at_its_hold(tmp_path: Any) -> None:
    """Its outcome is unknown after the restart: the worst case keeps the cap hard, and the report says so."""
    from gatewaykit.classroom.state import ClassroomState  # noqa: F401 - the store is read through a restart
    from gatewaykit.classroom.store import SQLiteStore

    db = str(tmp_path / "class.db")
    store = SQLiteStore(db)
    store.add_student("ana", "0" * 64, None)
    row = store.open_request("ana", "chat-mini", "chat", 5_000_000, "total")
    store.close()
    with start_upstream() as gateway:
        room = open_room(gateway, roster=["ana"], db=db)
        try:
            report = room.report_rows()[0]
        finally:
            room.stop()
    assert (report["spent_usd"], report["unknown"], report["unknown_usd"]) == (0.005, 1, 0.005)
    assert db_rows(db, "SELECT status, cost_nanos FROM requests WHERE id = ?", (row,)) == [
        ("unknown: cut off by a stop", 5_000_000)]
