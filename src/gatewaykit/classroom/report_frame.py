"""The report's columns, and ``room.report()`` as a DataFrame whose money reads as on the command line.

``ReportFrame`` is a plain ``pandas.DataFrame`` for every pandas use (slicing,
sorting, ``to_csv`` give ordinary frames and the numbers stay floats); only its
display formats the ``*_usd`` columns as ``$0.151`` (``format_usd``), in a
notebook and in a terminal.
"""

from __future__ import annotations

import functools
from typing import Any, Optional

__all__ = ["ASSIGNMENT_COLUMNS", "DAY_COLUMNS", "MODEL_COLUMNS", "STUDENT_COLUMNS", "report_frame"]

STUDENT_COLUMNS = ("student", "spent_usd", "cap_usd", "remaining_usd", "held_usd", "requests", "refused",
                   "balance_refused", "unknown", "unknown_usd", "cap_hits", "last_request", "revoked")
MODEL_COLUMNS = ("student", "model", "spent_usd", "requests", "refused", "balance_refused", "unknown", "unknown_usd",
                 "last_request")
DAY_COLUMNS = ("student", "day", "spent_usd", "requests", "refused", "cap_hits")
ASSIGNMENT_COLUMNS = ("assignment", "student", "spent_usd", "cap_usd", "remaining_usd", "held_usd", "requests",
                      "refused")


def columns_for(by: Optional[str]) -> tuple[str, ...]:
    return {"model": MODEL_COLUMNS, "day": DAY_COLUMNS, "assignment": ASSIGNMENT_COLUMNS}.get(by or "student",
                                                                                          STUDENT_COLUMNS)


def _money_columns(frame: Any) -> list[str]:
    return [c for c in frame.columns if isinstance(c, str) and c.endswith("_usd")]


@functools.cache
def _frame_class() -> Any:
    """The ``ReportFrame`` class, made once, when a report is first asked for (pandas is imported then)."""
    import pandas as pd

    from gatewaykit.money import format_usd

    class ReportFrame(pd.DataFrame):
        """A DataFrame whose display shows money as ``$0.151``; anything derived from it is a plain DataFrame."""

        @property
        def _constructor(self) -> Any:
            return pd.DataFrame

        def _shown(self) -> Any:
            shown = pd.DataFrame(self).copy()
            for column in _money_columns(shown):
                shown[column] = shown[column].map(lambda v: "" if pd.isna(v) else format_usd(float(v)))
            return shown

        def _repr_html_(self) -> str:  # type: ignore[override]
            try:
                money = _money_columns(self)
                # a fixed id, not pandas' random one: the same report is the same HTML (stored notebooks, nbval)
                styler = pd.DataFrame(self).style.set_uuid("gk_report").format({c: format_usd for c in money},
                                                                              na_rep="")
                return styler.set_properties(subset=money, **{"text-align": "right"}).to_html()  # type: ignore[no-any-return]
            except Exception:  # noqa: BLE001 - a display never breaks a cell: pandas' own table then
                return pd.DataFrame(self)._repr_html_()  # type: ignore[no-any-return,operator]

        def __repr__(self) -> str:
            try:
                return repr(self._shown())
            except Exception:  # noqa: BLE001
                return repr(pd.DataFrame(self))

    return ReportFrame


def report_frame(rows: list[dict[str, Any]], by: Optional[str] = None) -> Any:
    """The report's rows (``/_classroom/report``) as a ``ReportFrame``; ``last_request`` as UTC times to the
    second, ``day`` as dates."""
    import pandas as pd

    columns = [c for c in columns_for(by)]
    present = [c for c in columns if not rows or c in rows[0]]  # an older classroom may lack a newer column
    frame = _frame_class()(pd.DataFrame(rows, columns=present))
    if "last_request" in frame.columns:
        # a teacher reads seconds, not nanoseconds
        frame["last_request"] = pd.to_datetime(frame["last_request"], unit="s", utc=True).dt.floor("s")
    if "day" in frame.columns:
        frame["day"] = pd.to_datetime(frame["day"]).dt.date
    return frame
