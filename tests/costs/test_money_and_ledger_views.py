"""What a reader sees of costs: money formatting, unknown costs, plurals, the labelled chart, summary()."""

from __future__ import annotations

import base64

import pytest
from bs4 import BeautifulSoup

from gatewaykit.costs import Ledger
from gatewaykit.money import format_usd, plural
from ledger_records import records  # noqa: F401  (fixture)


@pytest.mark.parametrize(
    ("usd", "text"),
    [
        (0, "$0.00"),
        (2, "$2.00"),
        (1234.5, "$1,234.50"),
        (0.5, "$0.50"),
        (0.0013, "$0.0013"),
        (0.000123, "$0.000123"),
        (1.5e-9, "$0.0000000015"),
        (0.99999, "$1.00"),
    ],
)
def test_format_usd_reads_like_money(usd: float, text: str) -> None:
    """Cents from a dollar up, up to three significant digits below, never scientific notation."""
    assert format_usd(usd) == text


def test_plural() -> None:
    """1 job, 2 jobs, 0 jobs."""
    assert (plural(1, "job"), plural(2, "job"), plural(0, "job")) == ("1 job", "2 jobs", "0 jobs")


def _unreported_job_ledger(records, jobs: int = 1) -> Ledger:
    """Chat costs plus video jobs that completed with no amount reported (no price table)."""
    ledger = Ledger(path=None)
    ledger.record(records.chat_ok(cost=0.0013))
    for number in range(jobs):
        ledger.record(records.video_created(job_id=f"video_{number}"))
        ledger.update_job(f"video_{number}", status="completed", seconds=4)
    return ledger


def _soup(ledger: Ledger) -> BeautifulSoup:
    return BeautifulSoup(ledger._repr_mimebundle_()["text/html"], "html.parser")


def _recent_table(soup: BeautifulSoup) -> list[dict[str, str]]:
    table = soup.find_all("table")[-1]
    header = [th.get_text() for th in table.find_all("th")]
    return [dict(zip(header, (td.get_text() for td in tr.find_all("td")))) for tr in table.tbody.find_all("tr")]


def test_unreported_job_cost_says_not_reported(records) -> None:
    """A job billed with no amount shows "not reported" in its row, never $0.000000 or $0.00."""
    rows = _recent_table(_soup(_unreported_job_ledger(records)))
    video = next(row for row in rows if row["kind"] == "video")
    assert video["cost"] == "not reported"
    assert next(row for row in rows if row["kind"] == "chat")["cost"] == "$0.0013"


def test_totals_say_what_they_leave_out(records) -> None:
    """The headline adds "+ 2 jobs of unknown cost" to the total."""
    text = _soup(_unreported_job_ledger(records, jobs=2)).find("p").get_text()
    assert "total $0.0013 + 2 jobs of unknown cost" in text


def test_counts_are_pluralised(records) -> None:
    """One request and one pending job read "1 request" and "1 job pending"."""
    ledger = Ledger(path=None)
    ledger.record(records.video_created())
    bundle = ledger._repr_mimebundle_()
    headline = BeautifulSoup(bundle["text/html"], "html.parser").find("p").get_text()
    assert "1 request (" in headline and "1 job pending" in headline and "jobs" not in headline
    assert "1 requests" not in bundle["text/plain"] and repr(ledger).startswith("<Ledger 1 row,")


def test_pending_job_cost_says_pending(records) -> None:
    """A job still running shows "pending", not an amount."""
    ledger = Ledger(path=None)
    ledger.record(records.video_created())
    assert _recent_table(_soup(ledger))[0]["cost"] == "pending"


def test_header_chart_is_labelled(records) -> None:
    """The cumulative chart carries a title, both axis ends in money, and the time span."""
    ledger = Ledger(path=None)
    ledger.record(records.chat_ok(cost=0.25, time=1_700_000_000.0))
    ledger.record(records.chat_ok(cost=0.5, time=1_700_000_600.0))
    image = _soup(ledger).find("img", class_="gk-ledger-chart")  # an <img>: sanitizers keep it
    svg = BeautifulSoup(base64.b64decode(image["src"].split(",", 1)[1]), "html.parser").find("svg")
    labels = [text.get_text() for text in svg.find_all("text")]
    assert "cumulative cost (USD)" in labels and "$0.75" in labels and "$0.00" in labels
    assert any(label.endswith("UTC") for label in labels) and svg.find("title")


def test_summary_displays_compactly_and_keeps_every_column(records) -> None:
    """summary() shows a few columns with money text; the frame still has every column."""
    summary = _unreported_job_ledger(records).summary()
    assert {"prompt_tokens", "reported_cost", "estimated_cost"} <= set(summary.columns)
    table = BeautifulSoup(summary._repr_html_(), "html.parser").find("table")
    header = [th.get_text() for th in table.find_all("th")]
    assert header == ["model", "kind", "requests", "charged", "tokens", "cost"]
    costs = [tr.find_all("td")[-1].get_text() for tr in table.tbody.find_all("tr")]
    assert costs == ["$0.0013", "1 job of unknown cost"]
    assert "reported_cost" not in repr(summary)


def test_ledger_views_keep_mathjax_off_amounts(records) -> None:
    """The ledger and summary HTML opt out of MathJax, which would typeset "$0.01 ... $0.02" as LaTeX."""
    ledger = _unreported_job_ledger(records)
    for html in (ledger._repr_html_(), ledger.summary()._repr_html_()):
        outer = BeautifulSoup(html, "html.parser").find("div")
        assert {"tex2jax_ignore", "mathjax_ignore"} <= set(outer["class"])


def test_summary_slices_are_plain_frames(records) -> None:
    """A slice of summary() is an ordinary DataFrame."""
    import pandas as pd

    summary = _unreported_job_ledger(records).summary()
    assert type(summary[summary.requests > 0]) is pd.DataFrame


def test_pending_jobs_read_pending_in_group_costs(records) -> None:
    """A model whose only job is still running shows "1 job pending", not $0.00, in summary() and the ledger."""
    ledger = Ledger(path=None)
    ledger.record(records.music_created())
    table = BeautifulSoup(ledger.summary()._repr_html_(), "html.parser").find("table")
    assert table.tbody.find_all("td")[-1].get_text() == "1 job pending"
    assert "music-song music: 1 request, 1 job pending" in ledger._repr_mimebundle_()["text/plain"]
