"""Rows of concurrent requests are made final together (one transaction per event-loop turn), and still each
request's row is final in the database before its answer reaches the student."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
from classroom_fixtures import auth, chat, db_rows

from gatewaykit.classroom.store import SQLiteStore

STUDENTS = 4
CONCURRENT_EACH = 10


class NotingStore(SQLiteStore):
    """The real SQLite store, noting how many rows each finishing transaction made final."""

    def __init__(self, path: str) -> None:
        super().__init__(path)
        self.batches: list[int] = []

    def finish_requests(self, rows: list[Any]) -> None:
        self.batches.append(len(rows))
        super().finish_requests(rows)


def test_concurrent_answers_share_a_commit_and_each_row_is_final_before_its_answer(rooms: Any, tmp_path: Any) -> None:
    db = str(tmp_path / "class.db")
    store = NotingStore(db)
    room = rooms(roster=[f"s{i}" for i in range(STUDENTS)], store=store, cap=100.0)

    async def student(key: str) -> list[bool]:
        async with httpx.AsyncClient(base_url=room.base_url, headers=auth(key), timeout=120) as http:
            async def one(i: int) -> bool:
                answer = await http.post("/v1/chat/completions", json=chat(text=f"Say hello {i}", max_tokens=40))
                assert answer.status_code == 200, answer.text
                ids = {answer.headers.get("x-request-id"), answer.json()["id"]} - {None}
                # read at once, before anything else runs: the row must already be final
                final = db_rows(db, "SELECT status FROM requests WHERE upstream_id IN (%s)" % ",".join("?" * len(ids)),
                                tuple(ids))
                return final == [("ok",)]

            return await asyncio.gather(*(one(i) for i in range(CONCURRENT_EACH)))

    async def everyone() -> list[list[bool]]:
        return await asyncio.gather(*(student(key) for key in room.keys.key))

    finals = [ok for each in asyncio.run(everyone()) for ok in each]
    assert finals == [True] * STUDENTS * CONCURRENT_EACH
    assert sum(store.batches) == STUDENTS * CONCURRENT_EACH
    assert max(store.batches) > 1 and len(store.batches) < STUDENTS * CONCURRENT_EACH, store.batches
