"""Three classroom processes given one PostgreSQL URL are one class: keys issued once, any process serves any
student, every report is the whole class, the kill switch and revocations reach all, and caps stay hard with
8 requests per student in flight spread over the three (real processes, a real offline gateway process)."""

from __future__ import annotations

import asyncio
import random
import time
from pathlib import Path
from typing import Any, Iterator

import httpx
import pytest
from classroom_fixtures import auth, chat, wait_for
from shared_class import ClassroomProcess, GatewayProcess

STUDENTS = 12
CAP = 0.05
REQUESTS_EACH = 20
CONCURRENT_EACH = 8


class SharedClass:
    def __init__(self, gateway: GatewayProcess, url: str, instances: list[ClassroomProcess]) -> None:
        self.gateway = gateway
        self.url = url
        self.instances = instances
        self.keys = next(i.keys() for i in instances if i.keys())
        self.folder = instances[0].keys_file.parent

    def rows(self, sql: str, args: Any = None) -> list[tuple]:
        import psycopg

        with psycopg.connect(self.url, autocommit=True) as conn:
            return conn.execute(sql, args).fetchall()


@pytest.fixture(scope="module")
def shared(postgres_cluster: Any, tmp_path_factory: Any) -> Iterator[SharedClass]:
    folder: Path = tmp_path_factory.mktemp("shared")
    roster = folder / "roster.csv"
    roster.write_text("student\n" + "".join(f"s{i:02}\n" for i in range(STUDENTS)))
    url = postgres_cluster.url(postgres_cluster.new_database())
    gateway = GatewayProcess()
    instances = []
    try:  # the three start at once: the roster is decided by one of them
        instances = [ClassroomProcess(gateway, url, folder, f"i{n}", "--roster", str(roster), "--cap", str(CAP))
                     for n in range(3)]
        for instance in instances:
            instance.ready()
        yield SharedClass(gateway, url, instances)
    finally:
        for instance in instances:
            instance.stop()
        gateway.close()


def test_only_one_of_three_starts_at_once_issues_the_rosters_keys(shared: SharedClass) -> None:
    """Three processes starting together on one URL: one issues every roster key, the others issue none."""
    issued = [len(instance.keys()) for instance in shared.instances]
    assert sorted(issued) == [0, 0, STUDENTS], issued


def test_any_instance_serves_any_student(shared: SharedClass) -> None:
    """A student's key works on every process."""
    key = shared.keys["s00"]
    for instance in shared.instances:
        answer = httpx.post(f"{instance.base_url}/v1/chat/completions", json=chat(max_tokens=16), headers=auth(key))
        assert answer.status_code == 200, answer.text


def test_a_student_added_on_one_instance_is_served_at_once_by_another(shared: SharedClass) -> None:
    """A key issued by one process works on another the moment it is issued."""
    first, second, _ = shared.instances
    key = first.admin("POST", "students", {"student": "late-joiner"}).json()["key"]
    answer = httpx.post(f"{second.base_url}/v1/chat/completions", json=chat(max_tokens=16), headers=auth(key))
    assert answer.status_code == 200, answer.text


def _mixed(rng: random.Random, i: int) -> tuple[str, dict[str, Any]]:
    pick = i % 4
    if pick == 0:
        return "/v1/chat/completions", chat("chat-mini", f"Tell me about {i}", max_tokens=rng.choice([64, 400]))
    if pick == 1:
        return "/v1/chat/completions", chat("chat-reasoner", "Why is the sky blue?", max_tokens=rng.choice([200, 2000]))
    if pick == 2:
        return "/v1/images/generations", {"model": "image-gpt", "prompt": f"a lighthouse {i}", "quality": "low"}
    return "/v1/images/generations", {"model": "image-aspect", "prompt": f"a fox {i}"}


async def _student(urls: list[str], key: str, seed: int) -> list[tuple[int, str]]:
    """(status, error message) of each request, 8 in flight at a time, request i to process i % 3."""
    rng = random.Random(seed)
    limit = asyncio.Semaphore(CONCURRENT_EACH)
    async with httpx.AsyncClient(headers=auth(key), timeout=120) as http:

        async def one(i: int) -> tuple[int, str]:
            path, body = _mixed(rng, i)
            async with limit:
                answer = await http.post(urls[(i + seed) % len(urls)] + path, json=body)
            return answer.status_code, "" if answer.status_code == 200 else answer.json()["error"]["message"]

        return list(await asyncio.gather(*(one(i) for i in range(REQUESTS_EACH))))


