"""The read-only views of a set of ledger rows: totals, DataFrames, a chart, the display.

A :class:`LedgerView` is built on a function returning a consistent copy of
the rows' columns (name -> values, :data:`gatewaykit.costs.rows.COLUMNS`).
``Ledger`` shows this session through one, and ``ledger.history()`` returns
one over every stored row; both display the same way. pandas and matplotlib
are imported only when a DataFrame or a chart is asked for.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable, Optional, Union

from gatewaykit.costs.rows import COLUMNS, ESTIMATED, REPORTED
from gatewaykit.money import format_usd, plural
from gatewaykit.presentation import rich_bundle

__all__ = ["DisplayState", "LedgerView", "charged_total"]


@dataclass(frozen=True)
class DisplayState:
    """What the display of a ledger or view needs (the presentation layer renders it)."""

    columns: dict[str, list]
    budget: Optional[float] = None
    earlier: int = 0  # stored rows of other sessions this view leaves out
    history_call: str = "ledger.history()"  # how to see them
    title: str = "Ledger"


def charged_total(columns: dict[str, list], source: Optional[str] = None) -> float:
    """USD of the charged rows with an amount (of one ``cost_source`` when given)."""
    return math.fsum(
        cost
        for cost, charged, origin in zip(columns["total_cost"], columns["charged"], columns["cost_source"])
        if charged and cost is not None and (source is None or origin == source)
    )


class LedgerView:
    """Rows shown like a ledger: ``len``, ``rows``, totals, ``to_pandas()``, ``summary()``, ``plot()``."""

    def __init__(self, state: Callable[[], DisplayState]) -> None:
        self._state = state

    def _display_state(self) -> DisplayState:
        return self._state()

    def _columns(self) -> dict[str, list]:
        return self._state().columns

    def __len__(self) -> int:
        return len(self._columns()["time"])

    @property
    def rows(self) -> list[dict[str, Any]]:
        """Every row as a fresh dict."""
        columns = self._columns()
        return [dict(zip(COLUMNS, values)) for values in zip(*(columns[name] for name in COLUMNS))]

    @property
    def total_cost(self) -> float:
        """USD recorded: reported plus estimated (pending and not-reported jobs count 0)."""
        return charged_total(self._columns())

    @property
    def reported_cost(self) -> float:
        """USD the gateway reported (exactly what it deducted for these rows)."""
        return charged_total(self._columns(), REPORTED)

    @property
    def estimated_cost(self) -> float:
        """USD estimated by the price source (jobs billed with no amount reported)."""
        return charged_total(self._columns(), ESTIMATED)

    def to_pandas(self):
        """One row per request or job; ``time`` and ``finished_time`` as UTC datetimes."""
        from gatewaykit.costs.frames import rows_to_frame

        return rows_to_frame(self._columns())

    def summary(self, by: Union[str, tuple, list] = ("model", "kind")):
        """Per model and kind (or ``by=``, which may include ``"tag"`` and ``"day"``): counts, tokens, cost."""
        from gatewaykit.costs.frames import summary_frame

        return summary_frame(self._columns(), by)

    def daily(self):
        """Per UTC day and model: requests, tokens and cost."""
        return self.summary(by=("day", "model"))

    def plot(self, ax: Any = None) -> Any:
        """Cumulative cost over time, one line per model (matplotlib): a Figure, shown once as a
        cell's last line; with ``ax=`` it draws on that Axes and returns None."""
        from gatewaykit.costs.plotting import plot_cumulative

        return plot_cumulative(self._columns(), ax=ax)

    def to_csv(self, path: Any, **kwargs: Any) -> None:
        """Write ``to_pandas()`` as CSV (tags joined with ``;``; text a spreadsheet would run as a
        formula gets a leading ``'``, see :mod:`gatewaykit.costs.csv_cells`)."""
        from gatewaykit.costs.csv_cells import safe_frame

        frame = self.to_pandas()
        frame["tags"] = frame["tags"].map(lambda tags: ";".join(tags))
        safe_frame(frame).to_csv(path, index=False, **kwargs)

    def to_parquet(self, path: Any, **kwargs: Any) -> None:
        """Write ``to_pandas()`` as Parquet (tags as a list column)."""
        frame = self.to_pandas()
        frame["tags"] = frame["tags"].map(list)
        frame.to_parquet(path, index=False, **kwargs)

    def __repr__(self) -> str:
        state = self._state()
        count, total = len(state.columns["time"]), charged_total(state.columns)
        budget = "" if state.budget is None else f", budget {format_usd(state.budget)}"
        return f"<{state.title} {plural(count, 'row')}, {format_usd(total)}{budget}>"

    def __str__(self) -> str:
        """``print(ledger)``: the last rows as a plain-text table, then the totals."""
        from gatewaykit.costs.ledger_text import ledger_text

        return ledger_text(self._state())

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        # The table and chart come from the registered presentation layer (the notebook package).
        return rich_bundle(self)

    def _repr_html_(self) -> str:
        return self._repr_mimebundle_().get("text/html", "")
