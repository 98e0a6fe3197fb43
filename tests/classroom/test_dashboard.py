"""The teacher's dashboard: spend against the cap per student (names escaped), the class paused or open;
outside a kernel a snapshot that says why it is not live; the live widget's buttons pause and resume."""

from __future__ import annotations

import re
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


def test_the_live_widget_sorts_by_spend_and_remaining_and_filters_students_near_their_cap(rooms: Any) -> None:
    """Sort by name, spend or what is left; the near-cap filter keeps students with 80% of their cap used."""
    import ipywidgets

    from gatewaykit.notebook.widgets import classroom_dashboard

    room = rooms(roster=["ana", "bo", {"student": "cy", "cap_usd": 0.035}], cap=0.1)
    keys = dict(zip(room.keys.student, room.keys.key))
    image = {"model": "image-aspect", "prompt": "a fox"}  # $0.03
    for student, images in (("bo", 2), ("cy", 1)):
        for _ in range(images):
            assert httpx.post(f"{room.base_url}/v1/images/generations", json=image,
                              headers=auth(keys[student])).status_code == 200

    def order() -> list[str]:
        return re.findall(r'<tr class="gk-student"><td[^>]*>(\w+)', live.view.value)

    live = classroom_dashboard.ClassroomDashboard(room, ipywidgets, refresh_seconds=60)
    try:
        assert order() == ["ana", "bo", "cy"]
        live.sort.value = "spent"
        assert order() == ["bo", "cy", "ana"]
        live.sort.value = "remaining"
        assert order() == ["cy", "bo", "ana"]  # $0.005, $0.04, $0.10 left
        live.near_cap_only.value = True
        assert order() == ["cy"] and "showing 1 of 3" in live.view.value
        assert "Top spenders: bo $0.06, cy $0.03" in live.view.value
        assert "$0.09 spent of $0.235 in caps" in live.view.value
    finally:
        live.close()
