"""The store interface, one suite for both stores: SQLite (the default) and PostgreSQL (a real throwaway cluster)."""

from __future__ import annotations

import time
from typing import Any, Iterator

import pytest

from gatewaykit.classroom.store import NO_BALANCE, SQLiteStore, StudentExists, day_of

W = "total"


@pytest.fixture(params=["sqlite", "postgres"])
def store(request: Any, tmp_path: Any) -> Iterator[Any]:
    if request.param == "sqlite":
        opened: Any = SQLiteStore(str(tmp_path / "class.db"))
    else:
        from gatewaykit.classroom.postgres_store import PostgresStore

        opened = PostgresStore(request.getfixturevalue("pg_url"))
    try:
        yield opened
    finally:
        opened.close()


def test_students_come_back_in_the_order_they_were_added_with_their_caps(store: Any) -> None:
    """students() lists every student in the order added, with their own cap or None."""
    store.add_student("bo", "d-bo", None)
    store.add_student("al", "d-al", 5_000)
    assert [(s.student, s.key_digest, s.cap_nanos, s.revoked) for s in store.students()] == [
        ("bo", "d-bo", None, False), ("al", "d-al", 5_000, False)]


def test_a_student_added_twice_is_refused_as_already_in_the_class(store: Any) -> None:
    """The same student twice is StudentExists from either store (the first key stays), never a driver error."""
    store.add_student("bo", "d-bo", None)
    with pytest.raises(StudentExists, match="'bo' is already in the class"):
        store.add_student("bo", "d-other", None)
    assert [(s.student, s.key_digest) for s in store.students()] == [("bo", "d-bo")]


def test_a_cap_change_is_kept(store: Any) -> None:
    """set_cap changes the student's own cap (None: the class cap)."""
    store.add_student("bo", "d-bo", 1)
    store.set_cap("bo", 7)
    assert store.students()[0].cap_nanos == 7
    store.set_cap("bo", None)
    assert store.students()[0].cap_nanos is None


def test_a_revoked_key_is_kept_with_its_student_and_a_reissued_key_is_active(store: Any) -> None:
    """revoke() keeps the old key's digest and owner; set_key gives a new active key."""
    store.add_student("bo", "d-old", None)
    store.revoke("bo")
    assert store.students()[0].revoked
    store.set_key("bo", "d-new")
    assert [(s.key_digest, s.revoked) for s in store.students()] == [("d-new", False)]
    assert store.revoked_keys() == [("d-old", "bo")]


def test_a_finished_request_adds_to_the_totals_once(store: Any) -> None:
    """finish_requests makes a held row final and counts it once; settling it again changes nothing."""
    store.add_student("bo", "d-bo", None)
    row = store.open_request("bo", "chat-mini", "chat", 900, W)
    assert store.finish_requests([(row, "ok", 300, "chatcmpl-1")]) == [row]
    assert store.finish_requests([(row, "ok", 300, "chatcmpl-1")]) == []
    assert store.spent("bo", W) == 300
    [total] = store.totals(W)
    assert (total["student"], total["model"], total["spent_nanos"], total["requests"]) == ("bo", "chat-mini", 300, 1)


def test_a_request_refused_for_want_of_paid_balance_counts_apart(store: Any) -> None:
    """A NO_BALANCE row counts in balance_refused, not in requests."""
    store.add_student("bo", "d-bo", None)
    row = store.open_request("bo", "chat-mini", "chat", 900, W)
    store.finish_requests([(row, NO_BALANCE, 0, None)])
    [total] = store.totals(W)
    assert (total["requests"], total["balance_refused"], total["spent_nanos"]) == (0, 1, 0)


def test_refusals_are_counted_per_student_and_model(store: Any) -> None:
    """count_refusal adds one refused to the student's row for that model."""
    store.add_student("bo", "d-bo", None)
    store.count_refusal("bo", "-", W)
    store.count_refusal("bo", "-", W)
    [total] = store.totals(W)
    assert (total["model"], total["refused"], total["requests"]) == ("-", 2, 0)


def test_a_students_day_counts_requests_spend_refusals_and_cap_hits(store: Any) -> None:
    """days() sums a student's settled requests, their spend, refusals and cap hits under today's local date."""
    store.add_student("bo", "d-bo", None)
    for cost in (300, 200):
        row = store.open_request("bo", "chat-mini", "chat", 900, W)
        store.finish_requests([(row, "ok", cost, None)])
    store.count_refusal("bo", "-", W)
    store.count_refusal("bo", "chat-mini", W, cap_hit=True)
    [day] = store.days(W)
    assert (day["student"], day["day"]) == ("bo", day_of(time.time()))
    assert (day["spent_nanos"], day["requests"], day["refused"], day["cap_hits"]) == (500, 2, 2, 1)


def test_open_holds_name_the_held_rows_and_their_jobs(store: Any) -> None:
    """open_holds lists held rows (a job's with its id and price); a settled row is not among them."""
    store.add_student("bo", "d-bo", None)
    chat = store.open_request("bo", "chat-mini", "chat", 10, W)
    video = store.open_request("bo", "video-fast", "video", 500, W)
    store.attach_job(video, "video_1", "video", 400)
    done = store.open_request("bo", "chat-mini", "chat", 10, W)
    store.finish_request(done, "ok", 5)
    holds = store.open_holds()
    assert [(h.row_id, h.job_id, h.price_nanos, h.hold_nanos) for h in holds] == [
        (chat, None, None, 10), (video, "video_1", 400, 500)]
    assert store.job("video_1") == ("bo", "video", video)
    assert store.job("video_2") is None


