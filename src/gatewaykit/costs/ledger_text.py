"""``print(ledger)``: the rows as a short plain-text table with the totals, for a terminal or a log.

The notebook shows a ledger as HTML (the presentation layer); a script has only
``str``. :func:`ledger_text` gives the last :data:`SHOWN_ROWS` rows (time, kind,
model, status, tokens, cost), how many earlier ones it left out, and the totals
line: what was spent, how much of it is an estimate, what is not counted yet
(pending jobs, unknown costs) and the budget. Model ids are the user's or the
gateway's, never model output; control characters are dropped all the same.
"""

from __future__ import annotations

import math
import re
import time
from typing import Any, Optional

from gatewaykit.costs.rows import ESTIMATED, NOT_REPORTED
from gatewaykit.money import format_usd, plural

__all__ = ["SHOWN_ROWS", "ledger_text"]

SHOWN_ROWS = 10
_PENDING = frozenset({"queued", "in_progress", "pending"})
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")
_HEADER = ("time (UTC)", "kind", "model", "status", "tokens", "cost")
_RIGHT = frozenset({4, 5})  # numbers line up on the right


def charged_total(columns: dict[str, list], source: Optional[str] = None) -> float:
    """As :func:`gatewaykit.costs.views.charged_total` (not imported: views imports this module)."""
    return math.fsum(
        cost
        for cost, charged, origin in zip(columns["total_cost"], columns["charged"], columns["cost_source"])
        if charged and cost is not None and (source is None or origin == source)
    )


def _cost(status: Any, source: Any, cost: Optional[float]) -> str:
    if status in _PENDING:
        return "pending"
    if source == NOT_REPORTED:
        return "not reported"
    if cost is None:
        return "unknown"
    return f"≈ {format_usd(cost)} est." if source == ESTIMATED else format_usd(cost)


def _cell(value: Any) -> str:
    return "" if value is None else _CONTROL.sub("", str(value))


def _rows(columns: dict[str, list], start: int) -> list[tuple[str, ...]]:
    out: list[tuple[str, ...]] = []
    for i in range(start, len(columns["time"])):
        tokens = columns["total_tokens"][i]
        out.append((
            time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(columns["time"][i])) if columns["time"][i] else "",
            _cell(columns["kind"][i]), _cell(columns["model"][i]), _cell(columns["status"][i]),
            "" if tokens is None else f"{tokens:,}",
            _cost(columns["status"][i], columns["cost_source"][i], columns["total_cost"][i]),
        ))  # fmt: skip
    return out


def _totals(state: Any) -> str:
    columns = state.columns
    statuses = columns["status"]
    line = f"total {format_usd(charged_total(columns))}"
    estimated = charged_total(columns, ESTIMATED)
    if estimated:
        line += f" (of which {format_usd(estimated)} estimated)"
    pending = sum(1 for status in statuses if status in _PENDING)
    unknown = sum(
        1
        for status, cost, charged in zip(statuses, columns["total_cost"], columns["charged"])
        if cost is None and status not in _PENDING and charged is not False
    )
    if pending:
        line += f" + {plural(pending, 'job')} pending"
    if unknown:
        line += f" + {plural(unknown, 'row')} of unknown cost (not counted)"
    if state.budget is not None:
        used = f" ({charged_total(columns) / state.budget:.0%} used)" if state.budget else ""
        line += f"; budget {format_usd(state.budget)}{used}"
    return line


def ledger_text(state: Any, shown: int = SHOWN_ROWS) -> str:
    """The ledger (or a view of it) as a plain-text table: last ``shown`` rows, then the totals.

    ``state`` is a :class:`gatewaykit.costs.views.DisplayState` (not imported: views imports this module).
    """
    columns = state.columns
    count = len(columns["time"])
    lines = [f"{state.title}: {plural(count, 'row')}"]
    if state.earlier:
        lines[0] += f" (+ {plural(state.earlier, 'earlier row')}: {state.history_call})"
    if count:
        start = max(0, count - shown)
        if start:
            lines.append(f"(the last {shown}; {plural(start, 'earlier row')} not shown: ledger.to_pandas() has them all)")
        table = [_HEADER, *_rows(columns, start)]
        widths = [max(len(row[i]) for row in table) for i in range(len(_HEADER))]
        for row in table:
            cells = [row[i].rjust(widths[i]) if i in _RIGHT else row[i].ljust(widths[i]) for i in range(len(row))]
            lines.append("  ".join(cells).rstrip())
    lines.append(_totals(state))
    return "\n".join(lines)
