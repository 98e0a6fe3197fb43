"""``Ledger.plot()``: cumulative cost over time, one line per model (matplotlib)."""

from __future__ import annotations

import sys
from typing import Any, Mapping, Sequence

from gatewaykit.costs.summaries import cumulative_by_model

__all__ = ["plot_cumulative"]


def _new_axes():
    # In a Jupyter kernel use pyplot, so the inline backend shows the figure when
    # the cell ends (as pandas' .plot() does). Elsewhere build a bare Figure: no
    # global pyplot state, no display backend needed (works headless).
    if "ipykernel" in sys.modules:
        import matplotlib.pyplot as plt

        return plt.subplots(figsize=(7, 3.2), layout="constrained")[1]
    from matplotlib.figure import Figure

    return Figure(figsize=(7, 3.2), layout="constrained").subplots()


def plot_cumulative(columns: Mapping[str, Sequence[Any]], ax=None):
    """Draw step lines of running USD per model on ``ax`` (a new figure if None); return the Axes."""
    from datetime import datetime, timezone

    if ax is None:
        ax = _new_axes()
    series = cumulative_by_model(columns)
    for model, (xs, ys) in sorted(series.items(), key=lambda item: str(item[0])):
        when = [datetime.fromtimestamp(x, tz=timezone.utc) for x in xs]
        ax.step(when, ys, where="post", label=str(model), marker="o", markersize=3)
    ax.set_ylabel("cumulative cost (USD)")
    ax.set_xlabel("time (UTC)")
    offline = any(columns["offline"])
    ax.set_title("Cost over time" + (" - synthetic costs from the offline gateway" if offline else ""))
    if series:
        ax.legend(loc="upper left", fontsize="small")
    else:
        ax.text(0.5, 0.5, "no charged requests yet", ha="center", va="center", transform=ax.transAxes)
    return ax
