"""A class in PostgreSQL from ``start(db="postgresql://...")``: the password never shown, a database that goes
away answered 503 naming it (nothing forwarded), recovered by itself, the schema made once under a lock, and a
killed process's held requests charged by the others."""

from __future__ import annotations

import logging
import threading
from typing import Any

import httpx
import pytest
from classroom_fixtures import auth, chat, upstream_spent, wait_for
from postgres_cluster import PASSWORD, PASSWORD_USER


def test_the_password_is_never_printed_logged_or_answered(postgres_cluster: Any, rooms: Any, capsys: Any,
                                                           caplog: Any, monkeypatch: Any) -> None:
    """A URL with a password works; no start line, repr, status, report, log line or error shows the password."""
    caplog.set_level(logging.DEBUG)
    database = postgres_cluster.new_database(owner=PASSWORD_USER)
    url = postgres_cluster.url(database, PASSWORD_USER, PASSWORD)
    room = rooms(roster=["ana"], db=url)
    key = room.keys.key[0]
    assert httpx.post(f"{room.base_url}/v1/chat/completions", json=chat(), headers=auth(key)).status_code == 200
    seen = [capsys.readouterr().out, repr(room), str(room.db), repr(room._state.store), str(room.status()),
            str(room.report_rows()), caplog.text]
    from gatewaykit.classroom.postgres_store import PostgresStore
    from gatewaykit.classroom.store import DatabaseUnavailable

    with pytest.raises(DatabaseUnavailable) as refused:  # a wrong password: the error names the URL, not it
        PostgresStore(postgres_cluster.url(database, PASSWORD_USER, PASSWORD + "x"))
    seen.append(str(refused.value))
    assert postgres_cluster.url(database, PASSWORD_USER) in seen[0]  # where the class is kept, named
    assert not [text for text in seen if PASSWORD in text]


def test_the_password_may_come_from_pgpassword(postgres_cluster: Any, monkeypatch: Any) -> None:
    """A URL without a password connects with PGPASSWORD."""
    from gatewaykit.classroom.postgres_store import PostgresStore
    from gatewaykit.classroom.store import DatabaseUnavailable

    url = postgres_cluster.url(postgres_cluster.new_database(owner=PASSWORD_USER), PASSWORD_USER)
    with pytest.raises(DatabaseUnavailable):
        PostgresStore(url)
    monkeypatch.setenv("PGPASSWORD", PASSWORD)
    PostgresStore(url).close()


def test_two_stores_starting_at_once_make_the_schema_once(pg_url: str) -> None:
    """Eight stores opening an empty database together: one schema, version 1, no error."""
    from gatewaykit.classroom.postgres_store import SCHEMA_VERSION, PostgresStore

    opened: list[Any] = []
    errors: list[BaseException] = []

    def open_one() -> None:
        try:
            opened.append(PostgresStore(pg_url))
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=open_one) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    try:
        assert not errors, errors
        assert opened[0]._all("SELECT version FROM schema_version") == [(SCHEMA_VERSION,)]
    finally:
        for store in opened:
            store.close()


def test_a_database_gone_away_is_a_503_naming_it_and_the_class_recovers(postgres_cluster: Any, pg_url: str,
                                                                          upstream: Any, rooms: Any) -> None:
    """Database down: 503 naming it, nothing forwarded or charged; back up: requests served again."""
    room = rooms(roster=["ana"], db=pg_url)
    key = room.keys.key[0]
    assert httpx.post(f"{room.base_url}/v1/chat/completions", json=chat(), headers=auth(key)).status_code == 200
    charged = upstream_spent(upstream)
    postgres_cluster.pause_server()
    try:
        answer = httpx.post(f"{room.base_url}/v1/chat/completions", json=chat(), headers=auth(key), timeout=30)
        assert answer.status_code == 503, answer.text
        error = answer.json()["error"]
        assert error["code"] == "class_database_unavailable"
        assert pg_url in error["message"] and "nothing was sent" in error["message"]
        assert upstream_spent(upstream) == charged
    finally:
        postgres_cluster.resume_server()
    wait_for(lambda: httpx.post(f"{room.base_url}/v1/chat/completions", json=chat(),
                                headers=auth(key)).status_code == 200, 30, "the class to serve again")


def test_each_due_job_is_claimed_by_one_store_and_taken_over_when_its_lease_ends(pg_url: str) -> None:
    """Two stores claiming at once never get the same job; once the claim's time passes, another store gets it."""
    from gatewaykit.classroom.postgres_store import PostgresStore

    first, second = PostgresStore(pg_url), PostgresStore(pg_url)
    try:
        first.add_student("ana", "d-ana", None)
        for n in range(6):
            row = first.open_request("ana", "video-fast", "video", 100, "total")
            first.attach_job(row, f"video_{n}", "video", 90)
        a, b = first.claim_jobs(every=0.5, limit=3), second.claim_jobs(every=0.5, limit=10)
        assert len(a) == 3 and len(b) == 3
        assert not {h.job_id for h in a} & {h.job_id for h in b}
        assert first.claim_jobs(every=0.5) == []  # all claimed until their time passes
        taken: set[str] = set()
        wait_for(lambda: taken.update(h.job_id for h in second.claim_jobs(every=30)) or len(taken) == 6, 10,
                 "every claim to lapse and be taken by the second store")
        assert taken == {f"video_{n}" for n in range(6)}
    finally:
        first.close()
        second.close()


