"""DataFrame, summary, per-day, chart and file views of the ledger."""

from __future__ import annotations

import math
import subprocess
import sys

import pytest

from gatewaykit.costs import COLUMNS, CostRecord, Ledger
from ledger_records import records  # noqa: F401  (fixture)


@pytest.fixture
def mixed(records):
    ledger = Ledger(prices={"video-tiers": {"per_second": 0.1}})
    ledger.record(records.chat_ok(cost=0.002))
    ledger.record(records.chat_ok(cost=0.003, model="chat-reasoner"))
    ledger.record(records.image_ok(cost=0.04, images=2))
    ledger.record(records.http_error())
    ledger.record(records.video_created())
    ledger.update_job("video_1", status="completed", seconds=4)
    with ledger.tag("exp"):
        ledger.record(records.chat_ok(cost=0.005, offline=True))
    return ledger


def test_import_loads_no_pandas_or_matplotlib():
    """Importing gatewaykit.costs (and recording) loads neither pandas nor matplotlib nor IPython."""
    code = (
        "import sys, gatewaykit.costs as c;"
        "c.ledger.record(c.CostRecord('chat','m','ok'));"
        "print(sorted(m for m in ('pandas','matplotlib','IPython','numpy') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_to_pandas_has_every_column_and_utc_time(mixed):
    """to_pandas() has one row per record, COLUMNS in order, time as UTC datetime."""
    frame = mixed.to_pandas()
    assert list(frame.columns) == list(COLUMNS) and len(frame) == 6
    assert str(frame["time"].dt.tz) == "UTC"
    assert frame["total_cost"].sum() == pytest.approx(mixed.total_cost)
    assert frame["prompt_tokens"].dtype.name == "Int64"


def test_to_pandas_of_empty_ledger():
    """An empty ledger gives an empty frame with the columns."""
    frame = Ledger().to_pandas()
    assert len(frame) == 0 and list(frame.columns) == list(COLUMNS)


def test_summary_per_model_and_kind(mixed):
    """summary() counts requests, charged requests, tokens and cost per model and kind."""
    summary = mixed.summary()
    row = summary[(summary.model == "chat-mini") & (summary.kind == "chat") & ~summary.offline].iloc[0]
    assert (row.requests, row.charged, row.not_charged) == (2, 1, 1)
    assert row.total_cost == pytest.approx(0.002) and row.total_tokens == 15
    video = summary[summary.model == "video-tiers"].iloc[0]
    assert video.estimated_cost == pytest.approx(0.4)
    assert summary.total_cost.sum() == pytest.approx(mixed.total_cost)


def test_summary_keeps_offline_costs_apart(mixed):
    """Synthetic (offline) rows form their own summary group."""
    summary = mixed.summary(by="model")
    chat = summary[summary.model == "chat-mini"]
    assert sorted(chat.offline.tolist()) == [False, True]


def test_summary_by_tag(mixed):
    """summary(by='tag') groups untagged rows under a missing tag."""
    summary = mixed.summary(by="tag")
    tagged = summary[summary.tag == "exp"].iloc[0]
    assert tagged.requests == 1 and tagged.total_cost == pytest.approx(0.005)


def test_summary_rejects_unknown_keys(mixed):
    """An unknown grouping key is a ValueError."""
    with pytest.raises(ValueError):
        mixed.summary(by="colour")


def test_daily_groups_by_utc_day(records):
    """daily() puts rows on their UTC day, jobs on the day they completed."""
    ledger = Ledger()
    ledger.record(CostRecord("chat", "chat-mini", "ok", time=0.0, usage={"cost": {"total_cost": 0.1}}))
    ledger.record(CostRecord("chat", "chat-mini", "ok", time=86400.0 * 2, usage={"cost": {"total_cost": 0.2}}))
    daily = ledger.daily()
    assert daily.day.tolist() == ["1970-01-01", "1970-01-03"]
    assert daily.total_cost.tolist() == [0.1, 0.2]


def test_plot_draws_one_line_per_model(mixed):
    """plot() returns a Figure with a cumulative step line per charged model."""
    ax = mixed.plot().axes[0]
    labels = sorted(line.get_label() for line in ax.get_lines())
    assert labels == ["chat-mini", "chat-reasoner", "image-pixels", "total", "video-tiers"]
    ends = {line.get_label(): line.get_ydata()[-1] for line in ax.get_lines()}
    assert ends["chat-mini"] == pytest.approx(0.007)
    assert "offline" in ax.get_title()


def test_plot_renders_to_png(mixed, tmp_path):
    """The chart renders headless (no display needed)."""
    mixed.plot().savefig(tmp_path / "cost.png")
    assert (tmp_path / "cost.png").read_bytes()[:4] == b"\x89PNG"


def test_plot_time_axis_has_few_dated_ticks_and_money_labels(mixed):
    """The time axis has a handful of full clock-time ticks and no offset label; the cost axis reads like money."""
    figure = mixed.plot()
    figure.canvas.draw()
    ax = figure.axes[0]
    ticks = [label.get_text() for label in ax.get_xticklabels() if label.get_text()]
    assert 2 <= len(ticks) <= 7 and all(":" in text for text in ticks)
    assert ax.xaxis.get_offset_text().get_text() == ""
    labels = [label.get_text() for label in ax.get_yticklabels() if label.get_text()]
    assert labels and all(text.startswith("$") and "e" not in text for text in labels)


def test_plot_lines_run_to_the_last_charge(mixed):
    """Each model's running total is drawn on to the right edge, so a one-charge model is a visible line."""
    lines = mixed.plot().axes[0].get_lines()
    assert len({line.get_xdata()[-1] for line in lines}) == 1


def test_plot_one_charge_is_a_step_inside_the_frame():
    """A model charged once rises from $0 inside the axes, with flat segments on both sides of the step."""
    import matplotlib.dates as mdates

    ledger = Ledger(path=None)
    ledger.record(CostRecord("chat", "chat-mini", "ok", time=1000.0, usage={"cost": {"total_cost": 0.1}}))
    ax = ledger.plot().axes[0]
    (line,) = ax.get_lines()
    xs = mdates.date2num(list(line.get_xdata()))
    left, right = ax.get_xlim()
    assert list(line.get_ydata()) == [0.0, 0.1, 0.1]
    assert left <= xs[0] < xs[1] < xs[2] <= right and (xs[1] - left) > 0.05 * (right - left)


def test_plot_has_a_total_line(mixed):
    """With several models a dashed 'total' line ends at the ledger's total."""
    lines = {line.get_label(): line for line in mixed.plot().axes[0].get_lines()}
    assert lines["total"].get_ydata()[-1] == pytest.approx(mixed.total_cost)


def test_plot_html_has_alt_text(mixed):
    """The figure's HTML output (what nbconvert keeps) is an image with alt text naming the total."""
    from gatewaykit.money import format_usd

    markup = mixed.plot()._repr_html_()
    assert markup.startswith('<img src="data:image/png;base64,') and "alt=\"Cumulative cost over time" in markup
    assert format_usd(mixed.total_cost) in markup


def test_plot_on_given_axes_returns_none(mixed):
    """plot(ax=...) draws on the caller's Axes and returns None (nothing to echo)."""
    from matplotlib.figure import Figure

    ax = Figure().subplots()
    assert mixed.plot(ax=ax) is None and len(ax.get_lines()) == 5  # four models and their total


def test_csv_round_trip(mixed, tmp_path):
    """to_csv writes every row and column; tags joined with ';'."""
    import pandas as pd

    mixed.to_csv(tmp_path / "costs.csv")
    frame = pd.read_csv(tmp_path / "costs.csv")
    assert list(frame.columns) == list(COLUMNS) and len(frame) == 6
    assert frame["tags"].fillna("").tolist()[-1] == "exp"
    assert math.isclose(frame["total_cost"].sum(), mixed.total_cost)


def test_parquet_round_trip(mixed, tmp_path):
    """to_parquet keeps types: UTC times, bools, tag lists."""
    import pandas as pd

    mixed.to_parquet(tmp_path / "costs.parquet")
    frame = pd.read_parquet(tmp_path / "costs.parquet")
    assert len(frame) == 6 and str(frame["time"].dt.tz) == "UTC"
    assert list(frame["tags"].iloc[-1]) == ["exp"] and frame["offline"].dtype == bool
