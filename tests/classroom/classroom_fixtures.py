"""A teacher's account on a real offline gateway, and classrooms in front of it (imported by the tests here)."""

from __future__ import annotations

import sqlite3
import time
from typing import Any, Callable, Iterator

import httpx

ADMIN = "upstream-admin-token"
TEACHER_KEY = "sk-bf-teacher-paid-key-0000000000000042"
TEACHER_ACCOUNTS = {"accounts": [{
    "id": "teacher", "balance_usd": 1000.0, "rate_limit": {"requests": 10_000_000, "per_seconds": 60},
    "keys": [{"key": TEACHER_KEY, "status": "active", "models": "*"}],
}]}


def start_upstream(time_scale: float = 0.0, **more: Any) -> Any:
    from gatewaykit import emulator

    return emulator.start(accounts=TEACHER_ACCOUNTS, admin_token=ADMIN, time_scale=time_scale, seed=1, **more)


def upstream_spent(gateway: Any) -> float:
    """What the gateway charged the teacher's account (its admin accounts endpoint)."""
    answer = httpx.get(f"{gateway.base_url}/_emulator/accounts", headers={"Authorization": f"Bearer {ADMIN}"})
    answer.raise_for_status()
    return {a["id"]: a for a in answer.json()["accounts"]}["teacher"]["spent_usd"]  # type: ignore[no-any-return]


def auth(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


def chat(model: str = "chat-mini", text: str = "Say hello", **more: Any) -> dict[str, Any]:
    return {"model": model, "messages": [{"role": "user", "content": text}], **more}


def wait_for(condition: Callable[[], Any], seconds: float = 60, what: str = "the condition") -> Any:
    deadline = time.monotonic() + seconds
    while True:
        value = condition()
        if value:
            return value
        assert time.monotonic() < deadline, f"waited {seconds:g} s for {what}"
        time.sleep(0.02)


def db_rows(path: str, sql: str, args: tuple = ()) -> list[tuple]:
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
        return db.execute(sql, args).fetchall()


def open_room(upstream: Any, **options: Any) -> Any:
    from gatewaykit import classroom

    return classroom.start(upstream=upstream.base_url, upstream_key=TEACHER_KEY, **options)


class Rooms:
    """Classrooms a test starts, all stopped at its end."""

    def __init__(self, upstream: Any) -> None:
        self.upstream = upstream
        self.started: list[Any] = []

    def __call__(self, **options: Any) -> Any:
        room = open_room(self.upstream, **options)
        self.started.append(room)
        return room

    def stop(self) -> None:
        for room in self.started:
            room.stop()


def rooms_on(upstream: Any) -> Iterator[Rooms]:
    rooms = Rooms(upstream)
    try:
        yield rooms
    finally:
        rooms.stop()


class FakeClock:
    """A classroom clock a test moves (``start(clock=...)``): an aware datetime, ``now``; ``offset`` added to the
    real time when made with ``FakeClock.real()``."""

    def __init__(self, when: Any = None, *, follows_real_time: bool = False) -> None:
        import datetime as dt

        self.now = when
        self.offset = dt.timedelta(0)
        self.follows_real_time = follows_real_time

    @classmethod
    def real(cls) -> "FakeClock":
        return cls(follows_real_time=True)

    def __call__(self) -> Any:
        import datetime as dt

        if self.follows_real_time:
            return dt.datetime.now().astimezone() + self.offset
        return self.now

    def advance(self, **delta: float) -> None:
        import datetime as dt

        if self.follows_real_time:
            self.offset += dt.timedelta(**delta)
        else:
            self.now += dt.timedelta(**delta)
