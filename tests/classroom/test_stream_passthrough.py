"""Streams pass through chunk by chunk: a student reads the first tokens while the gateway is still writing
the rest, and the request's row is final by the time the stream ends."""

from __future__ import annotations

import time
from typing import Any

import httpx
from classroom_fixtures import auth, chat, db_rows, open_room, start_upstream


def test_a_stream_arrives_chunk_by_chunk_and_is_settled_before_it_ends(tmp_path: Any) -> None:
    db = str(tmp_path / "class.db")
    with start_upstream(time_scale=1.0) as gateway:  # 50 tokens a second
        room = open_room(gateway, roster=["ana"], db=db)
        try:
            arrivals: list[tuple[float, str]] = []
            with httpx.stream("POST", f"{room.base_url}/v1/chat/completions", headers=auth(room.keys.key[0]),
                              json=chat(text="Write a long paragraph about rivers", stream=True), timeout=60) as answer:
                for line in answer.iter_lines():
                    if line:
                        arrivals.append((time.monotonic(), line))
                rows = db_rows(db, "SELECT status, cost_nanos FROM requests")
        finally:
            room.stop()
    content = [t for t, line in arrivals if '"content"' in line]
    assert len(content) > 10
    assert content[-1] - content[0] > 0.3, "the chunks arrived together: the stream was buffered"
    assert rows[0][0] == "ok" and rows[0][1] > 0  # settled before the student's stream ended
