"""The ledger in a notebook: totals, a labelled cumulative-cost chart, a per-model summary
and the recent rows (the chart is an inline SVG drawn here, so the output is
deterministic and needs neither matplotlib nor a kernel to view).

Pure functions of the ledger's columns; everything that came from the gateway
(model names, error messages, tags) is HTML-escaped. Money reads like money
(``$0.042``), a cost nobody reported says so (never ``$0.00``), totals say
what they leave out (a chat of unknown cost is a request, never a job), and
counts are pluralised. The default ledger shows this session; one line says
how many earlier rows its database holds and how to see them. When rows come
from more than one place, a "from" column says where (offline or real, the
gateway's host, the session).
"""

from __future__ import annotations

import base64
import time as _time
from html import escape
from typing import Any, Collection, Optional

from gatewaykit.costs.session import SESSION_ID
from gatewaykit.costs.summaries import aggregate, cumulative_by_model
from gatewaykit.costs.views import DisplayState
from gatewaykit.money import format_usd, plural
from gatewaykit.types.jobs import JobStatus

__all__ = ["NO_MATH", "chart_img", "cost_cell", "render_ledger", "sparkline_svg"]

RECENT_ROWS = 10
OFFLINE_BANNER = "Synthetic costs from the offline gateway: not real charges."
_PENDING = (JobStatus.QUEUED, JobStatus.IN_PROGRESS)

# Inline styles (an untrusted notebook's sanitizer drops <style> blocks but keeps style attributes).
_TABLE = "border-collapse:collapse;font-size:12px;margin:4px 0"
_CELL = "padding:2px 8px;border-bottom:1px solid #ddd;text-align:left"
_NUM = _CELL.replace("text-align:left", "text-align:right") + ";font-variant-numeric:tabular-nums;white-space:nowrap"
_ID = _CELL + ";white-space:nowrap"
_BANNER = "background:#fff3cd;color:#664d03;padding:4px 8px;border-radius:4px"
# Amounts carry "$": keep MathJax (JupyterLab typesets $...$ in HTML outputs) away from them.
NO_MATH = "tex2jax_ignore mathjax_ignore"


def _when(seconds: Optional[float]) -> str:
    if seconds is None:
        return ""
    return _time.strftime("%Y-%m-%d %H:%M:%S", _time.gmtime(seconds))


def cost_cell(status: Any, source: Any, cost: Optional[float]) -> str:
    """One row's cost as a reader should see it: money, or why there is none."""
    if status in _PENDING:
        return "pending"
    if source == "not reported":
        return "not reported"
    if cost is None:
        return "unknown"
    if source == "estimated":
        return f"≈ {format_usd(cost)} est."
    return format_usd(cost)


def _totals(columns: dict[str, list]) -> dict[str, Any]:
    groups = aggregate(columns, ("offline",))
    real = next((g for g in groups if not g["offline"]), None)
    synthetic = next((g for g in groups if g["offline"]), None)
    statuses = columns["status"]
    unknown = sum(
        1
        for status, cost, charged in zip(statuses, columns["total_cost"], columns["charged"])
        if cost is None and status not in _PENDING and not charged
    )
    return {
        "requests": len(statuses),
        "charged": sum(1 for c in columns["charged"] if c),
        "pending": sum(1 for s in statuses if s in _PENDING),
        "not_reported_jobs": sum(g["not_reported_jobs"] for g in groups),
        "not_reported_requests": sum(g["not_reported"] - g["not_reported_jobs"] for g in groups),
        "unknown": unknown,  # e.g. a stream interrupted before its usage arrived
        "total": sum(g["total_cost"] for g in groups),
        "estimated": sum(g["estimated_cost"] for g in groups),
        "real": real["total_cost"] if real else 0.0,
        "synthetic": synthetic["total_cost"] if synthetic else 0.0,
        "offline": synthetic is not None,
    }


