"""``Ledger.plot()``: cumulative cost over time, one line per model (matplotlib).

The time axis has a few ticks with concise date labels, the cost axis reads
like money, and ``plot()`` returns the Figure (shown once as a cell's last
line; never an ``<Axes ...>`` echo). Given ``ax=``, it draws there and
returns None: the caller owns that figure.
"""

from __future__ import annotations

import sys
from typing import Any, Mapping, Optional, Sequence

from gatewaykit.costs.money import format_usd
from gatewaykit.costs.summaries import cumulative_by_model

__all__ = ["plot_cumulative"]


def _new_figure() -> Any:
    if "ipykernel" in sys.modules:
        # pyplot in a kernel registers the inline backend's Figure formatter; closing the figure
        # at once keeps the backend from showing it a second time at the end of the cell.
        import matplotlib.pyplot as plt

        figure = plt.figure(figsize=(7, 3.2), layout="constrained")
        plt.close(figure)
        return figure
    from matplotlib.figure import Figure

    return Figure(figsize=(7, 3.2), layout="constrained")  # no global pyplot state, works headless


def _draw(columns: Mapping[str, Sequence[Any]], ax: Any) -> None:
    from datetime import datetime, timezone

    import matplotlib.dates as mdates
    from matplotlib.ticker import FuncFormatter, MaxNLocator

    series = cumulative_by_model(columns)
    end = max((xs[-1] for xs, _ in series.values()), default=None)
    for model, (xs, ys) in sorted(series.items(), key=lambda item: str(item[0])):
        charges = list(range(1, len(xs) + 1))  # markers on the charges only
        xs, ys = [xs[0], *xs], [0.0, *ys]  # each line rises from $0 at its first charge
        if end is not None and xs[-1] < end:  # and carries its total on to the last charge
            xs, ys = [*xs, end], [*ys, ys[-1]]
        when = [datetime.fromtimestamp(x, tz=timezone.utc) for x in xs]
        ax.step(when, ys, where="post", label=str(model), marker="o", markersize=3, markevery=charges)
    ax.set_ylabel("cumulative cost")
    ax.set_xlabel("time (UTC)")
    offline = any(columns["offline"])
    ax.set_title("Cost over time" + (" (synthetic costs from the offline gateway)" if offline else ""))
    if series:
        locator = mdates.AutoDateLocator(minticks=3, maxticks=6, tz=timezone.utc)
        ax.xaxis.set_major_locator(locator)
        ax.xaxis.set_major_formatter(mdates.ConciseDateFormatter(locator, tz=timezone.utc))
        ax.yaxis.set_major_locator(MaxNLocator(nbins=5))
        ax.yaxis.set_major_formatter(FuncFormatter(lambda value, _: format_usd(value)))
        ax.set_ylim(bottom=0)
        ax.grid(True, alpha=0.3)
        ax.legend(loc="upper left", fontsize="small")
    else:
        ax.set_xticks([])
        ax.set_yticks([])
        ax.text(0.5, 0.5, "no charged requests yet", ha="center", va="center", transform=ax.transAxes)


def plot_cumulative(columns: Mapping[str, Sequence[Any]], ax: Any = None) -> Optional[Any]:
    """Draw step lines of running USD per model; a new Figure (returned) unless ``ax`` is given."""
    if ax is not None:
        _draw(columns, ax)
        return None
    figure = _new_figure()
    _draw(columns, figure.subplots())
    return figure