def test_no_student_passes_the_cap_whichever_instances_serve_them(shared: SharedClass) -> None:
    """8 requests per student in flight over 3 processes: no cap passed; the reports equal what the gateway charged."""
    before_report = {r["student"]: r for r in shared.instances[0].admin("GET", "report").json()["rows"]}
    before = shared.gateway.spent()
    before_total = sum(r["spent_usd"] for r in before_report.values())
    urls = [instance.base_url for instance in shared.instances]
    names = sorted(shared.keys)

    async def everyone() -> list[Any]:
        return await asyncio.gather(*(_student(urls, shared.keys[name], n) for n, name in enumerate(names)))

    results = dict(zip(names, asyncio.run(everyone())))
    statuses = [status for answers in results.values() for status, _ in answers]
    assert set(statuses) <= {200, 402}, [m for a in results.values() for s, m in a if s not in (200, 402)]
    assert statuses.count(402) >= STUDENTS, statuses.count(402)  # every cap was reached
    reports = [{r["student"]: r for r in i.admin("GET", "report").json()["rows"]} for i in shared.instances]
    assert reports[0] == reports[1] == reports[2]  # every process's report is the whole class
    overshoot = max(reports[0][name]["spent_usd"] - CAP for name in names)
    assert overshoot <= 0, overshoot
    assert all(reports[0][name]["held_usd"] == 0 for name in names)
    total = sum(r["spent_usd"] for r in reports[0].values())
    charged = shared.gateway.spent() - before
    assert abs((total - before_total) - charged) < 1e-6, (total - before_total, charged)
    print(f"\nshared caps: {statuses.count(200)} answered, {statuses.count(402)} refused over 3 processes; worst "
          f"overshoot ${max(0.0, overshoot):.9f} (max spent ${CAP + overshoot:.6f} of ${CAP}); gateway charged "
          f"${charged:.6f}, reports ${total - before_total:.6f}")


def test_pause_reaches_every_instance(shared: SharedClass) -> None:
    """Paused on one process, every process refuses with the reason (and serves again once resumed)."""
    first, *others = shared.instances
    key = shared.keys["s01"]
    started = time.monotonic()
    assert first.admin("POST", "pause", {"reason": "exam"}).status_code == 200
    try:
        for other in others:
            wait_for(lambda: httpx.post(f"{other.base_url}/v1/chat/completions", json=chat(max_tokens=8),
                                        headers=auth(key)).status_code == 503, 10, "the pause on another process")
        print(f"\npause reached the other 2 processes in {time.monotonic() - started:.3f} s")
    finally:
        first.admin("POST", "resume")
    for other in others:
        wait_for(lambda: httpx.post(f"{other.base_url}/v1/chat/completions", json=chat(max_tokens=8),
                                    headers=auth(key)).status_code != 503, 10, "the resume")


def test_a_revocation_reaches_every_instance(shared: SharedClass) -> None:
    """A key revoked on one process is refused by every process."""
    first, *others = shared.instances
    key = first.admin("POST", "students", {"student": "to-revoke"}).json()["key"]
    assert first.admin("POST", "students/to-revoke/revoke").status_code == 200
    for other in others:
        wait_for(lambda: httpx.post(f"{other.base_url}/v1/chat/completions", json=chat(max_tokens=8),
                                    headers=auth(key)).status_code == 401, 10, "the revocation on another process")


def test_a_cap_lowered_on_one_instance_holds_on_another(shared: SharedClass) -> None:
    """A cap set on one process is the cap another process's next hold is checked against."""
    first, second, _ = shared.instances
    key = first.admin("POST", "students", {"student": "capped"}).json()["key"]
    assert first.admin("POST", "students/capped/cap", {"cap_usd": 0}).status_code == 200
    answer = httpx.post(f"{second.base_url}/v1/chat/completions", json=chat(max_tokens=8), headers=auth(key))
    assert answer.status_code == 402, answer.text


def test_an_instance_killed_mid_request_loses_no_charge(shared: SharedClass) -> None:
    """SIGKILL with 4 requests held: the others charge them at their hold, at least what the gateway charged."""
    import threading

    slow = GatewayProcess("--fault-rate", "1", "--faults", "slow", "--slow-seconds", "3")  # every answer after 3 s
    victim = ClassroomProcess(slow, shared.url, shared.folder, "victim", "--cap", str(CAP)).ready()
    key = shared.instances[0].admin("POST", "students", {"student": "killed-mid-request", "cap_usd": 1.0}).json()["key"]
    held = "SELECT count(*) FROM requests WHERE student = 'killed-mid-request' AND status = 'held'"

    def slow_chat() -> None:
        try:
            httpx.post(f"{victim.base_url}/v1/chat/completions", json=chat(max_tokens=300), timeout=30,
                       headers=auth(key))
        except httpx.HTTPError:
            pass  # its classroom was killed

    threads = [threading.Thread(target=slow_chat) for _ in range(4)]
    try:
        for thread in threads:
            thread.start()
        wait_for(lambda: shared.rows(held) == [(4,)], 30, "4 requests held by the victim")
        victim.kill()
        wait_for(lambda: shared.rows(held) == [(0,)], 30, "the others to charge the killed process's holds")
        rows = shared.rows("SELECT status, cost_nanos = hold_nanos FROM requests WHERE student = 'killed-mid-request'")
        assert rows == [("unknown: its classroom process stopped", True)] * 4, rows
        # the sweep came 5 s after the last heartbeat, the gateway's answers 3 s after the requests: whatever it
        # charged for them (it may charge nothing for an answer nobody read) is charged by now
        row = next(r for r in shared.instances[1].admin("GET", "report").json()["rows"]
                   if r["student"] == "killed-mid-request")
        assert row["spent_usd"] >= slow.spent() - 1e-9, (row, slow.spent())
    finally:
        victim.stop()
        for thread in threads:
            thread.join(60)
        slow.close()
