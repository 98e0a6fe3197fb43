"""``gk.Evaluation``: what ``client.evaluate(cases, models=[...])`` returns.

One :class:`EvaluationCell` per case × model × repeat, in row order: the model's result (or its error),
its scores by column, its latency and the ledger's cost. ``to_pandas()``, ``summary()``,
``save(folder)`` / ``Evaluation.load(folder)``, ``to_html(path)`` and the repeat statistics
(:mod:`gatewaykit.client.session_tools.evaluation_stats`) read it; with ``dry_run=True`` no cell has run
and ``quote`` is what the run would cost. Details: ``docs/internals.md``.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional, Union

from gatewaykit.client.session_tools.comparison import shown_seconds
from gatewaykit.client.session_tools.scoring import mean_score
from gatewaykit.money import plural
from gatewaykit.optional_packages import needs
from gatewaykit.presentation import rich_bundle
from gatewaykit.types.replayed import NotCharged

__all__ = ["Evaluation", "EvaluationCell", "FIXED_COLUMNS"]

FIXED_COLUMNS = ("case_id", "prompt", "model", "output")
TAIL_COLUMNS = ("latency_s", "total_cost", "cost_source", "error")
_PREVIEW = 80


@dataclass
class EvaluationCell:
    """One case on one model (one repeat): the output, its scores, its latency and cost."""

    row: int
    case_id: str
    case: dict[str, Any]
    model: str
    kind: str
    repeat: int = 0
    result: Any = None
    error: Optional[BaseException] = None
    scores: dict[str, Any] = field(default_factory=dict)
    score_errors: dict[str, BaseException] = field(default_factory=dict)
    reasons: dict[str, str] = field(default_factory=dict)  # a judge's one-sentence reason, by its name
    latency_s: Optional[float] = None
    total_cost: Optional[float] = None
    cost_source: Optional[str] = None
    tokens: Optional[int] = None
    tag: str = ""
    restored: bool = False  # the result came from the checkpoint (nothing was sent for it this run)
    cost_when_paid: Optional[float] = None  # a restored cell's: what the run that sent it paid (the checkpoint's)
    # Set by comparison.settle() from the cell's ledger rows, as on a ComparisonEntry: for an answer the cassette
    # replayed or the response cache gave, where it came from and what it cost then, and its rows' note.
    not_charged: Optional[NotCharged] = None
    note: Optional[str] = None

    @property
    def paid_cost(self) -> Optional[float]:
        """What this model cost for this case: ``total_cost``; for a cell not paid for now, what it cost when it
        was (restored from the checkpoint, or answered by the cassette or the response cache), None when not
        known. What the "cheapest" mark compares, so a re-run from a checkpoint marks the same cells."""
        if self.restored:
            return self.cost_when_paid
        return self.not_charged.cost if self.not_charged is not None else self.total_cost

    @property
    def prompt(self) -> str:
        return str(self.case["prompt"])

    @property
    def ok(self) -> bool:
        return self.error is None and self.result is not None

    @property
    def text(self) -> str:
        """A chat cell's answer ("" for media, errors and cells still running)."""
        if self.kind != "chat" or self.result is None:
            return ""
        try:
            return self.result.choices[0].message.content or ""
        except (AttributeError, IndexError):
            return ""

    def media_names(self) -> list[str]:
        """The file names ``save()`` gives this cell's media (what ``to_pandas()`` shows as its output)."""
        if self.kind == "chat" or not self.ok:
            return []
        from gatewaykit.client.session_tools.evaluation_files import media_names

        return media_names(self)

    @property
    def output(self) -> str:
        """The text, or the media file name(s) (several joined by "; ")."""
        return self.text if self.kind == "chat" else "; ".join(self.media_names())

    @property
    def score(self) -> Optional[float]:
        """The mean of this cell's numeric scores (bools as 0/1), None when it has none."""
        return mean_score(self.scores.values())

    @property
    def error_text(self) -> Optional[str]:
        """The request's error, else the scorers' errors ("scorer 'name': ..."), else None."""
        if self.error is not None:
            return getattr(self.error, "saved_text", None) or f"{type(self.error).__name__}: {self.error}"
        if self.score_errors:
            return "; ".join(f"scorer {name!r}: {getattr(exc, 'saved_text', None) or f'{type(exc).__name__}: {exc}'}"
                             for name, exc in self.score_errors.items())  # fmt: skip
        return None


