"""Columns of a ledger row, and the cost source of each kind of outcome."""

from __future__ import annotations

import math

import pytest

from gatewaykit.costs import COLUMNS, KINDS, CostRecord, Ledger
from ledger_records import records  # noqa: F401  (fixture)


def test_columns_cover_the_issue_list():
    """The row schema has every column the ledger promises."""
    wanted = {
        "time", "kind", "model", "status", "id", "prompt_tokens", "completion_tokens",
        "reasoning_tokens", "cached_tokens", "total_tokens", "images", "seconds", "total_cost",
        "input_tokens_cost", "output_tokens_cost", "reasoning_tokens_cost", "citation_tokens_cost",
        "search_queries_cost", "request_cost", "cost_source", "charged", "latency", "tags", "offline",
        "attempts", "http_status", "error_code", "error_message", "finished_time", "note",
    }
    assert wanted <= set(COLUMNS)


def test_reported_chat_fills_tokens_and_cost(records):
    """A chat answer's usage lands in token and cost columns, cost_source reported."""
    ledger = Ledger()
    usage = records.chat_usage(cost=0.003, prompt=100, completion=40, reasoning=12, cached=30)
    ledger.record(CostRecord("chat", "chat-reasoner", "ok", id="chatcmpl-9", usage=usage, latency=0.25, attempts=2))
    row = ledger.rows[0]
    assert (row["prompt_tokens"], row["completion_tokens"], row["total_tokens"]) == (100, 40, 140)
    assert (row["reasoning_tokens"], row["cached_tokens"]) == (12, 30)
    assert row["total_cost"] == 0.003 and row["input_tokens_cost"] == pytest.approx(0.001)
    assert (row["cost_source"], row["charged"], row["id"]) == ("reported", True, "chatcmpl-9")
    assert (row["latency"], row["attempts"]) == (0.25, 2)


def test_cached_read_tokens_used_when_cached_tokens_absent():
    """cached_read_tokens stands in for cached_tokens when only it is given."""
    ledger = Ledger()
    usage = {"prompt_tokens": 5, "prompt_tokens_details": {"cached_read_tokens": 4}, "cost": {"total_cost": 0.1}}
    ledger.record(CostRecord("chat", "chat-mini", "ok", usage=usage))
    assert ledger.rows[0]["cached_tokens"] == 4


def test_image_row_counts_images(records):
    """An image generation records its image count and reported cost."""
    ledger = Ledger()
    ledger.record(records.image_ok(cost=0.08, images=2))
    ledger.record(records.image_ok(cost=0.05, kind="image.edit"))
    rows = ledger.rows
    assert [(r["kind"], r["images"], r["total_cost"]) for r in rows] == [
        ("image.generate", 2, 0.08),
        ("image.edit", 1, 0.05),
    ]


def test_ok_without_cost_is_not_reported():
    """A charged answer that carried no cost is 'not reported' with an unknown amount."""
    ledger = Ledger()
    ledger.record(CostRecord("chat.stream", "chat-mini", "ok", usage=None))
    row = ledger.rows[0]
    assert (row["cost_source"], row["charged"], row["total_cost"]) == ("not reported", True, None)
    assert ledger.total_cost == 0.0


def test_http_error_is_not_charged(records):
    """A 429 (or any HTTP error) is a row with cost_source none and cost 0."""
    ledger = Ledger()
    ledger.record(records.http_error(429, "rate_limit_exceeded", error_message="slow down"))
    row = ledger.rows[0]
    assert (row["status"], row["http_status"], row["error_code"]) == ("error", 429, "rate_limit_exceeded")
    assert (row["cost_source"], row["charged"], row["total_cost"]) == ("none", False, 0.0)


def test_error_with_a_cost_in_its_body_still_counts_nothing():
    """An error row never adds to the total, whatever usage it carried."""
    ledger = Ledger()
    ledger.record(CostRecord("chat", "chat-mini", "error", http_status=400, usage={"cost": {"total_cost": 1.0}}))
    assert ledger.total_cost == 0.0 and ledger.rows[0]["cost_source"] == "none"


def test_interrupted_stream_says_so():
    """A stream cut before its usage is not counted, its charge is unknown, and its note says why."""
    ledger = Ledger()
    ledger.record(CostRecord("chat.stream", "chat-mini", "interrupted", error_message="connection dropped"))
    row = ledger.rows[0]
    assert (row["cost_source"], row["charged"], row["total_cost"]) == ("unknown", None, None)
    assert "unknown" in row["note"]


def test_offline_flag_is_kept(records):
    """Rows from the offline gateway are flagged offline."""
    ledger = Ledger()
    ledger.record(records.chat_ok(offline=True))
    ledger.record(records.chat_ok())
    assert [r["offline"] for r in ledger.rows] == [True, False]


def test_total_cost_sums_reported_costs_exactly(records):
    """total_cost is the exact (fsum) sum of reported costs."""
    ledger = Ledger()
    costs = [0.1, 0.2, 0.3, 1e-7, 0.0012]
    for cost in costs:
        ledger.record(records.chat_ok(cost=cost))
    assert ledger.total_cost == math.fsum(costs)
    assert ledger.reported_cost == ledger.total_cost and ledger.estimated_cost == 0.0


def test_rows_are_copies(records):
    """Changing a dict from ledger.rows does not change the ledger."""
    ledger = Ledger()
    ledger.record(records.chat_ok(cost=0.5))
    ledger.rows[0]["total_cost"] = 99.0
    assert ledger.total_cost == 0.5


def test_every_kind_is_accepted(records):
    """Each kind of the protocol records one row."""
    ledger = Ledger()
    for kind in KINDS:
        ledger.record(CostRecord(kind, "m", "error", http_status=400))
    assert [r["kind"] for r in ledger.rows] == list(KINDS)


def test_clear_forgets_rows(records):
    """clear() empties the ledger."""
    ledger = Ledger()
    ledger.record(records.chat_ok())
    ledger.clear()
    assert len(ledger) == 0 and ledger.total_cost == 0.0


def test_record_holds_no_request_body(records):
    """The request (prompts, messages) is not a column and not in rows."""
    ledger = Ledger()
    ledger.record(CostRecord("chat", "chat-mini", "ok", request={"messages": [{"content": "secret"}]}))
    assert "secret" not in repr(ledger.rows)


@pytest.mark.parametrize(
    ("current", "reported", "missing_seconds", "expected"),
    [
        ("queued", "in_progress", False, "advance"),
        ("in_progress", "in_progress", False, "ignore"),
        ("in_progress", "completed", False, "finish"),
        ("queued", "cancelled", False, "finish"),
        ("completed", "completed", False, "ignore"),
        ("completed", "completed", True, "finish"),
        ("failed", "failed", True, "ignore"),
        ("completed", "failed", False, "conflict"),
        ("completed", "in_progress", False, "ignore"),
    ],
)
def test_job_transition_is_the_ledger_state_machine(current, reported, missing_seconds, expected):
    """job_transition says what a job row does with a reported status (pure, no ledger needed)."""
    from gatewaykit.costs.rows import job_transition

    assert job_transition(current, reported, missing_seconds=missing_seconds) == expected
