"""``render_evaluation_html(evaluation)``: the grid, one row per case, one column per model.

Each cell shows its output, scores, latency and cost (with repeats, a stability badge per scorer and the
repeats on click), each row its marks, and a summary row per model closes the grid; a dry run shows the
plan and the quote. Pure: HTML strings with inline styles (GitHub, nbconvert and untrusted notebooks
keep them), everything from a model or a case escaped. The live grid lays its cells out with
:func:`grid_html`. Details: ``docs/internals.md``.
"""

from __future__ import annotations

import math
import statistics
from typing import Any, Optional, Sequence

from gatewaykit.client.session_tools.evaluation_text import best_legend, judges_replayed_text, replayed_text
from gatewaykit.client.session_tools.scoring import mean_score
from gatewaykit.money import plural
from gatewaykit.notebook.html_views.evaluation_repeats_html import grouped_rows
from gatewaykit.notebook.html_views.evaluation_cell_html import (
    CELL_STYLE, answer_box, cell_html, footer_html, output_html, scores_html, text_box, thumbnail_uri,
)
from gatewaykit.notebook.html_views.style import BOX, CODE, FOOTER, MUTED, esc, format_cost, format_seconds

__all__ = ["CELL_STYLE", "answer_box", "cell_html", "footer_html", "grid_html", "output_html", "render_evaluation_html",
           "scores_html", "text_box", "thumbnail_uri"]

_TABLE = "border-collapse:collapse;table-layout:fixed;width:100%;font-size:0.9em"
_TD = CELL_STYLE
_SCORE = "display:inline-block;margin:0 6px 0 0;font-size:0.85em"

def _case_html(evaluation: Any, cell: Any, grouped: bool = False) -> str:
    repeat = f' <span style="{MUTED}">repeat {cell.repeat + 1}</span>' if evaluation.repeats > 1 and not grouped else ""
    expected = cell.case.get("expected")
    extra = f'<div style="{MUTED};font-size:0.85em">expected: {esc(str(expected)[:200])}</div>' if expected is not None else ""
    return (
        f'<td class="gk-eval-case" style="{_TD}"><code style="{CODE}">{esc(cell.case_id)}</code>{repeat}'
        f'<div style="font-size:0.92em">{esc(cell.prompt[:300])}</div>{extra}</td>'
    )


def summary_row(evaluation: Any) -> str:
    """One summary cell per model: mean scores, total cost, median latency, errors."""
    cells = []
    for model in evaluation.models:
        mine = [c for c in evaluation.cells if c.model == model]
        parts = []
        for column in evaluation.score_columns:
            mean = mean_score(c.scores.get(column) for c in mine)
            if mean is not None:
                parts.append(f'<span style="{_SCORE}">{esc(column)} <b>{mean:.2f}</b></span>')
        costs = [c.total_cost for c in mine if c.total_cost is not None]
        latencies = [c.latency_s for c in mine if c.ok and c.latency_s is not None]
        errors = sum(1 for c in mine if c.error_text is not None)
        facts = [format_cost(math.fsum(costs)) if costs else "cost unknown", replayed_text(mine)]
        if latencies:
            facts.append(f"median {format_seconds(statistics.median(latencies))}")
        if errors:
            facts.append(f"{errors} error{'s' if errors != 1 else ''}")
        shown = " · ".join(fact for fact in facts if fact)
        cells.append(f'<td style="{_TD}"><div>{"".join(parts)}</div><div style="{FOOTER}">{esc(shown)}</div></td>')
    return f'<tr class="gk-eval-summary"><td style="{_TD}"><b>summary</b></td>{"".join(cells)}</tr>'


def _offline_kind(evaluation: Any) -> Optional[str]:
    """``synthetic`` / ``scripted`` when the offline gateway made an answer of the grid (else None)."""
    from gatewaykit.notebook.html_views.html import offline_content

    return next((kind for cell in evaluation.cells if cell.result is not None and (kind := offline_content(cell.result))),
                None)  # fmt: skip


def grid_html(evaluation: Any, rows: Sequence[Sequence[str]], summary: str = "", tail: str = "",
              grouped: bool = False) -> str:
    """The table: a header of models, one ``<tr>`` per row (its case, then its cells' ``<td>``), the summary.
    ``grouped``: one row per case (its repeats inside each cell), not one per case and repeat."""
    head = f"{evaluation.kind} evaluation · {plural(len(evaluation.cases), 'case')} × {plural(len(evaluation.models), 'model')}"
    if evaluation.repeats > 1:
        head += f" × {evaluation.repeats} repeats"
    if evaluation.scorers:
        head += " · scored by " + ", ".join(evaluation.scorers)
    legend = best_legend(evaluation)
    if legend:
        head += f" · {legend}"
    head = esc(head)
    offline = _offline_kind(evaluation)
    if offline:  # as each chat answer's own footer says it: these are not a real model's answers
        head += f" · <strong>{esc(offline)}</strong> (offline gateway)"
    width = f"{max(12, 30 - 4 * len(evaluation.models))}%"
    header = f'<th style="{_TD};width:{width}">case</th>' + "".join(
        f'<th style="{_TD}"><code style="{CODE}">{esc(model)}</code></th>' for model in evaluation.models
    )
    heads = evaluation.rows[:: evaluation.repeats] if grouped else evaluation.rows
    body = "".join(
        f"<tr>{_case_html(evaluation, heads[index][0], grouped)}{''.join(cells)}</tr>" for index, cells in enumerate(rows)
    )
    return (
        f'<div class="gk-evaluation tex2jax_ignore mathjax_ignore" style="{BOX}"><div style="{MUTED};margin-bottom:6px">{head}</div>'
        f'<table class="gk-eval-grid" style="{_TABLE}"><thead><tr>{header}</tr></thead><tbody>{body}{summary}</tbody></table>'
        f"{tail}</div>"
    )


def _tail(evaluation: Any) -> str:
    total = evaluation.total_cost
    judging = f" (judging {format_cost(evaluation.judge_cost)})" if evaluation.judge_cost else ""
    replayed = [text for text in (replayed_text(evaluation.cells), judges_replayed_text(evaluation)) if text]
    said = f"in all: {format_cost(total)}{judging}" + "".join(f" · {text}" for text in replayed)
    return f'<div class="gk-footer" style="{FOOTER}">{esc(said)}</div>'


def render_evaluation_html(evaluation: Any) -> str:
    """The whole evaluation as a static grid (a dry run: the plan and its quote)."""
    if evaluation.dry_run:
        pending = f'<div style="{MUTED}">not sent (dry run)</div>'
        rows = [[cell_html(cell, pending, state="planned") for cell in row] for row in evaluation.rows]
        quote = evaluation.quote
        summary = esc(quote.summary) if quote is not None else "nothing could be priced"
        tail = f'<div class="gk-eval-quote" style="margin-top:6px"><b>quote</b>: {summary}</div>'
        return grid_html(evaluation, rows, tail=tail)
    if evaluation.repeats > 1:  # one row per case: each cell's stability badge, its repeats on click
        return grid_html(evaluation, grouped_rows(evaluation), summary_row(evaluation), _tail(evaluation), grouped=True)
    rows = []
    for row in evaluation.rows:
        marks = evaluation.marks(row)
        rows.append([cell_html(cell, marks=marks.get(index, ())) for index, cell in enumerate(row)])
    return grid_html(evaluation, rows, summary_row(evaluation), _tail(evaluation))