def _headline(totals: dict[str, Any], budget: Optional[float]) -> str:
    total = f"total {format_usd(totals['total'])}"
    left_out = []
    if totals["not_reported_jobs"]:
        left_out.append(f"{plural(totals['not_reported_jobs'], 'job')} of unknown cost")
    if totals["pending"]:
        left_out.append(f"{plural(totals['pending'], 'job')} pending")
    unknown = totals["unknown"] + totals["not_reported_requests"]
    if unknown:
        left_out.append(f"{plural(unknown, 'request')} of unknown cost")
    if left_out:
        total += " + " + " + ".join(left_out)
    parts = [f"{plural(totals['requests'], 'request')} ({totals['charged']:,} charged)", total]
    if totals["estimated"]:
        parts.append(f"of which {format_usd(totals['estimated'])} estimated")
    if totals["offline"] and totals["real"]:
        parts.append(f"real {format_usd(totals['real'])}, synthetic {format_usd(totals['synthetic'])}")
    if budget is not None:
        share = f" ({totals['total'] / budget:.0%} used)" if budget else ""
        parts.append(f"budget {format_usd(budget)}{share}")
    return ", ".join(parts)


def _clock(seconds: float, span: float) -> str:
    return _time.strftime("%H:%M" if span >= 120 else "%H:%M:%S", _time.gmtime(seconds))


def sparkline_svg(columns: dict[str, list], width: int = 320, height: int = 72) -> str:
    """Cumulative USD over time as a small labelled SVG chart (empty string if nothing was charged)."""
    series = cumulative_by_model(columns, per_model=False).get(None)
    if not series:
        return ""
    xs, ys = series
    x0, x1 = xs[0], xs[-1]
    top = ys[-1] or 1.0
    span = (x1 - x0) or 1.0
    left, right, upper, lower = 56, width - 8, 14, height - 16  # plot area inside the labels
    points = [(float(left), float(lower))]
    for x, y in zip(xs, ys):
        points.append((left + (x - x0) / span * (right - left), lower - (y / top) * (lower - upper)))
    path = " ".join(f"{px:.1f},{py:.1f}" for px, py in points)
    total = escape(format_usd(ys[-1]))
    start, end = escape(_clock(x0, x1 - x0)), escape(_clock(x1, x1 - x0))
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="10" fill="#555" role="img" aria-label="cumulative cost over time, {total} in all">'
        f"<title>cumulative cost over time</title>"
        f'<text x="{left}" y="10">cumulative cost (USD)</text>'
        f'<line x1="{left}" y1="{lower}" x2="{right}" y2="{lower}" stroke="#bbb"/>'
        f'<line x1="{left}" y1="{upper}" x2="{left}" y2="{lower}" stroke="#bbb"/>'
        f'<text x="{left - 4}" y="{upper + 4}" text-anchor="end">{total}</text>'
        f'<text x="{left - 4}" y="{lower}" text-anchor="end">$0.00</text>'
        f'<text x="{left}" y="{height - 3}">{start}</text>'
        f'<text x="{right}" y="{height - 3}" text-anchor="end">{end} UTC</text>'
        f'<polyline fill="none" stroke="#3b6ea5" stroke-width="1.5" points="{path}"/></svg>'
    )


def chart_img(columns: dict[str, list]) -> str:
    """The chart as an ``<img>`` of the SVG (kept by sanitizers of untrusted notebooks, never typeset)."""
    svg = sparkline_svg(columns)
    if not svg:
        return ""
    data = base64.b64encode(svg.encode()).decode()
    return f'<img class="gk-ledger-chart" src="data:image/svg+xml;base64,{data}" alt="cumulative cost over time">'


def _table(header: list[str], body: list[list[str]], numeric: Collection[int], ids: Collection[int] = ()) -> str:
    def cell(i: int, text: str) -> str:
        kind = _NUM if i in numeric else _ID if i in ids else _CELL
        return f'<td style="{kind}">{escape(text)}</td>'

    head = "".join(f'<th style="{_CELL}">{escape(h)}</th>' for h in header)
    rows = "".join("<tr>" + "".join(cell(i, c) for i, c in enumerate(cells)) + "</tr>" for cells in body)
    return f'<table style="{_TABLE}"><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>'


def _group_cost(group: dict[str, Any]) -> str:
    cost = format_usd(group["total_cost"]) if group["total_cost"] else ""
    estimated = group.get("estimated_cost") or 0.0
    if cost and estimated and estimated == group["total_cost"]:
        cost = f"≈ {cost} est."
    elif cost and estimated:
        cost += f" (≈ {format_usd(estimated)} est.)"
    parts = [cost] if cost else []
    if group["pending"]:
        parts.append(f"{plural(group['pending'], 'job')} pending")
    if group["not_reported_jobs"]:
        parts.append(f"{plural(group['not_reported_jobs'], 'job')} of unknown cost")
    requests = group["not_reported"] - group["not_reported_jobs"]
    if requests:
        parts.append(f"{plural(requests, 'request')} of unknown cost")
    return " + ".join(parts) or format_usd(group["total_cost"])


