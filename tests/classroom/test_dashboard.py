"""The teacher's dashboard: spend against the cap per student (names escaped), the class paused or open;
outside a kernel a snapshot that says why it is not live; the live widget's buttons pause and resume."""

from __future__ import annotations

from typing import Any

import httpx
from classroom_fixtures import auth, chat


def test_the_dashboard_shows_each_students_spend_against_the_cap(rooms: Any) -> None:
    room = rooms(roster=["ana", "<b>bo</b>"], cap=0.03)
    httpx.post(f"{room.base_url}/v1/images/generations", json={"model": "image-aspect", "prompt": "a fox"},
               headers=auth(room.keys.key[0]))
    room.pause("lunch & break")
    snapshot = room.dashboard()
    html = snapshot._repr_html_()
    assert "Paused: lunch &amp; break" in html and "&lt;b&gt;bo&lt;/b&gt;" in html and "<b>bo</b>" not in html
    assert "$0.03 of $0.03" in html and "cap reached" in html and "$0.03 left" in html
    assert "snapshot" in repr(snapshot)


def test_the_live_widget_pauses_and_resumes_the_class(rooms: Any, monkeypatch: Any) -> None:
    import ipywidgets

    from gatewaykit.notebook.widgets import classroom_dashboard

    room = rooms(roster=["ana"])
    live = classroom_dashboard.ClassroomDashboard(room, ipywidgets, refresh_seconds=60)
    try:
        assert live.resume_button.disabled and not live.pause_button.disabled  # open: nothing to resume
        live.reason.value = "quiz"
        live.pause_button.click()
        assert not live.resume_button.disabled and not live.pause_button.disabled  # pausing again: a new reason
        answer = httpx.post(f"{room.base_url}/v1/chat/completions", json=chat(), headers=auth(room.keys.key[0]))
        assert answer.status_code == 503 and "(quiz)" in answer.json()["error"]["message"]
        assert "Paused: quiz" in live.view.value
        live.resume_button.click()
        assert room.status()["paused"] is False and "Open" in live.view.value and live.resume_button.disabled
        assert "0 requests" in live.view.value
        # after the dashboard's last refresh and before the class stops, ana chats once more
        assert httpx.post(f"{room.base_url}/v1/chat/completions", json=chat(),
                          headers=auth(room.keys.key[0])).status_code == 200  # fmt: skip
        room.stop()
        live.refresh()
        assert "stopped" in live.message.value
        # a stopped class no longer reads "Open", shows its figures as it stopped (not the last refresh's),
        # and its buttons are greyed
        assert "Stopped" in live.view.value and "Open" not in live.view.value and "ana" in live.view.value
        assert ">1 request, 1 refused<" in live.view.value, live.view.value  # the chat refused while paused
        assert room.final_figures is not None and room.final_figures[0][0]["requests"] == 1
        assert live.pause_button.disabled and live.resume_button.disabled and live.reason.disabled
    finally:
        live.close()
