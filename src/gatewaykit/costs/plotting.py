"""``Ledger.plot()``: cumulative cost over time, one step line per model and a total (matplotlib).

Clock-time ticks with the date and time zone in the axis label, every line from $0 at the left edge
to the right edge, a money axis, and alt text for screen readers. It returns the Figure, or draws on
a given ``ax=`` and returns None. Details: ``docs/internals.md``.
"""

from __future__ import annotations

import base64
import functools
import html
import io
import sys
from datetime import datetime, timezone
from typing import Any, Mapping, Optional, Sequence

from gatewaykit.costs.summaries import cumulative_by_model
from gatewaykit.money import format_usd, plural

__all__ = ["alt_text", "plot_cumulative"]

_MIN_SPAN = 10.0  # seconds: a burst of requests gets a readable axis, its steps not bunched in the middle
_MARGIN = 0.08  # of the span, each side


@functools.lru_cache(maxsize=None)
def _figure_class() -> Any:
    from matplotlib.figure import Figure

    class CostFigure(Figure):
        """A matplotlib Figure whose HTML output is a PNG with alt text (``alt_text``)."""

        alt_text = ""

        def _repr_html_(self) -> str:
            buffer = io.BytesIO()
            self.savefig(buffer, format="png", dpi=96)
            data = base64.b64encode(buffer.getvalue()).decode("ascii")
            alt = html.escape(self.alt_text, quote=True)
            return f'<img src="data:image/png;base64,{data}" alt="{alt}" title="{alt}"/>'

    return CostFigure


def _new_figure() -> Any:
    figure_class = _figure_class()
    if "ipykernel" in sys.modules:
        # pyplot in a kernel registers the inline backend's Figure formatter; closing the figure
        # at once keeps the backend from showing it a second time at the end of the cell.
        import matplotlib.pyplot as plt

        figure = plt.figure(figsize=(7, 3.2), layout="constrained", FigureClass=figure_class)
        plt.close(figure)
        return figure
    return figure_class(figsize=(7, 3.2), layout="constrained")  # no global pyplot state, works headless


def _clock_format(start: float, end: float) -> str:
    days = {datetime.fromtimestamp(t, tz=timezone.utc).date() for t in (start, end)}
    if len(days) > 1:
        return "%b %d %H:%M"
    return "%H:%M:%S" if end - start < 600 else "%H:%M"


def _axis_range(series: Mapping[Any, tuple[list[float], list[float]]]) -> tuple[float, float]:
    first = min(xs[0] for xs, _ in series.values())
    last = max(xs[-1] for xs, _ in series.values())
    span = max(last - first, _MIN_SPAN)
    middle = (first + last) / 2
    return middle - span * (0.5 + _MARGIN), middle + span * (0.5 + _MARGIN)


def _when(seconds: list[float]) -> list[datetime]:
    return [datetime.fromtimestamp(x, tz=timezone.utc) for x in seconds]


def alt_text(columns: Mapping[str, Sequence[Any]]) -> str:
    """A sentence describing the chart: the total, each model's total and charges, the time span."""
    series = cumulative_by_model(columns)
    if not series:
        return "Cost over time: no charged requests yet."
    total = sum(ys[-1] for _, ys in series.values())
    parts = [
        f"{model} {format_usd(ys[-1])} ({plural(len(xs), 'charge')})"
        for model, (xs, ys) in sorted(series.items(), key=lambda item: -item[1][1][-1])
    ]
    first = min(xs[0] for xs, _ in series.values())
    last = max(xs[-1] for xs, _ in series.values())
    start, end = _when([first, last])
    if f"{start:%H:%M:%S}" == f"{end:%H:%M:%S}":
        span = f"at {start:%Y-%m-%d %H:%M:%S} UTC"
    else:
        span = f"from {start:%Y-%m-%d %H:%M:%S} to {end:%H:%M:%S} UTC"
    return f"Cumulative cost over time, {format_usd(total)} in all {span}: " + "; ".join(parts) + "."


def _draw(columns: Mapping[str, Sequence[Any]], ax: Any) -> None:
    import matplotlib.dates as mdates
    from matplotlib.ticker import FuncFormatter, MaxNLocator

    series = cumulative_by_model(columns)
    offline = any(columns["offline"])
    ax.set_title("Cost over time" + (" (synthetic costs from the offline gateway)" if offline else ""))
    if not series:
        ax.set_xticks([])
        ax.set_yticks([])
        ax.text(0.5, 0.5, "no charged requests yet", ha="center", va="center", transform=ax.transAxes)
        return
    left, right = _axis_range(series)
    for model, (xs, ys) in sorted(series.items(), key=lambda item: str(item[0])):
        charges = list(range(1, len(xs) + 1))  # markers on the charges only
        xs, ys = [left, *xs, right], [0.0, *ys, ys[-1]]  # from $0 at the left edge, on to the right edge
        ax.step(_when(xs), ys, where="post", label=str(model), marker="o", markersize=4, markevery=charges)
    if len(series) > 1:
        total_xs, total_ys = cumulative_by_model(columns, per_model=False)[None]
        xs, ys = [left, *total_xs, right], [0.0, *total_ys, total_ys[-1]]
        ax.step(_when(xs), ys, where="post", label="total", color="black", linestyle="--", linewidth=1.2)
    ax.set_xlim(*_when([left, right]))
    ax.set_ylabel("cumulative cost")
    start = _when([left])[0]
    fmt = _clock_format(left, right)
    ax.set_xlabel("time (UTC)" if "%b" in fmt else f"time (UTC, {start:%d %b %Y})")
    locator = mdates.AutoDateLocator(minticks=3, maxticks=6, tz=timezone.utc)
    ax.xaxis.set_major_locator(locator)
    ax.xaxis.set_major_formatter(mdates.DateFormatter(fmt, tz=timezone.utc))
    ax.yaxis.set_major_locator(MaxNLocator(nbins=5))
    ax.yaxis.set_major_formatter(FuncFormatter(lambda value, _: format_usd(value)))
    highest = sum(ys[-1] for _, ys in series.values())
    ax.set_ylim(0, highest * 1.12 if highest > 0 else 1.0)  # the top line clear of the frame
    ax.grid(True, alpha=0.3)
    ax.legend(loc="upper left", fontsize="small")


def plot_cumulative(columns: Mapping[str, Sequence[Any]], ax: Any = None) -> Optional[Any]:
    """Draw step lines of running USD per model (and their total); a new Figure (returned) unless ``ax``."""
    if ax is not None:
        _draw(columns, ax)
        return None
    figure = _new_figure()
    figure.alt_text = alt_text(columns)
    _draw(columns, figure.subplots())
    return figure
