"""A student's own budget: ``GET /_classroom/me`` with their key, ``gk.classroom.my_budget()`` from their
environment, and refusals that say what is left."""

from __future__ import annotations

import datetime as dt
from typing import Any

import httpx
import pytest
from classroom_fixtures import auth, chat

import gatewaykit as gk


def _key(room: Any, student: str) -> str:
    return str(room.keys.set_index("student").key[student])


def test_me_answers_a_students_own_budget_with_their_key(rooms: Any) -> None:
    """/_classroom/me: the student's cap, spent, held and remaining in the window; total windows never reset."""
    room = rooms(roster=["ana", {"student": "bo", "cap_usd": 0.5}], cap=1.0)
    assert httpx.post(f"{room.base_url}/v1/chat/completions", json=chat(max_tokens=20),
                      headers=auth(_key(room, "bo"))).status_code == 200
    me = httpx.get(f"{room.base_url}/_classroom/me", headers=auth(_key(room, "bo"))).json()
    spent = room.report().set_index("student").spent_usd["bo"]
    assert me == {"student": "bo", "cap_usd": 0.5, "spent_usd": spent, "held_usd": 0.0,
                  "remaining_usd": pytest.approx(0.5 - spent), "window": "total", "window_kind": "total",
                  "resets_at": None, "paused": False, "reason": None, "models": None}


def test_me_refuses_what_is_not_a_students_key(rooms: Any) -> None:
    """No key, an unknown key and the admin token are each 401 (the admin token is not a student)."""
    room = rooms(roster=["ana"])
    for headers in ({}, auth("sk-bf-nobody"), auth(room.admin_token)):
        assert httpx.get(f"{room.base_url}/_classroom/me", headers=headers).status_code == 401


def test_a_daily_class_says_when_the_budget_resets(rooms: Any) -> None:
    """A daily window: resets_at is the next local midnight, and the class's pause shows with its reason."""
    fixed = dt.datetime(2026, 11, 26, 15, 30, tzinfo=dt.timezone(dt.timedelta(hours=1)))
    room = rooms(roster=["ana"], window="daily", clock=lambda: fixed)
    room.pause("quiz")
    me = httpx.get(f"{room.base_url}/_classroom/me", headers=auth(_key(room, "ana"))).json()
    assert me["window"] == "2026-11-26" and me["resets_at"] == "2026-11-27T00:00:00+01:00"
    assert me["paused"] is True and me["reason"] == "quiz"


def test_my_budget_reads_the_students_environment_and_shows_itself(rooms: Any, monkeypatch: Any) -> None:
    """my_budget() with SVC_BASE_URL/SVC_API_KEY: a dict, a line for a terminal, HTML for a notebook (escaped)."""
    room = rooms(roster=["<b>ana</b>"], cap=2.0)
    monkeypatch.setenv("SVC_BASE_URL", room.base_url)
    monkeypatch.setenv("SVC_API_KEY", _key(room, "<b>ana</b>"))
    budget = gk.classroom.my_budget()
    assert isinstance(budget, dict) and budget["remaining_usd"] == 2.0 and budget["paused"] is False
    assert str(budget) == "<b>ana</b>: $2.00 left of your $2.00 class budget ($0.00 spent)"
    html = budget._repr_html_()
    assert "&lt;b&gt;ana&lt;/b&gt;" in html and "<b>ana</b>" not in html and "$2.00 left" in html


def test_my_budget_outside_a_class_says_it_is_not_a_classroom(upstream: Any) -> None:
    """Pointed at a plain gateway, my_budget() is one gk.NotFoundError saying it is not a classroom."""
    with pytest.raises(gk.NotFoundError, match="is not a classroom"):
        gk.classroom.my_budget(base_url=upstream.base_url, api_key="sk-bf-whatever")


def test_refusals_that_are_not_about_money_say_what_is_left(rooms: Any) -> None:
    """A model outside the class list (403) and a paused class (503) say what is left of the budget."""
    room = rooms(roster=["ana"], cap=1.5, models=["chat-mini"])
    key = auth(_key(room, "ana"))
    refused = httpx.post(f"{room.base_url}/v1/chat/completions", json=chat("chat-reasoner"), headers=key)
    assert refused.json()["error"]["message"].endswith("You have $1.50 left of your class budget of $1.50.")
    room.pause()
    refused = httpx.post(f"{room.base_url}/v1/chat/completions", json=chat(), headers=key)
    assert refused.json()["error"]["message"] == ("Your teacher has paused the class. Try again later. You have "
                                                  "$1.50 left of your class budget of $1.50.")


def test_the_chat_box_and_the_playground_show_what_is_left_in_a_class(rooms: Any) -> None:
    """A student's chat box totals and playground cost line end with what is left of their class budget."""
    import ipywidgets

    from gatewaykit.money import format_usd
    from gatewaykit.notebook.widgets.playground import Playground

    room = rooms(roster=["ana"], cap=0.01)
    with gk.Client(api_key=_key(room, "ana"), base_url=room.base_url, ledger=gk.Ledger(path=None),
                   display=False) as client:
        ui = gk.chat_ui(client, model="chat-mini")
        ui._widgets = None
        box = ui._build()
        ui._widgets["box"] = box  # type: ignore[index]
        ui.send("Name a river")
        left = format_usd(room.report().remaining_usd[0])
        assert left != "$0.01" and f"class budget: {left} left of $0.01" in ui._widgets["totals"].value  # type: ignore[index]
        playground = Playground(client, ipywidgets)
        playground._show_cost()
        assert f"class budget: {left} left of $0.01" in playground.cost.value
