"""What passes between the students and the gateway behind the classroom: one student's answer never reaches
another over a reused connection, only the headers an API client needs reach the gateway with the teacher's key,
and an answer larger than the classroom buffers (alone, or with the others at once) is refused with an envelope.

The gateway is the real offline gateway behind a raw-socket relay that misbehaves on chat answers
(``misbehaving_upstream.py``): transport edge cases a real gateway or middlebox can produce."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Iterator

import httpx
import orjson
import pytest
from classroom_fixtures import TEACHER_KEY, auth, chat, wait_for
from misbehaving_upstream import MisbehavingUpstream, head_names

from gatewaykit import classroom


@pytest.fixture
def relay(upstream: Any) -> Iterator[MisbehavingUpstream]:
    server = MisbehavingUpstream(upstream.base_url)
    yield server
    server.stop()


def _room(relay: MisbehavingUpstream, **options: Any) -> Any:
    return classroom.start(upstream=relay.url, upstream_key=TEACHER_KEY, roster=["alice", "bob"], **options)


def _post(room: Any, student: int, body: dict[str, Any], **headers: str) -> httpx.Response:
    with httpx.Client(base_url=room.base_url, timeout=60, trust_env=False) as client:
        return client.post("/v1/chat/completions", json=body,
                           headers={**auth(room.keys.key[student]), **headers})


@pytest.mark.parametrize("mode", ["twice", "twice later", "short"])
def test_bytes_left_after_one_students_answer_never_reach_the_next_student(relay: MisbehavingUpstream,
                                                                           mode: str) -> None:
    """A connection with anything left after an answer is closed, not handed to the next request."""
    room = _room(relay)
    try:
        relay.mode = mode
        _post(room, 0, chat(text="Write an essay about rivers", max_tokens=200))
        if mode != "short":
            wait_for(lambda: relay.copies == 1, what="the relay to write the copy")
        bob = _post(room, 1, chat(text="Say hi", max_tokens=5))
        report = room.report().set_index("student")
    finally:
        room.stop()
        relay.mode = ""
    own = relay.answers[1]  # the gateway's answer to bob's own request (cut 10 bytes short in "short")
    assert bob.status_code == 200 and bob.content == (own[:-10] if mode == "short" else own)
    if mode != "short":  # and its cost, not alice's
        assert report.loc["bob", "spent_usd"] == pytest.approx(orjson.loads(own)["usage"]["cost"]["total_cost"])


def test_only_the_headers_an_api_client_needs_reach_the_gateway(relay: MisbehavingUpstream) -> None:
    """Hop-by-hop, fault, idempotency and large custom headers from a student stay in the classroom."""
    room = _room(relay)
    try:
        answer = _post(room, 0, chat(), **{
            "Connection": "keep-alive, X-Hop", "X-Hop": "1", "X-Emulator-Fault": "server_error",
            "Idempotency-Key": "shared-with-the-class", "X-Request-Id": "mine", "X-Big": "b" * 12_000,
            "Traceparent": "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01", "User-Agent": "gatewaykit/1",
        })
    finally:
        room.stop()
    assert answer.status_code == 200  # X-Emulator-Fault did not reach the offline gateway
    chats = [head for head in relay.heads if head.startswith(b"POST /v1/chat/completions ")]
    assert len(chats) == 1
    assert head_names(chats[0]) == {"host", "content-type", "accept", "user-agent", "traceparent", "authorization",
                                    "accept-encoding", "content-length"}
    assert b"traceparent: 00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01\r\n" in chats[0]


def test_an_answer_head_over_the_limit_is_a_502(relay: MisbehavingUpstream) -> None:
    """A 300 kB header from the gateway is not passed on to the student."""
    room = _room(relay)
    try:
        relay.mode = "huge head"
        answer = _post(room, 0, chat())
    finally:
        room.stop()
    assert answer.status_code == 502 and "x-padding" not in answer.headers
    assert answer.json()["error"]["code"] == "upstream_unreachable"


def test_an_answer_over_the_answer_limit_is_a_502_charged_at_the_hold(relay: MisbehavingUpstream) -> None:
    """The gateway billed a 200 it sent; the classroom refuses to buffer it past max_answer_bytes."""
    room = _room(relay, max_answer_bytes=64 * 1024, max_buffered_bytes=1024 * 1024)
    try:
        relay.padding = 200_000
        answer = _post(room, 0, chat())
        report = room.report().set_index("student")
    finally:
        room.stop()
    assert answer.status_code == 502 and answer.json()["error"]["code"] == "upstream_answer_too_large"
    assert "larger than the classroom passes on" in answer.json()["error"]["message"]
    assert report.loc["alice", "spent_usd"] > 0  # charged at the hold: the gateway billed the teacher


def test_answers_buffered_at_once_stay_within_the_total(relay: MisbehavingUpstream) -> None:
    """Three 800 kB answers arriving together against a 1 MiB total: those past it are refused, busy."""
    room = _room(relay, max_answer_bytes=1024 * 1024, max_buffered_bytes=1024 * 1024)
    try:
        relay.mode, relay.padding, relay.together = "together", 800_000, 3
        with ThreadPoolExecutor(3) as students:
            answers = list(students.map(lambda student: _post(room, student % 2, chat()), range(3)))
        relay.mode = ""
        alone = _post(room, 0, chat())  # the bytes of those answers were given back: one alone fits
    finally:
        room.stop()
    statuses = sorted(answer.status_code for answer in answers)
    assert 503 in statuses and set(statuses) <= {200, 503}, statuses
    assert all(answer.json()["error"]["code"] == "classroom_busy" for answer in answers if answer.status_code == 503)
    assert all(answer.content in relay.answers for answer in answers if answer.status_code == 200)
    assert alone.status_code == 200 and alone.content == relay.answers[-1]


def test_students_bodies_read_at_once_stay_within_the_total(relay: MisbehavingUpstream) -> None:
    """A body arriving while another holds most of the 1 MiB total is refused, busy, before any hold."""
    room = _room(relay, max_answer_bytes=256 * 1024, max_buffered_bytes=1024 * 1024)
    body = orjson.dumps(chat(text="w" * 700_000))
    go_on = threading.Event()

    def slow_body() -> Iterator[bytes]:
        yield body[:650_000]
        go_on.wait(60)
        yield body[650_000:]

    try:
        with ThreadPoolExecutor(1) as first:
            slow = first.submit(lambda: httpx.post(f"{room.base_url}/v1/chat/completions", content=slow_body(),
                                                   headers={**auth(room.keys.key[0]), "content-type":
                                                            "application/json"}, timeout=60, trust_env=False))
            wait_for(lambda: room.status()["buffered_bytes"] >= 650_000, what="the first body to be held")
            refused = _post(room, 1, chat(text="w" * 700_000))
            go_on.set()
            finished = slow.result()
        after = room.status()["buffered_bytes"]
        report = room.report().set_index("student")
    finally:
        go_on.set()
        room.stop()
    assert refused.status_code == 503 and refused.json()["error"]["code"] == "classroom_busy"
    assert finished.status_code == 200 and after == 0
    assert report.loc["bob", "requests"] == 0  # refused before a hold: nothing charged, nothing counted
