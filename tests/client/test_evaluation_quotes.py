"""An evaluation's dry-run quote is never below what the run then costs: its chats and its judge's verdicts are
quoted at the longest answer they may get, and the judge reads an output as long as a cell's answer may be."""

from __future__ import annotations

from typing import Any

import gatewaykit as gk

CASES = ["Explain in detail how tides work", "Write a poem about the sea", "List three prime numbers"]


def test_a_judged_chat_evaluation_costs_no_more_than_its_quote(booked_client: gk.Client, book: gk.Ledger) -> None:
    """Cells and judge without max_tokens: the dry run's quote covers the cells' answers and the verdicts."""
    judge = gk.judge(model="chat-reasoner", rubric="Is it correct and clear?")
    quote = booked_client.evaluate(CASES, models=["chat-mini"], scorers=[judge], dry_run=True).quote
    booked_client.evaluate(CASES, models=["chat-mini"], scorers=[judge])
    assert quote is not None and quote.total_cost is not None and book.total_cost <= quote.total_cost, (quote, book)


def test_the_judge_s_quote_reads_an_output_as_long_as_the_cell_s_max_tokens(booked_client: gk.Client) -> None:
    """A judge grading answers of up to 2,000 tokens is quoted for reading them, not the short prompt."""
    judge = gk.judge(model="chat-mini", rubric="Is it clear?")

    def judged(**params: Any) -> float:
        plain = booked_client.evaluate(["Hi"], models=["chat-mini"], dry_run=True, **params).quote
        with_judge = booked_client.evaluate(["Hi"], models=["chat-mini"], scorers=[judge], dry_run=True, **params).quote
        return with_judge.total_cost - plain.total_cost  # type: ignore[operator]

    assert judged(max_tokens=2000) - judged(max_tokens=10) >= 1990 * 0.15 / 1e6  # chat-mini reads at $0.15/M

