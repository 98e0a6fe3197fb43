"""``ev.compare(baseline)``'s DataFrame: a pandas DataFrame that shows itself as a grid with the changes marked.

Imported on first use (it imports pandas). Anything derived from it (a slice,
a filter) is a plain DataFrame.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from gatewaykit.client.session_tools.evaluation_report import ChangesGrid

__all__ = ["COMPARISON_COLUMNS", "ComparisonFrame", "comparison_frame"]

COMPARISON_COLUMNS = ["case_id", "model", "scorer", "before_passed", "before_repeats", "before_rate", "before_mean",
                      "after_passed", "after_repeats", "after_rate", "after_mean", "p_value", "change"]


class ComparisonFrame(pd.DataFrame):
    """One row per case × model × scorer with its ``change``; in a notebook, the grid of changes."""

    _metadata = ["alpha"]

    @property
    def _constructor(self) -> Any:
        return pd.DataFrame

    def grid(self) -> ChangesGrid:
        """The comparison as a :class:`ChangesGrid` (what the notebook shows)."""
        return ChangesGrid(self.to_dict("records"), getattr(self, "alpha", 0.05))

    def _repr_html_(self) -> Any:
        from gatewaykit.presentation import rich_bundle

        html = rich_bundle(self.grid()).get("text/html")
        return html if html else pd.DataFrame(self)._repr_html_()


def comparison_frame(records: list[dict[str, Any]], alpha: float) -> ComparisonFrame:
    frame = ComparisonFrame(pd.DataFrame(records, columns=COMPARISON_COLUMNS))
    frame.alpha = alpha
    return frame
