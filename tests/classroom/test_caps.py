"""Caps are hard: 40 students x 20 mixed requests, 8 at a time each, through a real classroom to a real
offline gateway. No student's spend passes their cap, and what the gateway charged the teacher equals the
classroom's report to the cent (to the nano-dollar, in fact)."""

from __future__ import annotations

import asyncio
import random
from collections import defaultdict
from typing import Any

import httpx
import pytest
from classroom_fixtures import auth, chat, db_rows, upstream_spent

STUDENTS = 40
REQUESTS_EACH = 20
CONCURRENT_EACH = 8
CAP = 0.05


def _mixed(rng: random.Random, i: int) -> tuple[str, dict[str, Any], bool]:
    """(path, body, stream) of one request: chats (plain, reasoning, streamed) and images."""
    pick = i % 5
    if pick == 0:
        return "/v1/chat/completions", chat("chat-mini", f"Tell me about topic {i}", max_tokens=rng.choice([64, 400])), False
    if pick == 1:
        return "/v1/chat/completions", chat("chat-reasoner", "Why is the sky blue?", max_tokens=rng.choice([200, 2000])), False
    if pick == 2:
        return "/v1/chat/completions", chat("chat-mini", "Count to ten", stream=True), True
    if pick == 3:
        return "/v1/images/generations", {"model": "image-gpt", "prompt": f"a lighthouse {i}", "quality": "low"}, False
    return "/v1/images/generations", {"model": "image-aspect", "prompt": f"a fox {i}"}, False


async def _student(base_url: str, key: str, seed: int) -> list[tuple[int, float | None, str]]:
    """(status, reported cost, error message) of each of the student's requests, 8 in flight at a time."""
    rng = random.Random(seed)
    limit = asyncio.Semaphore(CONCURRENT_EACH)
    async with httpx.AsyncClient(base_url=base_url, headers=auth(key), timeout=300) as http:

        async def one(i: int) -> tuple[int, float | None, str]:
            path, body, stream = _mixed(rng, i)
            async with limit:
                if stream:
                    async with http.stream("POST", path, json=body) as answer:
                        text = (await answer.aread()).decode()
                    if answer.status_code != 200:
                        return answer.status_code, None, text
                    usage = [line for line in text.splitlines() if '"usage"' in line]
                    cost = httpx.Response(200, content=usage[-1][len("data: "):]).json()["usage"]["cost"]["total_cost"]
                    return 200, cost, ""
                answer = await http.post(path, json=body)
                if answer.status_code != 200:
                    return answer.status_code, None, answer.json()["error"]["message"]
                return 200, answer.json()["usage"]["cost"]["total_cost"], ""

        return await asyncio.gather(*(one(i) for i in range(REQUESTS_EACH)))


@pytest.mark.slow
def test_no_student_passes_the_cap_and_the_gateway_charged_what_the_report_says(upstream: Any, rooms: Any,
                                                                                   tmp_path: Any) -> None:
    db = str(tmp_path / "class.db")
    room = rooms(roster=[f"student{i:02}" for i in range(STUDENTS)], cap=CAP, db=db)
    keys = dict(zip(room.keys.student, room.keys.key))

    async def everyone() -> list[Any]:
        return await asyncio.gather(*(_student(room.base_url, keys[name], n) for n, name in enumerate(keys)))

    results = dict(zip(keys, asyncio.run(everyone())))
    report = {row["student"]: row for row in room.report_rows()}
    seen_cost: dict[str, float] = defaultdict(float)
    statuses: dict[int, int] = defaultdict(int)
    for student, answers in results.items():
        for status, cost, message in answers:
            statuses[status] += 1
            if status == 200:
                seen_cost[student] += cost  # type: ignore[operator]
            else:
                assert status == 402, message
                assert "class budget of $0.05" in message, message
        row = report[student]
        assert row["spent_usd"] <= CAP, (student, row)
        assert row["held_usd"] == 0 and row["requests"] + row["refused"] == REQUESTS_EACH, row
        assert round(row["spent_usd"], 9) == round(seen_cost[student], 9), (student, row, seen_cost[student])
    assert statuses[200] > STUDENTS * 5 and statuses[402] > STUDENTS, dict(statuses)  # caps were reached
    total = sum(row["spent_usd"] for row in report.values())
    assert round(upstream_spent(upstream), 9) == round(total, 9)
    assert round(upstream_spent(upstream), 2) == round(total, 2)
    # every forwarded request is a row with its final status and the gateway's cost
    rows = db_rows(db, "SELECT status, count(*), sum(cost_nanos) FROM requests GROUP BY status")
    assert {status: count for status, count, _ in rows} == {"ok": statuses[200]}, rows
    assert sum(cost for _, _, cost in rows) == round(total * 1e9)
    # the worst case held before forwarding was never less than what the gateway then charged
    assert db_rows(db, "SELECT count(*) FROM requests WHERE cost_nanos > hold_nanos") == [(0,)]
    print(f"\ncaps: {statuses[200]} answered, {statuses[402]} refused at the cap; max spent "
          f"${max(r['spent_usd'] for r in report.values()):.6f} of ${CAP}; gateway charged ${upstream_spent(upstream):.6f}, "
          f"report ${total:.6f}")
