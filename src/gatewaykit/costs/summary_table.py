"""``Ledger.summary()``'s DataFrame, shown compactly so it fits a notebook's width.

The frame keeps every column (tokens by type, seconds, reported and estimated
cost...) for code to use; displayed, it shows the grouping keys, requests,
charged, tokens and the cost as money (with how many jobs reported none),
and says how to see the rest. A slice or computation gives a plain DataFrame.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from gatewaykit.money import format_usd, plural

__all__ = ["LedgerSummary"]

_SHOWN = ("requests", "charged", "total_tokens", "images", "total_cost")
_HEADINGS = {"total_tokens": "tokens", "total_cost": "cost"}


class LedgerSummary(pd.DataFrame):
    """A ledger summary: a DataFrame displayed with the columns a reader needs."""

    _metadata = ["keys_"]
    keys_: tuple = ()

    @property
    def _constructor(self) -> Any:
        return pd.DataFrame  # slices and results are plain frames (full display)

    def compact(self) -> pd.DataFrame:
        """The displayed view: keys, counts, tokens, cost as text like ``$0.042``."""
        keys = [k for k in self.keys_ if k in self.columns and k != "offline"]
        shown = pd.DataFrame({key: self[key] for key in keys})
        if "offline" in self.columns and self["offline"].nunique() > 1:  # only when it tells rows apart
            shown["offline"] = self["offline"].map(lambda flag: "offline" if flag else "real")
        for name in _SHOWN:
            if name not in self.columns or (name == "images" and not self[name].any()):
                continue
            shown[_HEADINGS.get(name, name)] = self[name]
        if "total_cost" in self.columns:
            none = [0] * len(self)
            unknown = list(self["not_reported"]) if "not_reported" in self.columns else none
            jobs = list(self["not_reported_jobs"]) if "not_reported_jobs" in self.columns else unknown
            pending = list(self["pending"]) if "pending" in self.columns else none
            shown["cost"] = [
                _cost_text(cost, int(j), int(n) - int(j), int(waiting))
                for cost, n, j, waiting in zip(self["total_cost"], unknown, jobs, pending)
            ]
        if "tag" in shown.columns:
            shown["tag"] = shown["tag"].map(lambda tag: "(untagged)" if tag is None or tag != tag else tag)
        return shown

    def _note(self) -> str:
        return f"{len(self.columns)} columns in all (tokens by type, seconds, reported and estimated cost): pd.DataFrame(summary)"

    def _repr_html_(self) -> str:  # type: ignore[override]
        table = self.compact().to_html(index=False, border=0)
        table = table.replace("<td>", '<td style="white-space:nowrap">')
        # tex2jax_ignore/mathjax_ignore: JupyterLab would typeset "$0.01 ... $0.02" as LaTeX
        return f'<div class="gk-summary tex2jax_ignore mathjax_ignore">{table}<p style="font-size:11px;color:#666">{self._note()}</p></div>'

    def __repr__(self) -> str:
        return self.compact().to_string(index=False) + "\n" + self._note()


def _cost_text(cost: float, unknown_jobs: int, unknown_requests: int, pending: int) -> str:
    parts = [format_usd(cost)] if cost or not (unknown_jobs or unknown_requests or pending) else []
    if unknown_jobs:
        parts.append(f"{plural(unknown_jobs, 'job')} of unknown cost")
    if unknown_requests:
        parts.append(f"{plural(unknown_requests, 'request')} of unknown cost")
    if pending:
        parts.append(f"{pending} job{'s' if pending != 1 else ''} pending")
    return " + ".join(parts)


def ledger_summary(frame: pd.DataFrame, keys: tuple) -> LedgerSummary:
    summary = LedgerSummary(frame)
    summary.keys_ = tuple(keys)
    return summary