def _model_latency(cell: EvaluationCell) -> Optional[float]:
    """A cell's seconds as a model's latency, to the tenth the grid shows (cells that read "0.3s" alike are not
    told apart by a "fastest" on one of them); None for an answer read back (a cassette's replay, the response
    cache's): those seconds are the local read's, so "fastest" among them would mark noise."""
    if cell.cost_source in ("replayed", "cached") or cell.latency_s is None:
        return None
    return shown_seconds(cell.latency_s)



@dataclass
class Evaluation:
    """The cells of an evaluation (see the module docstring); a grid in a notebook, a table in a terminal."""

    kind: str
    models: list[str]
    cases: list[dict[str, Any]]
    case_ids: list[str]
    scorers: list[str]
    repeats: int = 1
    cells: list[EvaluationCell] = field(default_factory=list)
    quote: Any = None
    dry_run: bool = False
    judge_cost: float = 0.0  # USD the judges' requests cost this run (not in the cells' total_cost)
    judge_replayed: int = 0  # how many of the judges' requests the client's cassette replayed (at $0 in judge_cost)

    @property
    def rows(self) -> list[list[EvaluationCell]]:
        """The cells row by row (one row per case and repeat), each row in the order of ``models``."""
        width = max(1, len(self.models))
        return [self.cells[start : start + width] for start in range(0, len(self.cells), width)]

    @property
    def score_columns(self) -> list[str]:
        """Every score column, in the scorers' order (a dict scorer's keys where its name stands)."""
        seen: dict[str, None] = {}
        for name in self.scorers:
            seen[name] = None
        expanded: list[str] = []
        for name in seen:
            keys = [column for cell in self.cells for column in cell.scores if column.startswith(name + ".")]
            expanded.extend(dict.fromkeys(keys) or [name])
        return expanded

    def marks(self, row: list[EvaluationCell]) -> dict[int, list[str]]:
        """For one row, the cells to mark (by index in the row): "best", "cheapest", "fastest"."""
        marked: dict[int, list[str]] = {}
        if len(row) < 2:
            return marked
        done = [(i, cell) for i, cell in enumerate(row) if cell.ok]
        for label, value, pick in (
            ("best", lambda c: c.score, max),
            ("cheapest", lambda c: c.paid_cost, min),
            ("fastest", _model_latency, min),
        ):
            known: list[tuple[int, float]] = [(i, v) for i, c in done if (v := value(c)) is not None]
            if len(known) < 2 or len({v for _, v in known}) < 2:
                continue  # a mark among equals (or of one) says nothing
            target = pick(v for _, v in known)
            for i, v in known:
                if v == target:
                    marked.setdefault(i, []).append(label)
        return marked

    @property
    def total_cost(self) -> float:
        """USD this run cost: every cell's known cost plus the judges'."""
        return math.fsum(c.total_cost for c in self.cells if c.total_cost is not None) + self.judge_cost

    @property
    def errors(self) -> list[EvaluationCell]:
        """The cells whose request (or a scorer) failed."""
        return [cell for cell in self.cells if cell.error_text is not None]

    def to_pandas(self) -> Any:
        """One row per case × model × repeat (columns: case_id, prompt, model, output, the scores, latency_s,
        total_cost, cost_source, error; imports pandas)."""
        pd = needs("pandas", "Evaluation.to_pandas()", "the evaluation's grid (its display) and .save(folder)")

        scores = self.score_columns
        records = []
        for cell in self.cells:
            record: dict[str, Any] = {"case_id": cell.case_id, "prompt": cell.prompt, "model": cell.model,
                                      "output": cell.output if cell.ok else None}  # fmt: skip
            for column in scores:
                value = cell.scores.get(column)
                record[column] = value
            record.update(latency_s=cell.latency_s, total_cost=cell.total_cost, cost_source=cell.cost_source,
                          error=cell.error_text)  # fmt: skip
            records.append(record)
        return pd.DataFrame(records, columns=[*FIXED_COLUMNS, *scores, *TAIL_COLUMNS])

    def summary(self) -> Any:
        """One row per model: the mean of each score, total_cost, median_latency_s, errors (imports pandas)."""
        pd = needs("pandas", "Evaluation.summary()", "the evaluation's grid (its display) and .save(folder)")

        scores = self.score_columns
        records = []
        for model in self.models:
            mine = [cell for cell in self.cells if cell.model == model]
            record: dict[str, Any] = {"model": model}
            for column in scores:
                record[column] = mean_score(cell.scores.get(column) for cell in mine)
            latencies = [c.latency_s for c in mine if c.ok and c.latency_s is not None]
            costs = [c.total_cost for c in mine if c.total_cost is not None]
            record.update(
                total_cost=math.fsum(costs) if costs else None,
                median_latency_s=statistics.median(latencies) if latencies else None,
                errors=sum(1 for c in mine if c.error_text is not None),
            )
            records.append(record)
        return pd.DataFrame(records, columns=["model", *scores, "total_cost", "median_latency_s", "errors"])

    def save(self, folder: Union[str, "Path"]) -> Path:
        """Write ``evaluation.csv`` (formula-safe), ``evaluation.json`` (what :meth:`load` reads) and every cell's
        media into ``folder``; the CSV's path."""
        from gatewaykit.client.session_tools.evaluation_files import save_evaluation

        return save_evaluation(self, Path(folder))

    @classmethod
    def load(cls, folder: Union[str, "Path"]) -> "Evaluation":
        """The evaluation :meth:`save` wrote into ``folder`` (its media read back; plain JSON, no pickle)."""
        from gatewaykit.client.session_tools.evaluation_loading import load_evaluation

        return load_evaluation(Path(folder), cls, EvaluationCell)  # type: ignore[no-any-return]

    def stability(self, threshold: float = 0.5) -> Any:
        """One row per case × model × scorer over the repeats: repeats, passed, pass_rate, pass_k (all passed),
        mean, spread (standard deviation), min, max, flaky (some but not all passed). A repeat passes when its
        score is True or at least ``threshold``; an error does not pass (imports pandas)."""
        import pandas as pd

        from gatewaykit.client.session_tools.evaluation_stats import stability_records

        columns = ["case_id", "model", "scorer", "repeats", "passed", "pass_rate", "pass_k", "mean", "spread", "min",
                   "max", "flaky"]  # fmt: skip
        return pd.DataFrame(stability_records(self, threshold), columns=columns)

    def compare(self, baseline: "Evaluation", *, alpha: float = 0.05, threshold: float = 0.5) -> Any:
        """This evaluation against ``baseline``, one row per case × model × scorer with its ``change``: better,
        worse, same (noise-aware: the rule in :mod:`~gatewaykit.client.session_tools.evaluation_stats`), new or
        removed. A DataFrame; in a notebook, a grid with the changes marked (imports pandas)."""
        from gatewaykit.client.session_tools.evaluation_changes import comparison_frame
        from gatewaykit.client.session_tools.evaluation_stats import compare_groups

        return comparison_frame(compare_groups(self, baseline, alpha, threshold), alpha)

    def assert_no_regression(self, baseline: "Evaluation", *, alpha: float = 0.05, threshold: float = 0.5) -> None:
        """Raise :class:`~gatewaykit.client.session_tools.evaluation_stats.RegressionError` (an AssertionError)
        naming every cell :meth:`compare` finds worse (case, model, scorer, before → after); else nothing."""
        from gatewaykit.client.session_tools.evaluation_stats import RegressionError, regression_message

        frame = self.compare(baseline, alpha=alpha, threshold=threshold)
        worse = frame[frame["change"] == "worse"]
        if len(worse):
            shared = int(frame["change"].isin(["better", "worse", "same"]).sum())
            raise RegressionError(regression_message(worse.to_dict("records"), shared), worse)

    def to_html(self, path: Union[str, "Path"], *, baseline: Optional["Evaluation"] = None, alpha: float = 0.05,
                threshold: float = 0.5, title: str = "gatewaykit evaluation") -> Path:
        """Write one self-contained HTML file (media inline, no script, nothing fetched when opened): the grid,
        the stability, the comparison with ``baseline`` when given, the costs. Its path."""
        from gatewaykit.client.session_tools.evaluation_report import ChangesGrid, EvaluationReport, write_report
        from gatewaykit.client.session_tools.evaluation_stats import compare_groups, stability_records

        changes = None if baseline is None else ChangesGrid(compare_groups(self, baseline, alpha, threshold), alpha)
        report = EvaluationReport(self, stability_records(self, threshold), changes, title)
        return write_report(report, Path(path))

    def __repr__(self) -> str:
        state = "dry run" if self.dry_run else f"{sum(1 for c in self.cells if c.ok)} of {len(self.cells)} cells ok"
        return f"Evaluation({self.kind}, {plural(len(self.cases), 'case')} × {plural(len(self.models), 'model')}, {state})"

    def __str__(self) -> str:
        from gatewaykit.client.session_tools.evaluation_text import evaluation_text

        return evaluation_text(self)

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        return rich_bundle(self, str(self))
