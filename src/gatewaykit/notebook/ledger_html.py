"""The ledger in a notebook: totals, a per-model summary, the recent rows and a
small cumulative-cost sparkline (an inline SVG drawn here, so the output is
deterministic and needs neither matplotlib nor a kernel to view).

Pure functions of the ledger's columns; everything that came from the gateway
(model names, error messages, tags) is HTML-escaped.
"""

from __future__ import annotations

import time as _time
from html import escape
from typing import Any, Optional

from gatewaykit.costs.summaries import aggregate, cumulative_by_model
from gatewaykit.notebook.style import format_cost
from gatewaykit.types.jobs import JobStatus

__all__ = ["render_ledger", "sparkline_svg"]


def _usd_exact(value: Optional[float]) -> str:
    return format_cost(value, exact=True)

RECENT_ROWS = 10
OFFLINE_BANNER = "Synthetic costs from the offline gateway: not real charges."

_STYLE = (
    "<style>.gk-ledger table{border-collapse:collapse;font-size:12px;margin:4px 0}"
    ".gk-ledger th,.gk-ledger td{padding:2px 8px;border-bottom:1px solid #ddd;text-align:left}"
    ".gk-ledger td.num{text-align:right;font-variant-numeric:tabular-nums}"
    ".gk-ledger .gk-banner{background:#fff3cd;color:#664d03;padding:4px 8px;border-radius:4px}"
    "</style>"
)


def _when(seconds: Optional[float]) -> str:
    if seconds is None:
        return ""
    return _time.strftime("%Y-%m-%d %H:%M:%S", _time.gmtime(seconds))


def _totals(columns: dict[str, list]) -> dict[str, Any]:
    groups = aggregate(columns, ("offline",))
    real = next((g for g in groups if not g["offline"]), None)
    synthetic = next((g for g in groups if g["offline"]), None)
    statuses = columns["status"]
    return {
        "requests": len(statuses),
        "charged": sum(1 for c in columns["charged"] if c),
        "unknown": sum(1 for c in columns["charged"] if c is None),
        "pending": sum(1 for s in statuses if s in (JobStatus.QUEUED, JobStatus.IN_PROGRESS)),
        "not_reported": sum(g["not_reported"] for g in groups),
        "total": sum(g["total_cost"] for g in groups),
        "estimated": sum(g["estimated_cost"] for g in groups),
        "real": real["total_cost"] if real else 0.0,
        "synthetic": synthetic["total_cost"] if synthetic else 0.0,
        "offline": synthetic is not None,
    }


def _headline(totals: dict[str, Any], budget: Optional[float]) -> str:
    parts = [
        f"{totals['requests']} requests ({totals['charged']} charged)",
        f"total {_usd_exact(totals['total'])}",
    ]
    if totals["unknown"]:
        parts.append(f"{totals['unknown']} with an unknown charge (streams ended early)")
    if totals["estimated"]:
        parts.append(f"of which estimated {_usd_exact(totals['estimated'])}")
    if totals["offline"] and totals["real"]:
        parts.append(f"real {_usd_exact(totals['real'])}, synthetic {_usd_exact(totals['synthetic'])}")
    if totals["not_reported"]:
        parts.append(f"{totals['not_reported']} billed with no amount reported")
    if totals["pending"]:
        parts.append(f"{totals['pending']} jobs pending")
    if budget is not None:
        share = f" ({totals['total'] / budget:.0%} used)" if budget else ""
        parts.append(f"budget ${budget:.2f}{share}")
    return ", ".join(parts)


def sparkline_svg(columns: dict[str, list], width: int = 240, height: int = 40) -> str:
    """Cumulative USD over time as a small SVG polyline (empty string if nothing was charged)."""
    series = cumulative_by_model(columns, per_model=False).get(None)
    if not series:
        return ""
    xs, ys = series
    x0, x1 = xs[0], xs[-1]
    top = ys[-1] or 1.0
    span = (x1 - x0) or 1.0
    points = [(0.0, float(height - 2))]
    for x, y in zip(xs, ys):
        px = 2 + (x - x0) / span * (width - 4)
        py = height - 2 - (y / top) * (height - 4)
        points.append((px, py))
    path = " ".join(f"{px:.1f},{py:.1f}" for px, py in points)
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" role="img" aria-label="cumulative cost {_usd_exact(ys[-1])}">'
        f'<polyline fill="none" stroke="#3b6ea5" stroke-width="1.5" points="{path}"/></svg>'
    )


def _table(header: list[str], body: list[list[str]], numeric: set[int]) -> str:
    head = "".join(f"<th>{escape(h)}</th>" for h in header)
    rows = "".join(
        "<tr>"
        + "".join(
            f'<td class="num">{escape(c)}</td>' if i in numeric else f"<td>{escape(c)}</td>"
            for i, c in enumerate(cells)
        )
        + "</tr>"
        for cells in body
    )
    return f"<table><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>"


def _summary_rows(groups: list[dict[str, Any]]) -> list[list[str]]:
    return [
        [
            str(g["model"]),
            str(g["kind"]),
            "yes" if g["offline"] else "",
            str(g["requests"]),
            str(g["charged"]),
            str(g["total_tokens"]),
            _usd_exact(g["total_cost"]),
        ]
        for g in groups
    ]


def _recent_rows(columns: dict[str, list]) -> list[list[str]]:
    count = len(columns["kind"])
    out = []
    for i in range(max(0, count - RECENT_ROWS), count):
        tokens = columns["total_tokens"][i]
        out.append(
            [
                _when(columns["time"][i]),
                str(columns["kind"][i]),
                str(columns["model"][i]),
                str(columns["status"][i]),
                "" if tokens is None else str(tokens),
                _usd_exact(columns["total_cost"][i]),
                str(columns["cost_source"][i]),
                ", ".join(columns["tags"][i]),
                columns["note"][i] or "",
            ]
        )
    return out


def render_ledger(columns: dict[str, list], budget: Optional[float] = None) -> tuple[str, str]:
    """``(text/plain, text/html)`` for a ledger's columns."""
    totals = _totals(columns)
    summary = _summary_rows(aggregate(columns, ("model", "kind")))
    headline = _headline(totals, budget)
    text_lines = [f"Ledger: {headline}"]
    if totals["offline"]:
        text_lines.insert(0, OFFLINE_BANNER)
    for model, kind, offline, requests, charged, tokens, cost in summary:
        flag = " (offline)" if offline else ""
        text_lines.append(f"  {model} {kind}{flag}: {requests} requests, {tokens} tokens, {cost}")
    html = [_STYLE, '<div class="gk-ledger">']
    if totals["offline"]:
        html.append(f'<div class="gk-banner">{escape(OFFLINE_BANNER)}</div>')
    html.append(f"<p><b>Ledger</b>: {escape(headline)}</p>")
    if totals["requests"]:
        html.append(sparkline_svg(columns))
        html.append(
            _table(
                ["model", "kind", "offline", "requests", "charged", "tokens", "cost"],
                summary,
                {3, 4, 5, 6},
            )
        )
        html.append(f"<p>Last {min(RECENT_ROWS, totals['requests'])} rows</p>")
        html.append(
            _table(
                ["time (UTC)", "kind", "model", "status", "tokens", "cost", "cost source", "tags", "note"],
                _recent_rows(columns),
                {4, 5},
            )
        )
    html.append("</div>")
    return "\n".join(text_lines), "".join(html)
