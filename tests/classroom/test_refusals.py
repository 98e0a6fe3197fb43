"""Refusals a student reads, in the spec's envelope, and keys: unknown and revoked keys get 401, the admin
endpoints need the admin token, a new key works at once."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from classroom_fixtures import TEACHER_KEY, auth, chat, upstream_spent


def test_a_model_outside_the_class_list_is_403_naming_the_allowed_ones(rooms: Any) -> None:
    room = rooms(roster=["ana"], models=["chat-mini", "image-gpt"])
    answer = httpx.post(f"{room.base_url}/v1/chat/completions", json=chat("chat-reasoner"),
                        headers=auth(room.keys.key[0]))
    assert answer.status_code == 403
    error = answer.json()["error"]
    assert error["code"] == "model_not_found" and error["param"] == "model"
    assert "Allowed models: chat-mini, image-gpt." in error["message"] and "'chat-reasoner'" in error["message"]
    listed = httpx.get(f"{room.base_url}/v1/models", headers=auth(room.keys.key[0])).json()
    assert sorted(m["id"] for m in listed["data"]) == ["chat-mini", "image-gpt"]
    assert room.report_rows()[0]["refused"] == 1


def test_a_request_over_the_per_request_limit_is_402_naming_the_limit_and_the_quote(rooms: Any, upstream: Any) -> None:
    room = rooms(roster=["ana"], max_request_cost=0.02)
    answer = httpx.post(f"{room.base_url}/v1/images/generations", json={"model": "image-aspect", "prompt": "a fox"},
                        headers=auth(room.keys.key[0]))
    assert answer.status_code == 402
    error = answer.json()["error"]
    assert error["type"] == "insufficient_quota"
    assert "could cost up to $0.03, over your class's limit of $0.02 per request" in error["message"]
    assert upstream_spent(upstream) == 0


def test_a_used_up_budget_is_402_in_the_students_words(rooms: Any) -> None:
    room = rooms(roster=["ana"], cap=0.04)
    key = room.keys.key[0]
    first = httpx.post(f"{room.base_url}/v1/images/generations", json={"model": "image-aspect", "prompt": "a fox"},
                       headers=auth(key))
    assert first.status_code == 200
    room.set_cap("ana", 0.03)  # exactly what was spent: nothing is left
    second = httpx.post(f"{room.base_url}/v1/chat/completions", json=chat(), headers=auth(key))
    assert second.status_code == 402
    assert second.json()["error"]["message"] == (
        "Your class budget of $0.03 is used up ($0.03 spent). Ask your teacher for more.")
    room.set_cap("ana", 1.0)
    assert httpx.post(f"{room.base_url}/v1/chat/completions", json=chat(), headers=auth(key)).status_code == 200


def test_the_gatewaykit_client_raises_its_usual_classes(rooms: Any) -> None:
    import gatewaykit as gk

    room = rooms(roster=["ana"], cap=0.0, models=["chat-mini"])
    with gk.Client(api_key=room.keys.key[0], base_url=room.base_url, max_retries=0) as client:
        with pytest.raises(gk.InsufficientQuotaError, match="class budget of \\$0.00 is used up"):
            client.chat.ask("hello", model="chat-mini")
        with pytest.raises(gk.PermissionDeniedError, match="Allowed models: chat-mini") as refused:
            client.chat.ask("hello", model="chat-reasoner")
        # named as what it is (a traceback shows the class), and still caught as a model error too
        assert type(refused.value) is gk.ModelNotAllowedError and isinstance(refused.value, gk.ModelNotFoundError)
        room.pause("exam starts")
        with pytest.raises(gk.ClassPausedError, match="paused the class \\(exam starts\\)") as paused:
            client.chat.ask("hello", model="chat-mini")
        assert isinstance(paused.value, gk.ServerError) and paused.value.status == 503
        room.resume()
    with gk.Client(api_key="sk-bf-not-a-student-key-000000000", base_url=room.base_url, max_retries=0) as stranger:
        with pytest.raises(gk.AuthenticationError):
            stranger.chat.ask("hello", model="chat-mini")


def test_unknown_and_revoked_keys_get_401_and_a_reissued_key_works(rooms: Any) -> None:
    room = rooms(roster=["ana", "bo"])
    old = room.keys.key[0]
    for key in ("sk-bf-unknown-000000000000000000", "not-even-a-key"):
        answer = httpx.post(f"{room.base_url}/v1/chat/completions", json=chat(), headers=auth(key))
        assert answer.status_code == 401 and answer.json()["error"]["code"] == "invalid_api_key"
    assert httpx.post(f"{room.base_url}/v1/chat/completions", json=chat()).status_code == 401
    room.revoke("ana")
    revoked = httpx.post(f"{room.base_url}/v1/chat/completions", json=chat(), headers=auth(old))
    assert revoked.status_code == 401 and "revoked" in revoked.json()["error"]["message"]
    new = room.reissue("ana")
    assert new != old and room.keys.set_index("student").key["ana"] == new
    assert httpx.post(f"{room.base_url}/v1/chat/completions", json=chat(), headers=auth(new)).status_code == 200
    assert httpx.post(f"{room.base_url}/v1/chat/completions", json=chat(), headers=auth(old)).status_code == 401
    late = room.add_student("cy", cap_usd=0.5)
    assert httpx.post(f"{room.base_url}/v1/chat/completions", json=chat(), headers=auth(late)).status_code == 200
    assert {r["student"]: r["cap_usd"] for r in room.report_rows()}["cy"] == 0.5
    with pytest.raises(KeyError):
        room.revoke("nobody")
    # a hub's spawner hook asks for a key at each server start: a new student is added, a known one reissued
    hook = httpx.post(f"{room.base_url}/_classroom/students/dee/key", headers=auth(room.admin_token)).json()
    assert hook["new"] is True
    again = httpx.post(f"{room.base_url}/_classroom/students/dee/key", headers=auth(room.admin_token)).json()
    assert again["new"] is False and again["key"] != hook["key"]
    assert httpx.post(f"{room.base_url}/v1/chat/completions", json=chat(), headers=auth(hook["key"])).status_code == 401
    assert httpx.post(f"{room.base_url}/v1/chat/completions", json=chat(), headers=auth(again["key"])).status_code == 200
    # a revoked student gets no key back from the hook (only the teacher's reissue brings them back)
    room.revoke("dee")
    refused = httpx.post(f"{room.base_url}/_classroom/students/dee/key", headers=auth(room.admin_token))
    assert refused.status_code == 403 and refused.json()["error"]["code"] == "student_revoked"
    assert httpx.post(f"{room.base_url}/v1/chat/completions", json=chat(), headers=auth(again["key"])).status_code == 401


def test_admin_endpoints_answer_only_with_the_admin_token(rooms: Any) -> None:
    room = rooms(roster=["ana"])
    student = room.keys.key[0]
    for path in ("/_classroom/report", "/_classroom/status"):
        for headers in ({}, auth(student), auth("wrong-token")):
            answer = httpx.get(f"{room.base_url}{path}", headers=headers)
            assert answer.status_code == 401 and answer.json()["error"]["code"] == "invalid_admin_token"
            message = answer.json()["error"]["message"]  # none given: how to give it; a wrong one: not accepted
            assert ("does not accept this admin token" in message) == bool(headers), message
            assert student not in message
    assert httpx.post(f"{room.base_url}/_classroom/pause", headers=auth(student)).status_code == 401
    assert room.status()["paused"] is False
    report = httpx.get(f"{room.base_url}/_classroom/report", headers=auth(room.admin_token)).json()
    assert report["window"] == "total" and report["rows"][0]["student"] == "ana"


def test_an_upstream_that_is_down_releases_the_hold(upstream: Any, rooms: Any) -> None:
    """The request never left: nothing can have been billed. (One the gateway had and did not answer is charged:
    test_unknown_outcomes.py.)"""
    room = rooms(roster=["ana"])
    upstream.stop()
    down = httpx.post(f"{room.base_url}/v1/chat/completions", json=chat(), headers=auth(room.keys.key[0]), timeout=60)
    assert down.status_code == 502 and "Nothing was charged" in down.json()["error"]["message"]
    row = room.report_rows()[0]
    assert row["held_usd"] == 0 and row["spent_usd"] == 0 and row["unknown"] == 0


def test_the_gateways_own_refusals_pass_through_unchanged(upstream: Any) -> None:
    """(The gateway's address is given the openai way, ending in /v1: the same gateway.)"""
    from gatewaykit import classroom

    with classroom.start(upstream=upstream.base_url + "/v1/", upstream_key=TEACHER_KEY, roster=["ana"]) as room:
        answer = httpx.post(f"{room.base_url}/v1/chat/completions", json=chat("chat-mni"),
                            headers=auth(room.keys.key[0]))
        assert answer.status_code == 400 and answer.json()["error"]["code"] == "model_not_found"
        assert "Did you mean 'chat-mini'?" in answer.json()["error"]["message"]
        assert room.report_rows()[0]["held_usd"] == 0


def test_in_front_of_an_offline_gateway_the_classroom_s_own_refusals_are_marked_offline_too(
    rooms: Any, tmp_path: Any, monkeypatch: Any
) -> None:
    """Practice on the offline gateway: its forwarded answers say X-Gateway-Offline: 1, and so do the classroom's
    own refusals and 404s, so a student's ledger keeps all of them in memory with the synthetic rows, and its
    file holds none (before, it held only the refusals: a history of nothing but errors)."""
    import gatewaykit as gk

    room = rooms(roster=["ana"], cap=0.0001, models=["chat-mini"])
    key = room.keys.key[0]
    for path, body in (("/v1/chat/completions", chat("chat-reasoner")), ("/v1/nothing-here", {})):
        answer = httpx.post(f"{room.base_url}{path}", json=body, headers=auth(key))
        assert answer.status_code in (403, 404) and answer.headers.get_list("x-gateway-offline") == ["1"]
    ledger_path = tmp_path / "ana.sqlite"
    monkeypatch.setenv("GATEWAYKIT_LEDGER_PATH", str(ledger_path))  # where ana's own ledger (gk.Ledger()) keeps rows
    with gk.Client(api_key=key, base_url=room.base_url, max_retries=0, display=False,
                   ledger=gk.Ledger()) as client:  # fmt: skip
        client.chat.ask("hello", model="chat-mini", max_tokens=5)  # fits the cap
        with pytest.raises(gk.InsufficientQuotaError):
            client.chat.ask("hello again, at length", model="chat-mini", max_tokens=4000)
        rows = client.ledger.to_pandas()
        assert list(rows["status"]) == ["ok", "error"] and rows["offline"].all()
        assert not ledger_path.exists()  # nothing synthetic among real spending: not even a file for none


def test_the_offline_mark_is_added_once_and_only_in_front_of_an_offline_gateway() -> None:
    import asyncio

    from gatewaykit.classroom.app import BugsAsEnvelopes

    async def answer(scope: Any, receive: Any, send: Any) -> None:
        forwarded = [(b"x-gateway-offline", b"1")] if scope["path"] == "/forwarded" else []
        await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"text/plain"),
                                                                               *forwarded]})
        await send({"type": "http.response.body", "body": b"ok"})

    def headers_of(offline: bool, path: str) -> list[tuple[bytes, bytes]]:
        sent: list[Any] = []

        async def send(message: Any) -> None:
            sent.append(message)

        scope = {"type": "http", "method": "GET", "path": path, "raw_path": path.encode(), "headers": []}
        asyncio.run(BugsAsEnvelopes(answer, offline=offline)(scope, None, send))  # type: ignore[arg-type]
        return [pair for pair in sent[0]["headers"] if pair[0] == b"x-gateway-offline"]

    assert headers_of(True, "/own") == [(b"x-gateway-offline", b"1")]
    assert headers_of(True, "/forwarded") == [(b"x-gateway-offline", b"1")]  # not twice
    assert headers_of(False, "/own") == []


