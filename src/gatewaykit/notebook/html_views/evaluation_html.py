"""``render_evaluation_html(evaluation)``: the grid, one row per case, one column per model.

Each cell: its output (a chat answer as escaped text in a scrolling box, an
image as a thumbnail, a video or a song as its player), its scores (✓/✗, a
number, a judge's reason on hover, a scorer's error in red), latency and cost,
and the row's marks (best score, cheapest, fastest); with ``repeats`` > 1, one row
per case whose cells show a stability badge per scorer and their repeats on
click (:mod:`gatewaykit.notebook.html_views.evaluation_repeats_html`). Under the rows, a summary
row per model: mean scores, total cost, median latency, errors. A cell the
client's cassette replayed says so where its cost stands (its ledger row's note:
not charged, the recorded cost), and each total says how many it leaves out.
A dry run shows the plan (every cell "not sent") and the quote. Pure: strings of HTML built
from inline styles (GitHub, nbconvert and untrusted notebooks keep them),
everything from a model or a case escaped.

The live grid (:mod:`gatewaykit.notebook.comparison_views.evaluation_live`) builds
its cells with :func:`cell_html` and lays them out with :func:`grid_html`.
"""

from __future__ import annotations

import math
import statistics
from typing import Any, Optional, Sequence

from gatewaykit.client.session_tools.evaluation_text import (
    best_legend, cost_text, judges_replayed_text, mean_text, replayed_text,
)
from gatewaykit.client.session_tools.scoring import mean_score
from gatewaykit.money import plural
from gatewaykit.notebook.html_views.style import BOX, CODE, FOOTER, MUTED, esc, format_cost, format_seconds

__all__ = ["CELL_STYLE", "answer_box", "cell_html", "footer_html", "grid_html", "output_html", "render_evaluation_html", "scores_html", "text_box", "thumbnail_uri"]

_TABLE = "border-collapse:collapse;table-layout:fixed;width:100%;font-size:0.9em"
CELL_STYLE = _TD = "padding:6px 8px;text-align:left;vertical-align:top;border:1px solid rgba(128,128,128,0.3);overflow:hidden;word-wrap:break-word"
_TEXT = "max-height:12em;overflow:auto;white-space:pre-wrap;font-size:0.92em;line-height:1.4"
_MARK = "display:inline-block;margin:0 4px 2px 0;padding:0 6px;border-radius:8px;font-size:0.8em;background:rgba(25,135,84,0.18)"
_SCORE = "display:inline-block;margin:0 6px 0 0;font-size:0.85em"
_FAILED = "color:#d9534f"
_THUMB = "max-width:100%;max-height:180px;height:auto;display:block;border-radius:4px;margin-bottom:4px"


def text_box(text: str) -> str:
    """Model text, escaped, in a box that scrolls past 12 lines (a cell still streaming: its text as it comes)."""
    return f'<div class="gk-eval-text" style="{_TEXT}">{esc(text)}</div>'


# A finished answer's Markdown, rendered and sanitised as a chat answer's is (headings as bold paragraphs
# of the answer's own size), in the same scrolling box.
_ANSWER = "max-height:12em;overflow:auto;font-size:0.92em;line-height:1.4"


def answer_box(text: str) -> str:
    """A finished chat cell's answer: its Markdown rendered (sanitised: model output is untrusted)."""
    from gatewaykit.notebook.markdown_html.markdown import render_markdown

    html = render_markdown(text)
    if html.startswith('<p class="gk-heading" style="font-weight:600;margin:.9em'):  # no gap above a first heading
        html = html.replace("margin:.9em", "margin:0", 1)
    return f'<div class="gk-eval-text gk-eval-answer" style="{_ANSWER}">{html}</div>'


_THUMB_PX = 240
_thumbs: dict[str, str] = {}  # b64 payload digest -> JPEG thumbnail URI (a grid repaints its finished cells once)


def thumbnail_uri(item: Any) -> Optional[str]:
    """A small JPEG ``data:`` URI of an image (a grid of a dozen stays light in the saved notebook)."""
    from gatewaykit.notebook.html_views.media_html import image_data_uri

    try:
        content = item.content
    except (AttributeError, ValueError):
        return image_data_uri(item)
    import base64
    import hashlib
    import io

    key = hashlib.sha256(content).hexdigest()
    made = _thumbs.get(key)
    if made is None:
        try:
            from PIL import Image

            picture = Image.open(io.BytesIO(content), formats=["PNG", "JPEG", "WEBP", "GIF"]).convert("RGB")
            picture.thumbnail((_THUMB_PX, _THUMB_PX))
            out = io.BytesIO()
            picture.save(out, format="JPEG", quality=82)
        except Exception:  # noqa: BLE001 - no Pillow, or not a picture it reads: the image as it came
            return image_data_uri(item)
        made = _thumbs[key] = "data:image/jpeg;base64," + base64.b64encode(out.getvalue()).decode("ascii")
        while len(_thumbs) > 512:
            _thumbs.pop(next(iter(_thumbs)))
    return made


