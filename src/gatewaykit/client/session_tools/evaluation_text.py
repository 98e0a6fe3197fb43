"""An :class:`~gatewaykit.client.session_tools.evaluation.Evaluation` as plain text (``print(ev)``, terminals).

Row by row: the case, then one line per model (latency, cost, scores, the
output's start or the error, and the row's marks), then a summary line per
model (with repeats, how many case × model × scorer cells were stable, flaky or failing). A cell the client's cassette replayed shows, for its cost, the note its
ledger row has (not charged, and what the recording paid), and each total says
how many cells (and judge requests) it leaves out that way. Model output is untrusted: control characters are removed, so an
escape sequence in an answer cannot drive the terminal.
"""

from __future__ import annotations

import math
import re
from typing import Any

from gatewaykit.client.session_tools.scoring import mean_score, numeric_scores
from gatewaykit.costs.rows import REPLAYED, replayed_note
from gatewaykit.money import format_usd, plural

__all__ = ["best_legend", "cell_line", "cost_text", "evaluation_text", "judges_replayed_text", "mean_text", "replayed_text",
           "score_text", "stability_text"]

_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_WIDTH = 70


def _line(text: Any, width: int = _WIDTH) -> str:
    flat = " ".join(_CONTROL.sub("", str(text)).split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def score_text(value: Any) -> str:
    """A score as shown: ✓/✗ for a bool, two decimals for a number, the value's start otherwise."""
    if isinstance(value, bool):
        return "✓" if value else "✗"
    if isinstance(value, (int, float)):
        return f"{value:.2f}"
    return _line(value, 24)


def cost_text(cell: Any) -> str:
    """A cell's cost as shown: the amount (with where it came from when not the gateway's report), or for a
    cell the client's cassette replayed, its ledger row's note (what the recording paid, when its answer says)."""
    if cell.cost_source == REPLAYED:
        return replayed_note(getattr(cell.result, "usage", None))
    if cell.total_cost is None:
        return "cost not reported" if cell.ok else ""
    text = format_usd(cell.total_cost)
    if cell.cost_source in ("cached", "checkpoint"):
        return f"{text} ({cell.cost_source})"
    return f"≈ {text} est." if cell.cost_source == "estimated" else text


def replayed_text(cells: Any) -> str:
    """``2 cells replayed from a cassette: not charged (recorded cost $0.0042)``: what a total of ``cells``
    leaves out, "" when the cassette replayed none of them."""
    replayed = [cell for cell in cells if cell.cost_source == REPLAYED]
    if not replayed:
        return ""
    recorded = [getattr(getattr(cell.result, "usage", None), "total_cost", None) for cell in replayed]
    known = math.fsum(cost for cost in recorded if isinstance(cost, (int, float)) and math.isfinite(cost))
    return f"{plural(len(replayed), 'cell')} {replayed_note(known)}"


def judges_replayed_text(evaluation: Any) -> str:
    """``4 judge requests replayed from a cassette: not charged``: what ``judge_cost`` leaves out, "" for none."""
    count = evaluation.judge_replayed
    return f"{plural(count, 'judge request')} {replayed_note()}" if count else ""


def mean_text(cell: Any) -> str:
    """``mean 0.47``: what a row's "best" compares (:attr:`EvaluationCell.score`), for a cell with more than one
    score (with one, that score is it); "" otherwise."""
    if len(numeric_scores(cell.scores.values())) < 2 or cell.score is None:
        return ""
    return f"mean {cell.score:.2f}"


def best_legend(evaluation: Any) -> str:
    """What the marks mean where a reader could not tell: ``best = the highest mean score`` (each cell shows its
    :func:`mean_text`), or ``best = the highest judge`` with one score column; and, when cells were restored from
    the checkpoint (each reads $0.00 now), that "cheapest" goes by what each cost when it was sent. "" for neither."""
    columns = evaluation.score_columns
    parts = []
    if columns:
        parts.append(f"best = the highest {columns[0]}" if len(columns) == 1 else "best = the highest mean score")
    if any(cell.restored for cell in evaluation.cells):
        parts.append("cheapest = by what each cost when it was sent")
    return " · ".join(parts)


def cell_line(cell: Any, marks: Any = ()) -> str:
    """One cell on one line: model, latency, cost, scores, the output's start (or the error), marks."""
    facts = [cell.model]
    if cell.latency_s is not None:
        facts.append(f"{cell.latency_s:.2f} s")
    cost = cost_text(cell)
    if cost:
        facts.append(cost)
    facts.extend(f"{name} {score_text(value)}" for name, value in cell.scores.items())
    mean = mean_text(cell)
    if mean:
        facts.append(mean)
    facts.extend(f"{name} failed" for name in cell.score_errors)
    if cell.error is not None:
        body = f"error: {_line(cell.error)}"
    else:
        body = _line(cell.output) if cell.ok else "…"
    return " · ".join(facts) + f" — {body}" + (f"  [{', '.join(marks)}]" if marks else "")


def stability_text(evaluation: Any) -> str:
    """``stability: 4 of 6 cells stable, 2 flaky, 0 failing`` (a cell: case × model × scorer over the repeats)."""
    from gatewaykit.client.session_tools.evaluation_stats import groups_of

    groups = list(groups_of(evaluation).values())
    counts = [group.passed(0.5) for group in groups]
    stable = sum(1 for group, passed in zip(groups, counts) if passed == group.repeats)
    failing = sum(1 for passed in counts if passed == 0)
    return (f"stability: {stable} of {plural(len(groups), 'cell')} stable, {len(groups) - stable - failing} flaky, "
            f"{failing} failing (ev.stability())")


def evaluation_text(evaluation: Any) -> str:
    """The whole evaluation: rows of cells, then one summary line per model (and the quote of a dry run)."""
    head = f"{evaluation.kind} evaluation: {plural(len(evaluation.cases), 'case')} × {plural(len(evaluation.models), 'model')}"
    if evaluation.repeats > 1:
        head += f" × {evaluation.repeats} repeats"
    if evaluation.dry_run:
        quote = evaluation.quote
        summary = getattr(quote, "summary", None) or "nothing could be priced"
        return f"{head} (dry run, nothing sent)\n  {len(evaluation.cells)} cells; quote: {summary}"
    legend = best_legend(evaluation)
    lines = [head + (f" ({legend})" if legend else "")]
    for row in evaluation.rows:
        first = row[0]
        repeat = f" (repeat {first.repeat + 1})" if evaluation.repeats > 1 else ""
        lines.append(f"[{_line(first.case_id, 20)}]{repeat} {_line(first.prompt)}")
        marks = evaluation.marks(row)
        for index, cell in enumerate(row):
            lines.append("  " + cell_line(cell, marks.get(index, ())))
    lines.append("summary:")
    for model in evaluation.models:
        mine = [c for c in evaluation.cells if c.model == model]
        costs = [c.total_cost for c in mine if c.total_cost is not None]
        means = []
        for column in evaluation.score_columns:
            value = mean_score(c.scores.get(column) for c in mine)
            if value is not None:
                means.append(f"{column} {value:.2f}")
        errors = sum(1 for c in mine if c.error_text is not None)
        facts = [model, *means, format_usd(sum(costs)) if costs else "cost unknown"]
        replayed = replayed_text(mine)
        if replayed:
            facts.append(replayed)
        if errors:
            facts.append(f"{errors} error{'s' if errors != 1 else ''}")
        lines.append("  " + " · ".join(facts))
    if evaluation.repeats > 1 and evaluation.score_columns:
        lines.append("  " + stability_text(evaluation))
    if evaluation.judge_cost:
        lines.append(f"  judging: {format_usd(evaluation.judge_cost)}")
    judges_replayed = judges_replayed_text(evaluation)
    if judges_replayed:
        lines.append(f"  judging: {judges_replayed}")
    return "\n".join(lines)