def _summary_rows(groups: list[dict[str, Any]], show_offline: bool) -> list[list[str]]:
    return [
        [str(g["model"]), str(g["kind"])]
        + (["offline" if g["offline"] else "real"] if show_offline else [])
        + [f"{g['requests']:,}", f"{g['charged']:,}", f"{g['total_tokens']:,}", _group_cost(g)]
        for g in groups
    ]


def _origin(columns: dict[str, list], i: int) -> str:
    """Where row ``i`` came from: offline or real, the gateway's host, the session."""
    session = columns["session"][i]
    parts = ["offline" if columns["offline"][i] else "real"]
    if columns["host"][i]:
        parts.append(str(columns["host"][i]))
    parts.append("this session" if session == SESSION_ID else f"session {session}" if session else "an earlier version")
    return ", ".join(parts)


def _origins(columns: dict[str, list]) -> int:
    return len(set(zip(columns["offline"], columns["host"], columns["session"])))


def _recent_rows(columns: dict[str, list], show_tags: bool, show_origin: bool = False) -> list[list[str]]:
    count = len(columns["kind"])
    out = []
    for i in range(max(0, count - RECENT_ROWS), count):
        tokens = columns["total_tokens"][i]
        row = [
            _when(columns["time"][i]),
            str(columns["kind"][i]),
            str(columns["model"][i]),
            str(columns["status"][i]),
            "" if tokens is None else f"{tokens:,}",
            cost_cell(columns["status"][i], columns["cost_source"][i], columns["total_cost"][i]),
        ]
        if show_tags:
            row.append(", ".join(columns["tags"][i]))
        if show_origin:
            row.append(_origin(columns, i))
        row.append(columns["note"][i] or "")
        out.append(row)
    return out


def render_ledger(state: DisplayState) -> tuple[str, str]:
    """``(text/plain, text/html)`` for a ledger's (or a view's) rows."""
    columns, title = state.columns, state.title
    totals = _totals(columns)
    groups = aggregate(columns, ("model", "kind"))
    mixed = len({bool(g["offline"]) for g in groups}) > 1  # an offline column only when it tells rows apart
    headline = _headline(totals, state.budget)
    earlier = f"+ {plural(state.earlier, 'earlier row')}: {state.history_call}" if state.earlier else ""
    text_lines = [f"{title}: {headline}"] + ([earlier] if earlier else [])
    if totals["offline"]:
        text_lines.insert(0, OFFLINE_BANNER)
    for g in groups:
        flag = " (offline)" if g["offline"] and mixed else ""
        tokens = f"{plural(g['total_tokens'], 'token')}, " if g["total_tokens"] else ""
        text_lines.append(f"  {g['model']} {g['kind']}{flag}: {plural(g['requests'], 'request')}, {tokens}{_group_cost(g)}")
    html = [f'<div class="gk-ledger {NO_MATH}">']
    if totals["offline"]:
        html.append(f'<div class="gk-banner" style="{_BANNER}">{escape(OFFLINE_BANNER)}</div>')
    html.append(f"<p><b>{escape(title)}</b>: {escape(headline)}</p>")
    if earlier:
        html.append(f'<p class="gk-ledger-earlier" style="color:#666">{escape(earlier)}</p>')
    if totals["requests"]:
        html.append(chart_img(columns))
        header = ["model", "kind"] + (["offline"] if mixed else []) + ["requests", "charged", "tokens", "cost"]
        first_number = 3 if mixed else 2
        html.append(_table(header, _summary_rows(groups, mixed), set(range(first_number, first_number + 4)), {0}))
        shown = min(RECENT_ROWS, totals["requests"])
        html.append(f"<p>{'Last ' + plural(shown, 'row') if shown < totals['requests'] else 'Rows'}</p>")
        show_tags = any(columns["tags"])
        show_origin = _origins(columns) > 1
        header = ["time (UTC)", "kind", "model", "status", "tokens", "cost"] + (["tags"] if show_tags else [])
        header += ["from"] if show_origin else []
        html.append(_table(header + ["note"], _recent_rows(columns, show_tags, show_origin), {4, 5}, {0, 2}))
    html.append("</div>")
    return "\n".join(text_lines), "".join(html)
