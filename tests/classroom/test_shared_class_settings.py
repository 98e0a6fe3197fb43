"""What several classroom processes on one PostgreSQL database share besides the roster: a student added on two at
once, the class's settings (cap, window, models), and the admin token (real classroom processes, a real offline
gateway process, a throwaway cluster)."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any, Iterator

import httpx
import pytest
from classroom_fixtures import auth, wait_for
from shared_class import ClassroomProcess, GatewayProcess


@pytest.fixture(scope="module")
def gateway() -> Iterator[GatewayProcess]:
    process = GatewayProcess()
    try:
        yield process
    finally:
        process.close()


@pytest.fixture
def started(gateway: GatewayProcess, tmp_path: Path) -> Iterator[Any]:
    """start(name, *options): a classroom process on this test's database, read to its start lines."""
    processes: list[ClassroomProcess] = []

    def start(name: str, *options: str, url: str = "") -> ClassroomProcess:
        process = ClassroomProcess(gateway, url, tmp_path, name, *options)
        processes.append(process)
        return process

    try:
        yield start
    finally:
        for process in processes:
            process.stop()


def test_the_same_student_added_on_two_instances_at_once_is_one_student_and_a_409(
        postgres_cluster: Any, started: Any) -> None:
    """Two processes adding the same students at the same moment: one key each, the other answer a clear 409."""
    url = postgres_cluster.url(postgres_cluster.new_database())
    first, second = started("a", url=url).ready(), started("b", url=url).ready()
    names = [f"late{n}" for n in range(15)]
    answers: dict[str, list[httpx.Response]] = {name: [] for name in names}

    def add_all(instance: ClassroomProcess, barrier: threading.Barrier) -> None:
        for name in names:
            barrier.wait()
            answers[name].append(instance.admin("POST", "students", {"student": name}))

    barrier = threading.Barrier(2)
    threads = [threading.Thread(target=add_all, args=(i, barrier)) for i in (first, second)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for name in names:
        codes = sorted(a.status_code for a in answers[name])
        assert codes == [200, 409], (name, [a.text for a in answers[name]])
        [refused] = [a for a in answers[name] if a.status_code == 409]
        error = refused.json()["error"]
        assert error["code"] == "student_exists" and "already in the class" in error["message"], error
        [added] = [a for a in answers[name] if a.status_code == 200]
        key = added.json()["key"]  # the one key issued works on both
        for instance in (first, second):
            wait_for(lambda: httpx.get(f"{instance.base_url}/v1/models", headers=auth(key)).status_code == 200,
                     5, "the key to work")
