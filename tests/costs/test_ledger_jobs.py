"""Video and music job rows: pending, then completed, failed or cancelled."""

from __future__ import annotations

import pytest

from gatewaykit.costs import Ledger
from ledger_records import records  # noqa: F401  (fixture)


def test_created_job_is_pending_and_not_charged(records):
    """A job row starts pending: not charged, no amount, a note saying billing comes later."""
    ledger = Ledger()
    ledger.record(records.video_created())
    row = ledger.rows[0]
    assert (row["status"], row["cost_source"], row["charged"], row["total_cost"]) == ("queued", "none", False, None)
    assert row["note"] == "pending: billed on completion"


def test_completed_job_is_billed_but_not_reported(records):
    """Completion makes the row charged with cost_source 'not reported' and its seconds."""
    ledger = Ledger()
    ledger.record(records.video_created())
    ledger.update_job("video_1", status="completed", seconds=4)
    row = ledger.rows[0]
    assert (row["status"], row["cost_source"], row["charged"], row["seconds"]) == ("completed", "not reported", True, 4.0)
    assert row["finished_time"] >= row["time"]


def test_completed_job_is_estimated_with_a_price_table(records):
    """With a price table a completed video is 'estimated' from its seconds."""
    ledger = Ledger(prices={"video-tiers": {"per_second": 0.1}})
    ledger.record(records.video_created())
    ledger.update_job("video_1", status="completed", seconds=6)
    row = ledger.rows[0]
    assert row["cost_source"] == "estimated" and row["total_cost"] == pytest.approx(0.6)
    assert ledger.estimated_cost == pytest.approx(0.6)


def test_failed_job_is_not_charged(records):
    """A failed job keeps its error message and is never charged."""
    ledger = Ledger(prices={"music-song": {"per_song": 0.05}})
    ledger.record(records.music_created())
    ledger.update_job("audio_1", status="failed", error_message="generation failed")
    row = ledger.rows[0]
    assert (row["status"], row["cost_source"], row["total_cost"]) == ("failed", "none", 0.0)
    assert row["error_message"] == "generation failed" and ledger.total_cost == 0.0


def test_cancelled_job_is_not_charged(records):
    """A cancelled video is never charged."""
    ledger = Ledger(prices={"video-tiers": {"per_second": 0.1}})
    ledger.record(records.video_created())
    ledger.update_job("video_1", status="cancelled")
    row = ledger.rows[0]
    assert (row["status"], row["charged"], row["total_cost"]) == ("cancelled", False, 0.0)
    assert "never charged" in row["note"]


def test_repeated_update_is_idempotent(records):
    """Reporting the same completion many times changes nothing after the first."""
    ledger = Ledger(prices={"video-tiers": {"per_second": 0.1}})
    ledger.record(records.video_created())
    for _ in range(5):
        ledger.update_job("video_1", status="completed", seconds=4)
    assert len(ledger) == 1 and ledger.total_cost == pytest.approx(0.4)


def test_first_terminal_state_wins(records):
    """'completed' after 'cancelled' keeps the row cancelled and notes the conflict."""
    ledger = Ledger(prices={"video-tiers": {"per_second": 0.1}})
    ledger.record(records.video_created())
    ledger.update_job("video_1", status="cancelled")
    ledger.update_job("video_1", status="completed", seconds=4)
    row = ledger.rows[0]
    assert row["status"] == "cancelled" and ledger.total_cost == 0.0
    assert row["note"] == "later reported completed; kept the first state, cancelled"


def test_non_terminal_update_moves_status_only(records):
    """in_progress after queued updates the status, still pending."""
    ledger = Ledger()
    ledger.record(records.video_created())
    ledger.update_job("video_1", status="in_progress")
    row = ledger.rows[0]
    assert (row["status"], row["charged"]) == ("in_progress", False)


def test_update_before_record_is_applied_when_the_row_arrives(records):
    """A terminal update for an unseen job is held and applied to its row later."""
    ledger = Ledger()
    ledger.update_job("audio_1", status="completed", seconds=30)
    assert len(ledger) == 0
    ledger.record(records.music_created())
    row = ledger.rows[0]
    assert (row["status"], row["seconds"], row["cost_source"]) == ("completed", 30.0, "not reported")


def test_same_job_recorded_twice_keeps_one_row(records):
    """A second record for a known job id is ignored."""
    ledger = Ledger()
    ledger.record(records.video_created())
    ledger.record(records.video_created())
    assert len(ledger) == 1


def test_completion_seconds_filled_by_a_later_report(records):
    """A completion first reported without seconds takes them from a later report."""
    ledger = Ledger(prices={"video-tiers": {"per_second": 0.1}})
    ledger.record(records.video_created(request={"prompt": "x"}))
    ledger.update_job("video_1", status="completed")
    assert ledger.rows[0]["cost_source"] == "not reported"
    ledger.update_job("video_1", status="completed", seconds=8)
    assert ledger.rows[0]["total_cost"] == pytest.approx(0.8)


def test_job_created_already_completed_is_billed(records):
    """A create answer that is already 'completed' is charged at once."""
    ledger = Ledger()
    ledger.record(records.music_created(job_id="audio_9").__class__(
        kind="music", model="music-song", status="completed", id="audio_9"))
    assert ledger.rows[0]["charged"] is True


def test_deleted_and_canceled_mean_cancelled(records):
    """'deleted' and 'canceled' answers to a DELETE are recorded as cancelled."""
    ledger = Ledger()
    ledger.record(records.video_created("video_a"))
    ledger.record(records.video_created("video_b"))
    ledger.update_job("video_a", status="deleted")
    ledger.update_job("video_b", status="canceled")
    assert [r["status"] for r in ledger.rows] == ["cancelled", "cancelled"]
