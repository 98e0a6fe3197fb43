"""Once a request has reached the gateway, an outcome the classroom cannot know is charged at its hold, never
released: the gateway may have carried it out and billed the teacher (a chat answered after the classroom's
upstream time-out, a connection closed after the request was sent, a body cut off)."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from classroom_fixtures import auth, chat, open_room, upstream_spent, wait_for
from lossy_gateway import LossyGateway


@pytest.mark.parametrize(("mode", "status", "timeout"), [("slow", 504, 0.5), ("close", 502, 30), ("cut", 502, 30)])
def test_a_chat_whose_answer_is_lost_after_the_gateway_billed_it_is_charged_at_its_hold(
        upstream: Any, mode: str, status: int, timeout: float) -> None:
    with LossyGateway(upstream.base_url, mode, delay=3.0) as lossy, \
            open_room(lossy, roster=["ana"], upstream_timeout=timeout) as room:
        answer = httpx.post(f"{room.base_url}/v1/chat/completions", json=chat(max_tokens=200),
                            headers=auth(room.keys.key[0]), timeout=60)
        wait_for(lambda: lossy.lost == 1, 30, "the gateway's answer to be lost")  # so it billed by now
        row = room.report_rows()[0]
    message = answer.json()["error"]["message"]
    assert answer.status_code == status and "Nothing was charged" not in message and "charged at its worst case" in message
    billed = upstream_spent(upstream)
    assert 0 < billed <= row["spent_usd"] and row["held_usd"] == 0  # the teacher's bill is within the student's
    assert (row["unknown"], row["unknown_usd"]) == (1, row["spent_usd"])



def test_a_refusal_whose_body_is_cut_off_is_released(upstream: Any) -> None:
    """The gateway said no (its status came whole): nothing was billed, whatever happened to its body."""
    with LossyGateway(upstream.base_url, "cut") as lossy, open_room(lossy, roster=["ana"]) as room:
        answer = httpx.post(f"{room.base_url}/v1/chat/completions", json=chat(max_tokens=200, temperature=7),
                            headers=auth(room.keys.key[0]), timeout=60)
        row = room.report_rows()[0]
        assert lossy.lost == 1
    assert answer.status_code == 502 and "Nothing was charged" in answer.json()["error"]["message"]
    assert (row["spent_usd"], row["held_usd"], row["unknown"]) == (0, 0, 0) and upstream_spent(upstream) == 0
