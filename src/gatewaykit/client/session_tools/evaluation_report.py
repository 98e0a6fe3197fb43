"""What an evaluation's report and its comparison grid are made of (pandas-free; the notebook layer draws them).

:class:`ChangesGrid` is ``ev.compare(baseline)`` as a grid (rows: cases,
columns: models, each scorer's before → after with its change marked);
:class:`EvaluationReport` is what ``ev.to_html(path)`` writes: the grid, the
stability, the comparison when a baseline is given, the costs. Both are shown
through :func:`gatewaykit.presentation.rich_bundle`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

__all__ = ["ChangesGrid", "EvaluationReport", "write_report"]


@dataclass
class ChangesGrid:
    """A comparison's records (``compare_groups``) laid out by case and model."""

    records: list[dict[str, Any]]
    alpha: float = 0.05

    @property
    def case_ids(self) -> list[str]:
        return list(dict.fromkeys(str(r["case_id"]) for r in self.records))

    @property
    def models(self) -> list[str]:
        return list(dict.fromkeys(str(r["model"]) for r in self.records))

    def __repr__(self) -> str:
        counts = {change: sum(1 for r in self.records if r["change"] == change) for change in ("better", "worse")}
        return f"ChangesGrid({len(self.records)} cells, {counts['better']} better, {counts['worse']} worse)"


@dataclass
class EvaluationReport:
    """An evaluation as one self-contained HTML page (see the module docstring)."""

    evaluation: Any
    stability: list[dict[str, Any]] = field(default_factory=list)
    changes: Optional[ChangesGrid] = None
    title: str = "gatewaykit evaluation"


def write_report(report: EvaluationReport, path: Path) -> Path:
    """Write the report's page to ``path`` (UTF-8); ImportError when the notebook layer cannot draw it."""
    from gatewaykit.presentation import rich_bundle

    page = rich_bundle(report).get("text/html")
    if not page:
        raise ImportError("to_html() draws with gatewaykit's notebook layer: pip install 'gatewaykit[colab]'")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(page, encoding="utf-8")
    return path
