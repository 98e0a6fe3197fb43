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

    def start(name: str, *options: str, url: str = "", **more: Any) -> ClassroomProcess:
        process = ClassroomProcess(gateway, url, tmp_path, name, *options, **more)
        processes.append(process)
        return process

    try:
        yield start
    finally:
        for process in processes:
            if process.process.returncode is None:  # (not stopped by the test, nor refused)
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


def _refused(process: ClassroomProcess) -> tuple[int, str]:
    """The exit status and message of a process that did not start."""
    out, err = process.process.communicate(timeout=30)
    return process.process.returncode, out + err


def test_a_start_with_another_cap_while_the_class_runs_is_refused_naming_the_difference(
        postgres_cluster: Any, started: Any) -> None:
    """The first start's --cap/--window/--models are the class's: a second process with another cap is refused."""
    url = postgres_cluster.url(postgres_cluster.new_database())
    started("a", "--cap", "0.05", "--models", "chat-mini,image-gpt", url=url).ready()
    code, said = _refused(started("b", "--cap", "2", "--window", "daily", url=url))
    assert code == 2, said
    assert "--cap 0.05 (this start has 2)" in said and "--window total (this start has daily)" in said, said
    assert "--models chat-mini,image-gpt (this start has all)" in said, said
    assert "1 other classroom process" in said, said


def test_a_start_alone_with_another_cap_makes_it_the_classs_with_a_warning(postgres_cluster: Any,
                                                                          started: Any) -> None:
    """Same settings join; once every process stopped, a start with another cap makes it the class's and says so."""
    url = postgres_cluster.url(postgres_cluster.new_database())
    first = started("a", "--cap", "0.05", url=url).ready()
    second = started("b", "--cap", "0.05", url=url).ready()  # the class's settings: it joins
    first.stop()
    second.stop()
    said = started("c", "--cap", "2", url=url).ready().stop()
    assert "The class's settings in" in said and "changed (--cap 0.05 -> 2)" in said, said
    assert '"cap": 2000000000' in postgres_cluster.execute(
        "SELECT value FROM meta WHERE name = 'class_settings'", url.rsplit("/", 1)[1])[0][0]


def test_a_new_admin_token_on_one_instance_is_accepted_by_every_instance_within_a_second(
        postgres_cluster: Any, started: Any) -> None:
    """--new-admin-token on one process: the others accept the new token within 1 s, and no longer the old one."""
    url = postgres_cluster.url(postgres_cluster.new_database())
    first = started("a", url=url).ready()
    assert first.admin("GET", "status").status_code == 200
    second = started("b", "--new-admin-token", url=url, admin_token=None).ready()
    token = wait_for(lambda: next((line.split("admin token: ")[1].split()[0] for line in second.lines
                                   if line.startswith("admin token: ")), None), 10, "the new token printed")
    began = time.monotonic()
    wait_for(lambda: httpx.get(f"{first.base_url}/_classroom/status", headers=auth(token)).status_code == 200, 1.0,
             "the other process to accept the new token")
    took = time.monotonic() - began
    assert first.admin("GET", "status").status_code == 401  # the old token was replaced
    print(f"\nthe new admin token was accepted by the other process {took:.3f} s after it was printed")
