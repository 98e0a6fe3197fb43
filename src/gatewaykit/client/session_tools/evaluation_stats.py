"""Repeats read as evidence: ``Evaluation.stability()``, ``.compare(baseline)``, ``.assert_no_regression(baseline)``.

A *group* is one case × model × score column over an evaluation's repeats; a repeat passes when its
score is True or a number at least ``threshold``, and an error never passes. ``compare`` calls a group
``better`` or ``worse`` only on evidence (a Fisher exact test on the pass counts, Bonferroni over the
groups, or two sides that each agree and disagree with each other), so an unchanged evaluation seldom
shows a change. The rule in full: ``docs/evaluation-gate.md``.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass
from typing import Any, Iterable, Optional

from gatewaykit.client.session_tools.scoring import numeric_scores

__all__ = ["Group", "RegressionError", "compare_groups", "fisher_exact", "groups_of", "passes", "regression_message"]

CHANGES = ("better", "worse", "same", "new", "removed")


class RegressionError(AssertionError):
    """``assert_no_regression`` found worse groups; ``.worse`` is their comparison rows (a DataFrame)."""

    def __init__(self, message: str, worse: Any = None) -> None:
        super().__init__(message)
        self.worse = worse


def passes(value: Any, threshold: float) -> bool:
    """Whether one repeat's score passes: True, or a number at least ``threshold``."""
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, float)) and not (isinstance(value, float) and math.isnan(value)):
        return value >= threshold
    return False


@dataclass
class Group:
    """One case × model × score column over the repeats."""

    case_id: str
    model: str
    scorer: str
    values: list[Any]

    def passed(self, threshold: float) -> int:
        return sum(1 for value in self.values if passes(value, threshold))

    @property
    def repeats(self) -> int:
        return len(self.values)

    def numbers(self) -> list[float]:
        return numeric_scores(self.values)


def groups_of(evaluation: Any) -> dict[tuple[str, str, str], Group]:
    """The evaluation's groups by (case_id, model, scorer), in row order (a failed cell counts as no score)."""
    columns = evaluation.score_columns
    found: dict[tuple[str, str, str], Group] = {}
    for cell in evaluation.cells:
        for column in columns:
            key = (cell.case_id, cell.model, column)
            group = found.setdefault(key, Group(cell.case_id, cell.model, column, []))
            group.values.append(cell.scores.get(column) if cell.ok else None)
    return found


def stability_records(evaluation: Any, threshold: float) -> list[dict[str, Any]]:
    """One record per group: repeats, passed, pass_rate, pass_k, mean, spread (std), min, max, flaky."""
    records = []
    for group in groups_of(evaluation).values():
        passed, numbers = group.passed(threshold), group.numbers()
        records.append({
            "case_id": group.case_id, "model": group.model, "scorer": group.scorer,
            "repeats": group.repeats, "passed": passed,
            "pass_rate": passed / group.repeats if group.repeats else None,
            "pass_k": group.repeats > 0 and passed == group.repeats,
            "mean": statistics.fmean(numbers) if numbers else None,
            "spread": statistics.pstdev(numbers) if len(numbers) > 1 else (0.0 if numbers else None),
            "min": min(numbers) if numbers else None,
            "max": max(numbers) if numbers else None,
            "flaky": 0 < passed < group.repeats,
        })
    return records


def _log_comb(n: int, k: int) -> float:
    return math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1)


def fisher_exact(a: int, b: int, c: int, d: int) -> float:
    """The two-sided p-value of Fisher's exact test on [[a, b], [c, d]] (the tables no likelier than this one)."""
    row1, row2, col1 = a + b, c + d, a + c
    n = row1 + row2
    if n == 0 or row1 == 0 or row2 == 0 or col1 == 0 or col1 == n:
        return 1.0
    low, high = max(0, col1 - row2), min(col1, row1)
    total = _log_comb(n, col1)

    def probability(x: int) -> float:
        return math.exp(_log_comb(row1, x) + _log_comb(row2, col1 - x) - total)

    observed = probability(a)
    return min(1.0, math.fsum(p for x in range(low, high + 1) if (p := probability(x)) <= observed * (1 + 1e-9)))


def _change(before: Group, after: Group, threshold: float, level: float) -> tuple[str, float]:
    n1, n2 = before.repeats, after.repeats
    k1, k2 = before.passed(threshold), after.passed(threshold)
    p_value = fisher_exact(k1, n1 - k1, k2, n2 - k2)
    if not n1 or not n2 or k1 * n2 == k2 * n1:
        return "same", p_value
    unanimous = k1 in (0, n1) and k2 in (0, n2)
    if p_value < level or unanimous:
        return ("better" if k2 * n1 > k1 * n2 else "worse"), p_value
    return "same", p_value


def compare_groups(evaluation: Any, baseline: Any, alpha: float, threshold: float) -> list[dict[str, Any]]:
    """One record per group of either evaluation (see the module docstring for the rule)."""
    if not hasattr(baseline, "cells") or not hasattr(baseline, "score_columns"):
        raise TypeError(f"compare(baseline) takes an Evaluation (gk.Evaluation.load(folder) reads a saved one), "
                        f"not {type(baseline).__name__}")  # fmt: skip
    if not (isinstance(alpha, (int, float)) and 0 < alpha < 1):
        raise ValueError(f"compare(alpha=...) is a probability between 0 and 1, not {alpha!r}")
    after, before = groups_of(evaluation), groups_of(baseline)
    shared = [key for key in after if key in before]
    level = alpha / max(1, len(shared))
    records = []
    for key in [*after, *(key for key in before if key not in after)]:
        old, new = before.get(key), after.get(key)
        record: dict[str, Any] = {"case_id": key[0], "model": key[1], "scorer": key[2]}
        for side, group in (("before", old), ("after", new)):
            record.update(dict.fromkeys((f"{side}_passed", f"{side}_repeats", f"{side}_rate", f"{side}_mean")))
            if group is not None:
                passed, numbers = group.passed(threshold), group.numbers()
                record[f"{side}_passed"], record[f"{side}_repeats"] = passed, group.repeats
                record[f"{side}_rate"] = passed / group.repeats if group.repeats else None
                record[f"{side}_mean"] = statistics.fmean(numbers) if numbers else None
        if old is None or new is None:
            record["p_value"], record["change"] = None, ("new" if old is None else "removed")
        else:
            record["change"], record["p_value"] = _change(old, new, threshold, level)
        records.append(record)
    return records


def _rate(passed: Any, repeats: Any) -> str:
    return f"{passed}/{repeats} passed"


def regression_message(worse: Iterable[dict[str, Any]], total: int) -> str:
    """``2 of 6 cells got worse:`` then one line per worse group (case, model, scorer, before → after)."""
    rows = list(worse)
    lines = [f"{len(rows)} of {total} cell{'s' if total != 1 else ''} got worse than the baseline:"]
    for row in rows:
        p_value: Optional[float] = row.get("p_value")
        shown_p = f" (p={p_value:.2g})" if isinstance(p_value, float) else ""
        lines.append(f"  case {row['case_id']!r}, model {row['model']!r}, scorer {row['scorer']!r}: "
                     f"{_rate(row['before_passed'], row['before_repeats'])} → "
                     f"{_rate(row['after_passed'], row['after_repeats'])}{shown_p}")  # fmt: skip
    return "\n".join(lines)
