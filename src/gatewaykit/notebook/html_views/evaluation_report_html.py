"""``ev.compare(baseline)`` as a grid, and ``ev.to_html(path)``'s page.

:func:`render_changes_html`: rows of cases, columns of models, each cell one
line per scorer (its pass count before → after) marked ``▲ better``, ``▼ worse``,
``= same``, ``new`` or ``removed``, the test's p-value on hover.

:func:`render_report_html`: one self-contained page. Everything is inline:
styles as attributes, images as ``data:`` URIs, players' media as ``data:``
URIs; no script, no font, no link to fetch, and a Content-Security-Policy that
allows only ``data:`` media, so a browser opening it sends no request.
"""

from __future__ import annotations

import html
from typing import Any

from gatewaykit.client.session_tools.evaluation_report import ChangesGrid, EvaluationReport
from gatewaykit.notebook.html_views.evaluation_cell_html import CELL_STYLE
from gatewaykit.notebook.html_views.evaluation_html import render_evaluation_html
from gatewaykit.notebook.html_views.evaluation_repeats_html import BADGE_COLOURS
from gatewaykit.notebook.html_views.style import BOX, CODE, MUTED, esc, format_cost

__all__ = ["CHANGE_MARKS", "render_changes_html", "render_report_html"]

CHANGE_MARKS = {"better": ("▲ better", BADGE_COLOURS["stable"]), "worse": ("▼ worse", BADGE_COLOURS["fails"]),
                "same": ("= same", "transparent"), "new": ("new", BADGE_COLOURS["flaky"]),
                "removed": ("removed", BADGE_COLOURS["flaky"])}  # fmt: skip
_TABLE = "border-collapse:collapse;table-layout:fixed;width:100%;font-size:0.9em"
_MARK = "display:inline-block;padding:0 6px;border-radius:8px;font-size:0.85em"
_POLICY = "default-src 'none'; img-src data:; media-src data:; style-src 'unsafe-inline'"


def _count(passed: Any, repeats: Any) -> str:
    try:
        return f"{int(passed)}/{int(repeats)}"
    except (TypeError, ValueError):
        return "–"


def _line(record: dict[str, Any]) -> str:
    change = str(record.get("change"))
    label, colour = CHANGE_MARKS.get(change, (change, "transparent"))
    p_value = record.get("p_value")
    title = f"Fisher exact p = {p_value:.3g}" if isinstance(p_value, float) and p_value == p_value else ""
    before = _count(record.get("before_passed"), record.get("before_repeats"))
    after = _count(record.get("after_passed"), record.get("after_repeats"))
    return (f'<div class="gk-change" data-change="{esc(change)}" title="{esc(title)}">{esc(record["scorer"])} '
            f"{esc(before)} → <b>{esc(after)}</b> "
            f'<span style="{_MARK};background:{colour}">{esc(label)}</span></div>')  # fmt: skip


def render_changes_html(grid: ChangesGrid) -> str:
    """The comparison as a grid (see the module docstring)."""
    cells: dict[tuple[str, str], list[str]] = {}
    for record in grid.records:
        cells.setdefault((str(record["case_id"]), str(record["model"])), []).append(_line(record))
    worse = sum(1 for r in grid.records if r["change"] == "worse")
    better = sum(1 for r in grid.records if r["change"] == "better")
    head = (f"compared with the baseline: {worse} worse, {better} better, of {len(grid.records)} cells "
            f"(passes before → after; a change is one Fisher's exact test finds at alpha {grid.alpha:g} "
            "over all the cells, or every repeat flipping)")  # fmt: skip
    header = f'<th style="{CELL_STYLE}">case</th>' + "".join(
        f'<th style="{CELL_STYLE}"><code style="{CODE}">{esc(m)}</code></th>' for m in grid.models)
    rows = "".join(
        f'<tr><td style="{CELL_STYLE}"><code style="{CODE}">{esc(case)}</code></td>'
        + "".join(f'<td class="gk-change-cell" style="{CELL_STYLE}">{"".join(cells.get((case, m), []))}</td>'
                  for m in grid.models) + "</tr>"
        for case in grid.case_ids)  # fmt: skip
    return (f'<div class="gk-changes tex2jax_ignore mathjax_ignore" style="{BOX}"><div style="{MUTED};margin-bottom:6px">'
            f'{esc(head)}</div><table class="gk-changes-grid" style="{_TABLE}"><thead><tr>{header}</tr></thead>'
            f"<tbody>{rows}</tbody></table></div>")  # fmt: skip


def _stability_table(records: list[dict[str, Any]]) -> str:
    columns = ["case_id", "model", "scorer", "passed", "repeats", "pass_rate", "pass_k", "spread", "flaky"]
    head = "".join(f'<th style="{CELL_STYLE}">{esc(c)}</th>' for c in columns)

    def shown(value: Any) -> str:
        if isinstance(value, bool):
            return "yes" if value else "no"
        if isinstance(value, float):
            return f"{value:.2f}"
        return "–" if value is None else str(value)

    body = "".join("<tr>" + "".join(f'<td style="{CELL_STYLE}">{esc(shown(r.get(c)))}</td>' for c in columns) + "</tr>"
                   for r in records)  # fmt: skip
    return f'<table class="gk-stability" style="{_TABLE}"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'


def _costs(evaluation: Any) -> str:
    lines = []
    for model in evaluation.models:
        costs = [c.total_cost for c in evaluation.cells if c.model == model and c.total_cost is not None]
        lines.append(f"<li><code>{esc(model)}</code>: {esc(format_cost(sum(costs)) if costs else 'cost unknown')}</li>")
    if evaluation.judge_cost:
        lines.append(f"<li>judging: {esc(format_cost(evaluation.judge_cost))}</li>")
    lines.append(f"<li><b>in all: {esc(format_cost(evaluation.total_cost))}</b></li>")
    return f'<ul class="gk-report-costs">{"".join(lines)}</ul>'


def render_report_html(report: EvaluationReport) -> str:
    """The whole page (see the module docstring)."""
    evaluation = report.evaluation
    sections = [f"<h1>{esc(report.title)}</h1>", "<h2>Costs</h2>", _costs(evaluation)]
    if report.changes is not None:
        sections += ["<h2>Compared with the baseline</h2>", render_changes_html(report.changes)]
    sections += ["<h2>Stability</h2>", _stability_table(report.stability), "<h2>Grid</h2>",
                 render_evaluation_html(evaluation)]  # fmt: skip
    return (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            f'<meta http-equiv="Content-Security-Policy" content="{html.escape(_POLICY)}">'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<title>{esc(report.title)}</title></head>"
            f'<body style="font-family:system-ui,sans-serif;margin:1.5em">{"".join(sections)}</body></html>\n')  # fmt: skip
