"""An evaluation with repeats as a grid: one row per case, each cell its repeats' stability and the repeats on click.

Each cell shows a badge per score column (``contains('Paris') 4/5 flaky``:
green when every repeat passed, amber when some did, red when none did; the
pass rate, pass^k and the spread of the scores on hover), the first repeat's
output, and a ``<details>`` (no script: it opens on click in any notebook, an
exported page or a report) listing every repeat with its scores, latency, cost
and output. Everything from a model or a case is escaped.
"""

from __future__ import annotations

from typing import Any, Optional

from gatewaykit.client.session_tools.evaluation_stats import Group
from gatewaykit.notebook.html_views.evaluation_cell_html import (
    CELL_STYLE, footer_html, output_html, scores_html, text_box, thumbnail_uri,
)
from gatewaykit.notebook.html_views.style import MUTED, esc

__all__ = ["BADGE_COLOURS", "group_cell_html", "grouped_rows", "groups_by_row", "stability_badge"]

BADGE_COLOURS = {"stable": "rgba(25,135,84,0.2)", "flaky": "rgba(224,168,0,0.28)", "fails": "rgba(217,83,79,0.22)"}
_BADGE = "display:inline-block;margin:0 4px 3px 0;padding:0 6px;border-radius:8px;font-size:0.8em"
_REPEAT = "border-top:1px dashed rgba(128,128,128,0.35);padding:4px 0;margin-top:4px"
_PREVIEW = "max-height:6em;overflow:auto;white-space:pre-wrap;font-size:0.85em"


def state_of(passed: int, repeats: int) -> str:
    """``stable`` (every repeat passed), ``fails`` (none did) or ``flaky`` (some did)."""
    return "stable" if repeats and passed == repeats else "fails" if passed == 0 else "flaky"


def stability_badge(group: Group, threshold: float = 0.5) -> str:
    """One score column's badge over its repeats (see the module docstring)."""
    import statistics

    passed, repeats = group.passed(threshold), group.repeats
    state = state_of(passed, repeats)
    numbers = group.numbers()
    spread = f" · spread {statistics.pstdev(numbers):.2f}" if len(numbers) > 1 else ""
    rate = passed / repeats if repeats else 0.0
    title = f"pass rate {rate:.0%} · pass^{repeats} {'yes' if passed == repeats else 'no'}{spread}"
    return (f'<span class="gk-eval-stability" data-stability="{state}" title="{esc(title)}" '
            f'style="{_BADGE};background:{BADGE_COLOURS[state]}">{esc(group.scorer)} <b>{passed}/{repeats}</b> '
            f"{state}</span>")  # fmt: skip


def _preview(cell: Any) -> str:
    if cell.error is not None or cell.result is None:
        return output_html(cell)
    if cell.kind == "chat":
        return f'<div style="{_PREVIEW}">{esc(cell.text[:600])}</div>'
    if cell.kind == "image":
        sources = [thumbnail_uri(item) for item in getattr(cell.result, "data", None) or []]
        return "".join(f'<img src="{esc(src)}" alt="repeat {cell.repeat + 1}" style="max-height:90px;margin-right:4px">'
                       for src in sources if src)  # fmt: skip
    return f'<div style="{MUTED}">{esc(cell.output)}</div>'


def _repeat_html(cell: Any) -> str:
    return (f'<div class="gk-eval-repeat" data-repeat="{cell.repeat + 1}" style="{_REPEAT}">'
            f'<span style="{MUTED}">repeat {cell.repeat + 1}</span>{scores_html(cell)}{_preview(cell)}'
            f"{footer_html(cell)}</div>")  # fmt: skip


def group_cell_html(evaluation: Any, cells: list[Any], finished: Optional[list[Any]] = None) -> str:
    """One case × model over its repeats: a badge per scorer over the ``finished`` ones (all by default), the
    first finished output, and the finished repeats on click; while some still run it says how many are done."""
    done = list(cells) if finished is None else finished
    first = cells[0]
    badges = "".join(stability_badge(Group(first.case_id, first.model, column,
                                           [c.scores.get(column) if c.ok else None for c in done]))
                     for column in evaluation.score_columns)  # fmt: skip
    shown = next((cell for cell in done if cell.ok), done[0] if done else first)
    flaky = 'data-stability="flaky"' in badges
    body = text_box(shown.text) if shown.kind == "chat" and shown.ok else output_html(shown)
    repeats = "".join(_repeat_html(cell) for cell in done)
    count = f"{len(cells)} repeats" if len(done) == len(cells) else f"{len(done)} of {len(cells)} repeats done"
    details = (f'<details class="gk-eval-repeats"><summary style="cursor:pointer;{MUTED}">'
               f"{count}</summary>{repeats}</details>")  # fmt: skip
    state = "done" if len(done) == len(cells) else "running"
    return (f'<td class="gk-eval-cell" data-model="{esc(first.model)}" data-case="{esc(first.case_id)}" '
            f'data-state="{state}" data-flaky="{int(flaky)}" style="{CELL_STYLE}"><div>{badges}</div>{body}{details}</td>')


def groups_by_row(evaluation: Any) -> list[list[list[Any]]]:
    """Per case, per model (in the grid's order): that case × model's cells, one per repeat."""
    repeats = max(1, evaluation.repeats)
    rows = evaluation.rows
    return [[[row[j] for row in rows[start : start + repeats]] for j in range(len(rows[start]))]
            for start in range(0, len(rows), repeats)]  # fmt: skip


def grouped_rows(evaluation: Any) -> list[list[str]]:
    """One list of ``<td>`` per case: each model's cell over its repeats."""
    return [[group_cell_html(evaluation, cells) for cells in row] for row in groups_by_row(evaluation)]