def test_a_stopped_processs_held_requests_are_charged_at_their_hold_by_another(pg_url: str) -> None:
    """Held rows of a process whose heartbeat stopped are charged at their hold; a live process's are left."""
    from gatewaykit.classroom.postgres_store import PostgresStore

    gone, alive, sweeper = (PostgresStore(pg_url, dead_after=0.5) for _ in range(3))
    try:
        gone.add_student("ana", "d-ana", None)
        lost = gone.hold("ana", "chat-mini", "chat", 700, "total", 10_000)
        kept = alive.hold("ana", "chat-mini", "chat", 300, "total", 10_000)
        assert lost is not None and kept is not None
        gone._conn.close()  # it stops beating (as a SIGKILL would stop it)

        def swept() -> Any:
            alive.heartbeat()
            return sweeper.settle_abandoned()

        assert wait_for(swept, 10, "the stopped process's row to be charged") == [lost]
        assert sweeper.standing("ana", "total", 10_000) == (700, 300, 10_000)
        assert sweeper.held_row(kept) == 300
    finally:
        for store in (gone, alive, sweeper):
            store.close()


def test_a_pause_on_one_instance_cancels_the_videos_another_instance_created(pg_url: str) -> None:
    """Every instance's status counts the class's running jobs, and pause(cancel_jobs) cancels any instance's."""
    from classroom_fixtures import open_room, start_upstream

    with start_upstream(time_scale=1.0) as slow:
        first = open_room(slow, roster=["ana"], db=pg_url, announce=False)
        second = open_room(slow, db=pg_url, announce=False)
        try:
            answer = httpx.post(f"{first.base_url}/v1/videos", headers=auth(first.keys.key[0]),
                                json={"model": "video-tiers", "prompt": "waves", "resolution": "480p"})
            assert answer.status_code == 200, answer.text
            assert second.status()["open_jobs"] == 1
            assert second.pause("out of time", cancel_jobs=True)["cancelled_jobs"] == 1
            assert [(r["held_usd"], r["spent_usd"]) for r in second.report_rows()] == [(0, 0)]
        finally:
            second.stop()
            first.stop()
        assert upstream_spent(slow) == 0


def test_a_database_gone_while_an_answer_is_recorded_says_the_request_is_charged_at_its_hold(
        postgres_cluster: Any) -> None:
    """The database stops while the gateway answers: 503 saying it was answered and is charged at its hold."""
    from classroom_fixtures import open_room, start_upstream

    url = postgres_cluster.url(postgres_cluster.new_database())
    with start_upstream(fault_rate=1.0, fault_kinds=("slow",), slow_seconds=2.0) as slow:
        room = open_room(slow, roster=["ana"], db=url, announce=False)
        answers: list[httpx.Response] = []
        asking = threading.Thread(target=lambda: answers.append(httpx.post(
            f"{room.base_url}/v1/chat/completions", json=chat(), headers=auth(room.keys.key[0]), timeout=60)))
        try:
            asking.start()
            wait_for(lambda: postgres_cluster.execute("SELECT count(*) FROM requests WHERE status = 'held'",
                                                      url.rsplit("/", 1)[1]) == [(1,)], 30, "the request held")
            postgres_cluster.pause_server()
            asking.join(60)
        finally:
            postgres_cluster.resume_server()
            room.stop()
    [answer] = answers
    assert answer.status_code == 503, answer.text
    assert "could not record it" in answer.json()["error"]["message"] and url in answer.json()["error"]["message"]


def test_a_window_an_assignment_and_a_raise_made_on_one_instance_reach_another(pg_url: str, upstream: Any) -> None:
    """On a class in PostgreSQL, a scheduled pause, an assignment and a cap raise made through one instance are
    applied by another within a second; both write one audit log."""
    from classroom_fixtures import open_room

    first = open_room(upstream, roster=["ana"], cap=0.5, db=pg_url, announce=False)
    second = open_room(upstream, cap=0.5, db=pg_url, announce=False)
    try:
        key = first.keys.key[0]

        def status_on_second() -> int:
            return httpx.post(f"{second.base_url}/v1/chat/completions", json=chat(max_tokens=5),
                              headers=auth(key)).status_code

        first.add_assignment("hw1", cap=0.25)
        first.set_cap("ana", 2.0, until="2099-01-01T00:00")
        wait_for(lambda: second.report_rows(by="assignment") and second.report_rows()[0]["cap_usd"] == 2.0, 5,
                 "the assignment and the raise on the second instance")
        assert status_on_second() == 200
        assert second.report_rows(by="assignment")[0]["requests"] == 1
        first.schedule_pause("2000-01-01T00:00", "2099-01-01T00:00", reason="exam")
        wait_for(lambda: status_on_second() == 503, 2, "the window on the second instance")
        assert [a for a in second.audit().action] == ["add assignment", "set cap", "schedule pause"]
    finally:
        second.stop()
        first.stop()
