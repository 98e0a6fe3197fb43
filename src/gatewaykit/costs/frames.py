"""pandas views of the ledger, built on demand (pandas is imported only here, and only when asked)."""

from __future__ import annotations

from typing import Any, Mapping, Sequence, Union

from gatewaykit.costs.rows import COLUMNS, COST_FIELDS
from gatewaykit.costs.summaries import aggregate, normalise_keys
from gatewaykit.optional_packages import needs

__all__ = ["rows_to_frame", "summary_frame"]

_INTEGER_COLUMNS = (
    "prompt_tokens",
    "completion_tokens",
    "reasoning_tokens",
    "cached_tokens",
    "total_tokens",
    "images",
    "attempts",
    "http_status",
)
_FLOAT_COLUMNS = ("seconds", "total_cost", *COST_FIELDS, "latency")
#: What shows the ledger where pandas is not installed.
_WITHOUT_PANDAS = "the ledger's display (gk.ledger as a cell's last line), print(gk.ledger), .rows, .total_cost"


def _utc(pd, values):
    import numpy as np

    seconds = np.array(values, dtype="float64")  # None becomes NaN (NaT)
    return pd.to_datetime(seconds, unit="s", utc=True)


def rows_to_frame(columns: Mapping[str, Sequence[Any]]):
    """A DataFrame with one row per request or job, columns in ``COLUMNS`` order."""
    pd = needs("pandas", "to_pandas()", _WITHOUT_PANDAS)
    import numpy as np

    data = {}
    for name in COLUMNS:
        values = columns[name]
        if name in ("time", "finished_time"):
            data[name] = _utc(pd, values)
        elif name in _INTEGER_COLUMNS:
            data[name] = pd.array(values, dtype="Int64")
        elif name in _FLOAT_COLUMNS:
            data[name] = np.array(values, dtype="float64")  # None becomes NaN
        elif name == "charged":
            data[name] = pd.array(values, dtype="boolean")  # <NA>: the client cannot know
        elif name == "offline":
            data[name] = np.array(values, dtype=bool)
        elif name == "tags":
            data[name] = pd.Series(values, dtype=object)
        else:
            data[name] = pd.array(values, dtype="str")
    return pd.DataFrame(data, columns=list(COLUMNS))


def summary_frame(columns: Mapping[str, Sequence[Any]], by: Union[str, Sequence[str]]):
    """``aggregate`` as a DataFrame (one row per group)."""
    pd = needs("pandas", "summary()", _WITHOUT_PANDAS)

    keys = normalise_keys(by)
    groups = aggregate(columns, keys)
    frame = pd.DataFrame(groups)
    if frame.empty:
        frame = pd.DataFrame(
            columns=[*keys, "requests", "charged", "not_charged", "charge_unknown", "not_reported", "not_reported_jobs", "pending", "total_cost"]
        )
    from gatewaykit.costs.summary_table import ledger_summary

    return ledger_summary(frame, keys)