def _dollars(text: str) -> list[float]:
    import re

    return [float(figure) for figure in re.findall(r"\$([0-9]+\.[0-9]+)", text)]


def test_the_cap_refusal_says_what_is_held_and_its_figures_add_up_to_the_cap() -> None:
    """Left + spent + held (by the student's requests still running) = the cap, as the message writes them."""
    from classroom_fixtures import open_room, start_upstream

    with start_upstream(time_scale=1.0) as gateway:  # the video stays in progress: its hold is held
        room = open_room(gateway, roster=["ana"], cap=0.3, job_check_seconds=60)
        try:
            key = room.keys.key[0]
            spent = httpx.post(f"{room.base_url}/v1/chat/completions", json=chat(max_tokens=300),
                               headers=auth(key), timeout=60)
            assert spent.status_code == 200
            job = httpx.post(f"{room.base_url}/v1/videos", headers=auth(key),
                             json={"model": "video-tiers", "prompt": "a kite", "resolution": "480p"})
            assert job.json()["status"] in ("queued", "in_progress")
            answer = httpx.post(f"{room.base_url}/v1/videos", headers=auth(key),  # a second one does not fit
                                json={"model": "video-tiers", "prompt": "a kite", "resolution": "480p"})
        finally:
            room.stop()
    message = answer.json()["error"]["message"]
    assert answer.status_code == 402 and "held by your requests still running" in message, message
    _, left, cap, spent_usd, held = _dollars(message)
    assert cap == 0.3 and held == 0.2 and spent_usd > 0, message
    assert round(left + spent_usd + held, 9) == cap, message