def _images_html(result: Any) -> str:
    figures = []
    for index, item in enumerate(getattr(result, "data", None) or []):
        src = thumbnail_uri(item)
        if src is None:
            figures.append(f'<div style="{MUTED}">image {index + 1}: no displayable image</div>')
        else:
            figures.append(f'<img src="{esc(src)}" alt="image {index + 1}" style="{_THUMB}">')
    return "".join(figures) or f'<div style="{MUTED}">no image</div>'


def _error_html(error: BaseException) -> str:
    message = getattr(error, "message", None) or str(error)
    return f'<div class="gk-error" style="{_FAILED}"><strong>{esc(type(error).__name__)}</strong>: {esc(message[:300])}</div>'


def output_html(cell: Any) -> str:
    """A finished cell's output (or its error)."""
    if cell.error is not None:
        return _error_html(cell.error)
    if cell.result is None:
        return f'<div style="{MUTED}">no result</div>'
    if cell.kind == "chat":
        return answer_box(cell.text)
    if cell.kind == "image":
        return _images_html(cell.result)
    from gatewaykit.notebook.html_views.players import job_player_html

    return job_player_html(cell.result)


def _score_value(value: Any) -> str:
    if value is None:
        return "–"
    if isinstance(value, bool):
        return "✓" if value else "✗"
    return f"{value:.2f}" if isinstance(value, float) else esc(value)


def scores_html(cell: Any) -> str:
    """The cell's scores as small labels (a judge's reason and a scorer's error on hover)."""
    parts = []
    for name, value in cell.scores.items():
        reason = cell.reasons.get(name.split(".")[0], "")
        title = f' title="{esc(reason)}"' if reason else ""
        parts.append(f'<span class="gk-eval-score" style="{_SCORE}"{title}>{esc(name)} <b>{_score_value(value)}</b></span>')
    mean = mean_text(cell)
    if mean:  # what the row's "best" compares
        parts.append(f'<span class="gk-eval-mean" style="{_SCORE};{MUTED}">{esc(mean)}</span>')
    for name, error in cell.score_errors.items():
        parts.append(
            f'<span class="gk-eval-score" data-failed="1" style="{_SCORE};{_FAILED}" '
            f'title="{esc(type(error).__name__)}: {esc(error)}">{esc(name)} error: {esc(str(error)[:80])}</span>'
        )
    return f'<div style="margin-top:4px">{"".join(parts)}</div>' if parts else ""


def footer_html(cell: Any) -> str:
    """A cell's latency and cost line."""
    facts = [format_seconds(cell.latency_s) if cell.latency_s is not None else "", cost_text(cell)]
    return f'<div class="gk-footer" style="{FOOTER}">{" · ".join(esc(f) for f in facts if f)}</div>'


def cell_html(cell: Any, body: Optional[str] = None, marks: Sequence[str] = (), state: str = "done", clock: str = "") -> str:
    """One grid cell: marks, the body (a finished cell's output when None), scores, latency and cost.

    ``state`` is "waiting", "running" or "done" (``data-state``; a failed cell says "failed").
    """
    if body is None:
        body = output_html(cell)
    if state == "done" and cell.error is not None:
        state = "failed"
    labels = "".join(f'<span class="gk-mark" style="{_MARK}">{esc(mark)}</span>' for mark in marks)
    head = f"<div>{labels}</div>" if labels else ""
    if state in ("done", "failed"):
        tail = scores_html(cell) + footer_html(cell)
    else:
        tail = f'<div class="gk-footer" style="{FOOTER}">{esc(state)}{" · " + esc(clock) if clock else ""}</div>'
    return (
        f'<td class="gk-eval-cell" data-model="{esc(cell.model)}" data-case="{esc(cell.case_id)}" '
        f'data-state="{esc(state)}" style="{_TD}">{head}{body}{tail}</td>'
    )


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
        from gatewaykit.notebook.html_views.evaluation_repeats_html import grouped_rows

        return grid_html(evaluation, grouped_rows(evaluation), summary_row(evaluation), _tail(evaluation), grouped=True)
    rows = []
    for row in evaluation.rows:
        marks = evaluation.marks(row)
        rows.append([cell_html(cell, marks=marks.get(index, ())) for index, cell in enumerate(row)])
    return grid_html(evaluation, rows, summary_row(evaluation), _tail(evaluation))
