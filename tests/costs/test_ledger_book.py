"""The row book alone: rows, jobs and settlement, with no lock, no file and no ledger."""

from __future__ import annotations

import pytest

from gatewaykit.costs.book import RowBook
from gatewaykit.costs.pricing import PriceTable
from gatewaykit.costs.records import CostRecord
from gatewaykit.costs.rows import row_from_record

VIDEO_PRICES = PriceTable({"video-tiers": {"per_second": 0.1}})


def _video(job_id: str = "video_1"):
    return row_from_record(CostRecord("video", "video-tiers", "queued", id=job_id, request={"duration": 4}))


def _chat(cost):
    return row_from_record(CostRecord("chat", "chat-mini", "ok", usage={"cost": {"total_cost": cost}}))


def test_a_row_is_added_once_by_uid():
    """The same uid twice is one row."""
    book = RowBook(None)
    assert book.add("u1", _chat(0.5)) and not book.add("u1", _chat(0.5))
    assert len(book) == 1 and book.spent == 0.5


def test_a_job_is_one_row_under_any_uid():
    """A job id seen under a second uid is the same row."""
    book = RowBook(None)
    book.add("u1", _video())
    assert not book.add("u2", _video()) and len(book) == 1


def test_a_completed_job_is_priced_and_counted():
    """queued -> completed: estimated from the price source, added to spent; its pending estimate goes."""
    book = RowBook(VIDEO_PRICES)
    book.add("u1", _video())
    assert book.pending_total == pytest.approx(0.4) and book.spent == 0
    assert book.update("video_1", "completed", 4.0, None, 1.0)
    assert book.spent == pytest.approx(0.4) and book.pending_total == 0
    assert book.rows[0].cost_source == "estimated"


def test_an_update_before_its_row_is_held():
    """A terminal update for an unseen job applies when its row arrives."""
    book = RowBook(None)
    assert book.update("video_1", "failed", None, "boom", 1.0)
    book.add("u1", _video())
    assert book.rows[0].status == "failed" and book.rows[0].error_message == "boom"


def test_the_first_terminal_state_wins():
    """cancelled then completed keeps cancelled and notes the conflict."""
    book = RowBook(None)
    book.add("u1", _video())
    book.update("video_1", "cancelled", None, None, 1.0)
    assert book.update("video_1", "completed", 4.0, None, 2.0)
    assert book.rows[0].status == "cancelled" and "kept the first state" in book.rows[0].note


def test_memory_rows_are_what_no_store_holds():
    """Rows added in_memory are listed by memory_items(); their jobs by memory_jobs."""
    book = RowBook(None)
    book.add("u1", _chat(0.1))
    book.add("u2", _video(), in_memory=True)
    assert [item[0] for item in book.memory_items()] == ["u2"] and book.memory_jobs == {"video_1"}
