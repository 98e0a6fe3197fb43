"""The report's ``refused`` column counts every request the classroom refused a student: also while the class
is paused (503) and with a key the teacher revoked (401, after a reissue and a restart too). A key the
classroom never issued counts against nobody; a request that is answered (a job polled, the model list read
while paused) is not a refusal. A refusal made before the body is read has no model: ``report(by="model")``
shows it under ``"-"``, and each student's row includes it."""

from __future__ import annotations

import socket
from typing import Any
from urllib.parse import urlsplit

import httpx
import orjson
from classroom_fixtures import auth, chat, db_rows, open_room, start_upstream


def _refused(room: Any) -> dict[str, int]:
    return {r["student"]: r["refused"] for r in room.report_rows()}


def _by_model(room: Any) -> dict[tuple[str, str], tuple[int, int]]:
    """``(student, model) -> (requests, refused)``."""
    return {(r["student"], r["model"]): (r["requests"], r["refused"]) for r in room.report_rows(by="model")}


def test_a_paused_class_counts_its_refusals_against_the_student(rooms: Any) -> None:
    room = rooms(roster=["ana", "bo"])
    keys = dict(zip(room.keys.student, room.keys.key))
    with httpx.Client(base_url=room.base_url, headers=auth(keys["ana"]), timeout=60) as ana:
        assert ana.post("/v1/chat/completions", json=chat()).status_code == 200
        video = ana.post("/v1/videos", json={"model": "video-tiers", "prompt": "a kite", "resolution": "480p"})
        assert video.status_code == 200
        room.pause("exam")
        answer = ana.post("/v1/chat/completions", json=chat())
        assert answer.status_code == 503 and answer.json()["error"]["code"] == "class_paused"
        assert answer.headers["retry-after"] == "60"
        assert _refused(room) == {"ana": 1, "bo": 0}
        # answered while paused, so not refused: polling a job made before, reading the model list
        assert ana.get(f"/v1/videos/{video.json()['id']}").status_code == 200
        assert ana.get("/v1/models").status_code == 200
        assert ana.post("/v1/images/generations", json={"model": "image-aspect", "prompt": "a fox"}).status_code == 503
    assert _refused(room) == {"ana": 2, "bo": 0}
    # refused before the body was read: no model, shown as "-" (the video job counts when it settles)
    by_model = _by_model(room)
    by_model.pop(("ana", "video-tiers"), None)
    assert by_model == {("ana", "-"): (0, 2), ("ana", "chat-mini"): (1, 0)}
    frame = room.report(by="model")
    assert frame.model.iloc[0] == "-" and frame.refused.iloc[0] == 2 and frame.refused.sum() == 2
    room.resume()
    assert httpx.post(f"{room.base_url}/v1/chat/completions", json=chat(), headers=auth(keys["ana"])).status_code == 200
    assert _refused(room) == {"ana": 2, "bo": 0}


def test_a_pause_while_the_body_is_read_counts_under_the_requests_model(rooms: Any) -> None:
    """The class is paused after the key was checked, before the body arrived (``Expect: 100-continue``: the
    server asks for the body only once it reads it): the refusal is counted under the model the body names."""
    room = rooms(roster=["ana"])
    key = room.keys.key[0]
    where = urlsplit(room.base_url)
    body = orjson.dumps(chat("chat-mini"))
    with socket.create_connection((where.hostname, where.port), timeout=60) as sock:
        sock.sendall(b"POST /v1/chat/completions HTTP/1.1\r\nHost: " + where.netloc.encode()
                     + b"\r\nAuthorization: Bearer " + key.encode() + b"\r\nContent-Type: application/json\r\n"
                     + b"Content-Length: " + str(len(body)).encode() + b"\r\nExpect: 100-continue\r\n\r\n")
        head = b""
        while b"\r\n\r\n" not in head:
            more = sock.recv(4096)
            assert more, head
            head += more
        assert head.startswith(b"HTTP/1.1 100 "), head  # past the key and the kill switch, reading the body
        room.pause("fire drill")
        sock.sendall(body)
        answer = b""
        while b"class_paused" not in answer:
            more = sock.recv(65536)
            assert more, answer
            answer += more
    assert answer.startswith(b"HTTP/1.1 503 "), answer
    assert _by_model(room) == {("ana", "chat-mini"): (0, 1)}
    assert _refused(room) == {"ana": 1}


def test_a_revoked_key_counts_against_its_student_and_an_unknown_key_against_nobody(rooms: Any,
                                                                                   tmp_path: Any) -> None:
    db = str(tmp_path / "class.db")
    room = rooms(roster=["ana", "bo"], db=db)
    keys = dict(zip(room.keys.student, room.keys.key))
    url = f"{room.base_url}/v1/chat/completions"
    for key in ("sk-bf-class-never-issued-000000000000", "not-even-a-key"):
        answer = httpx.post(url, json=chat(), headers=auth(key))
        assert answer.status_code == 401 and "does not know this API key" in answer.json()["error"]["message"]
    assert httpx.post(url, json=chat()).status_code == 401  # no key at all
    assert _refused(room) == {"ana": 0, "bo": 0}
    assert db_rows(db, "SELECT count(*) FROM totals") == [(0,)]
    room.revoke("ana")
    revoked = httpx.post(url, json=chat(), headers=auth(keys["ana"]))
    assert revoked.status_code == 401 and "revoked" in revoked.json()["error"]["message"]
    assert _refused(room) == {"ana": 1, "bo": 0}
    # any route the revoked key is refused on: the model list too
    assert httpx.get(f"{room.base_url}/v1/models", headers=auth(keys["ana"])).status_code == 401
    assert _refused(room) == {"ana": 2, "bo": 0}
    # while paused, a revoked key is refused for its key (401), once
    room.pause()
    assert httpx.post(url, json=chat(), headers=auth(keys["ana"])).status_code == 401
    assert _refused(room) == {"ana": 3, "bo": 0}
    room.resume()
    # the old key after a reissue is still ana's
    new = room.reissue("ana")
    assert httpx.post(url, json=chat(), headers=auth(new)).status_code == 200
    assert httpx.post(url, json=chat(), headers=auth(keys["ana"])).status_code == 401
    assert _refused(room) == {"ana": 4, "bo": 0}
    assert _by_model(room) == {("ana", "-"): (0, 4), ("ana", "chat-mini"): (1, 0)}


def test_a_restarted_classroom_still_knows_whose_revoked_keys_they_are(tmp_path: Any) -> None:
    db = str(tmp_path / "class.db")
    with start_upstream() as gateway:
        first = open_room(gateway, roster=["ana", "bo"], db=db)
        keys = dict(zip(first.keys.student, first.keys.key))
        try:
            first.reissue("ana")  # ana's first key revoked by the reissue: the store keeps only her new one
            first.revoke("bo")
        finally:
            first.stop()
        second = open_room(gateway, roster=["ana", "bo"], db=db)
        try:
            url = f"{second.base_url}/v1/chat/completions"
            for student in ("ana", "bo"):
                answer = httpx.post(url, json=chat(), headers=auth(keys[student]))
                assert answer.status_code == 401, student
                assert answer.json()["error"]["message"].startswith("Your teacher has revoked this API key"), student
            assert httpx.post(url, json=chat(), headers=auth("sk-bf-class-never-issued-000000000000")).status_code == 401
            assert _refused(second) == {"ana": 1, "bo": 1}
        finally:
            second.stop()