def test_meta_values_are_kept_and_cleared(store: Any) -> None:
    """set_meta/get_meta keep a value; None clears it."""
    assert store.get_meta("paused") is None
    store.set_meta("paused", "1")
    assert store.get_meta("paused") == "1"
    store.set_meta("paused", None)
    assert store.get_meta("paused") is None


def test_totals_are_per_window(store: Any) -> None:
    """A row settles in the window it was held in; another window's totals do not see it."""
    store.add_student("bo", "d-bo", None)
    row = store.open_request("bo", "chat-mini", "chat", 10, "2026-12-07")
    store.finish_request(row, "ok", 4)
    assert store.spent("bo", "2026-12-07") == 4
    assert store.spent("bo", "2026-12-08") == 0
    assert store.totals("2026-12-08") == []


def test_a_request_charged_at_its_hold_for_an_unknown_outcome_is_counted_as_unknown(store: Any) -> None:
    """An UNKNOWN row counts in requests, unknown and unknown_nanos; request_cost reads what it was charged."""
    from gatewaykit.classroom.store import UNKNOWN

    store.add_student("bo", "d-bo", None)
    row = store.open_request("bo", "chat-mini", "chat", 900, W)
    assert store.request_cost(row) is None  # still held
    store.finish_request(row, f"{UNKNOWN}: timed out", 900)
    [total] = store.totals(W)
    assert (total["requests"], total["unknown"], total["unknown_nanos"], total["spent_nanos"]) == (1, 1, 900, 900)
    assert store.request_cost(row) == 900


def test_the_audit_log_keeps_actions_in_order(store: Any) -> None:
    """add_audit rows come back oldest first with their time, student, detail and origin."""
    store.add_audit(10.0, "pause", None, '{"reason": "exam"}', "cli")
    store.add_audit(11.0, "set cap", "bo", '{"cap_usd": 3.0}', "notebook")
    assert store.audit_rows() == [
        {"at": 10.0, "action": "pause", "student": None, "detail": '{"reason": "exam"}', "origin": "cli"},
        {"at": 11.0, "action": "set cap", "student": "bo", "detail": '{"cap_usd": 3.0}', "origin": "notebook"}]


def test_schedules_are_kept_in_time_order_and_an_override_is_kept(store: Any) -> None:
    """add_schedule returns an id; schedule_rows are by start; override_schedule marks one."""
    late = store.add_schedule(300.0, 400.0, "second")
    early = store.add_schedule(100.0, 200.0, None)
    store.override_schedule(late)
    assert [(r["id"], r["start"], r["end"], r["reason"], bool(r["overridden"])) for r in store.schedule_rows()] == [
        (early, 100.0, 200.0, None, False), (late, 300.0, 400.0, "second", True)]


def test_a_request_held_under_an_assignment_adds_to_its_totals(store: Any) -> None:
    """An assignment and its models are kept; a finished request that names it adds to assignment_totals, and
    count_assignment_refusal to its refused."""
    store.add_student("bo", "d-bo", None)
    store.add_assignment("hw1", 500, 10.0, None, ["chat-mini"])
    assert store.assignment_rows() == [{"name": "hw1", "cap_nanos": 500, "start": 10.0, "end": None,
                                        "models": ["chat-mini"]}]
    # a shared store takes a hold in one statement (hold); SQLite through open_request
    held = store.hold("bo", "chat-mini", "chat", 100, W, 10_000, "hw1") if hasattr(store, "hold") else \
        store.open_request("bo", "chat-mini", "chat", 100, W, "hw1")
    assert [h.assignment for h in store.open_holds()] == ["hw1"]
    store.finish_requests([(held, "ok", 40, None)])
    store.count_assignment_refusal("hw1", "bo")
    assert store.assignment_spent("hw1", "bo") == 40
    assert store.assignment_totals() == [{"assignment": "hw1", "student": "bo", "spent_nanos": 40, "requests": 1,
                                          "refused": 1}]


def test_a_cap_raise_is_kept_and_ends_to_the_cap_before_it(store: Any) -> None:
    """set_cap_raise sets the student's cap and keeps the one before; end_cap_raise(restore=True) puts it back."""
    store.add_student("bo", "d-bo", 100)
    store.set_cap_raise("bo", 900, 50.0, 100)
    assert store.students()[0].cap_nanos == 900
    assert store.cap_raise_rows() == [{"student": "bo", "cap_nanos": 900, "until": 50.0, "previous_nanos": 100}]
    store.end_cap_raise("bo", restore=True)
    assert store.students()[0].cap_nanos == 100 and store.cap_raise_rows() == []


def test_kept_prompts_are_purged_before_a_time(store: Any) -> None:
    """add_prompt rows come back in order; purge_prompts deletes those older than the time given."""
    store.add_prompt(10.0, "p1", "chat-mini", "chat", "user: old", "an answer")
    store.add_prompt(20.0, "p1", "image-gpt", "image", "a cat", "[image/png, 10 bytes]")
    assert store.purge_prompts(15.0) == 1
    assert store.prompt_rows() == [{"at": 20.0, "pseudonym": "p1", "model": "image-gpt", "kind": "image",
                                    "prompt": "a cat", "answer": "[image/png, 10 bytes]"}]
