"""Checking an evaluation before anything is sent: its cases, its models, its scorers, its empty cells.

:func:`plan_evaluation` is pure: a case without a prompt, an unknown model
(with "did you mean ...?"), models of different kinds, two scorers of one
name, a ``stream=`` keyword: each is refused here, naming what to change, so
a mistake costs nothing. The cells come out in row order with their ledger
tags and checkpoint keys.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from typing import Any, Callable, Iterable

from gatewaykit.client.session_tools.comparison import kind_of
from gatewaykit.client.session_tools.evaluation import Evaluation, EvaluationCell
from gatewaykit.client.session_tools.scoring import named_scorers

__all__ = ["EvaluationPlan", "cell_key", "normalised_cases", "plan_evaluation"]


@dataclass
class EvaluationPlan:
    """An evaluation ready to run: the (empty) :class:`Evaluation`, its scorers by name, its ledger tag."""

    evaluation: Evaluation
    scorers: list[tuple[str, Callable[..., Any]]]
    tag: str


def normalised_cases(cases: Any) -> tuple[list[dict[str, Any]], list[str]]:
    """Each case as a dict with a non-empty ``prompt``, and its id (its ``id``, else its position from 1)."""
    if isinstance(cases, (str, bytes, dict)) or not isinstance(cases, Iterable):
        raise TypeError("evaluate() takes a list of cases: prompts, or dicts with a 'prompt' key")
    normal: list[dict[str, Any]] = []
    ids: list[str] = []
    for index, case in enumerate(cases):
        case = {"prompt": case} if isinstance(case, str) else case
        label = f"case {index + 1}" if not isinstance(case, dict) or "id" not in case else f"case {case['id']!r}"
        if not isinstance(case, dict):
            raise ValueError(f"evaluate(): {label} is {type(case).__name__}; a case is a prompt or a dict with 'prompt'")
        prompt = case.get("prompt")
        if not isinstance(prompt, str) or not prompt.strip():
            raise ValueError(f"evaluate(): {label} has no prompt; give it a non-empty 'prompt' string")
        normal.append(dict(case))
        ids.append(str(case.get("id", index + 1)))
    if not normal:
        raise ValueError("evaluate() needs at least one case")
    repeated = sorted({i for i in ids if ids.count(i) > 1})
    if repeated:
        raise ValueError(f"evaluate(): two cases have the id {', '.join(map(repr, repeated))}; ids must differ")
    return normal, ids


def _kind(catalog: Any, models: Any) -> tuple[str, list[str]]:
    if isinstance(models, str) or not isinstance(models, Iterable):
        raise TypeError(f"evaluate(models=...) takes a list of model ids, not {models!r}")
    ids = list(dict.fromkeys(models))
    if not ids:
        raise ValueError("evaluate(models=[...]) needs at least one model id")
    kinds = {model_id: kind_of(catalog, model_id, "evaluate") for model_id in ids}
    if len(set(kinds.values())) > 1:
        named = ", ".join(f"{model_id!r} ({kind})" for model_id, kind in kinds.items())
        raise ValueError(f"evaluate() runs models of one kind, but these differ: {named}; evaluate each kind on its own")
    return kinds[ids[0]], ids


def cell_key(cell: EvaluationCell) -> str:
    """The checkpoint key of a cell: its case (all its fields), its model and its repeat."""
    text = json.dumps([cell.case, cell.model, cell.repeat], sort_keys=True, default=repr)
    return "eval:" + hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def plan_evaluation(catalog: Any, cases: Any, models: Any, scorers: Any, repeats: int, params: dict[str, Any]) -> EvaluationPlan:
    """Check everything, then the empty evaluation (see the module docstring)."""
    if "stream" in params:
        raise TypeError("evaluate() takes no stream=: chat cells stream by themselves where a display shows them")
    if isinstance(repeats, bool) or not isinstance(repeats, int) or repeats < 1:
        raise ValueError(f"evaluate(repeats=...) is a whole number from 1, not {repeats!r}")
    normal, ids = normalised_cases(cases)
    kind, model_ids = _kind(catalog, models)
    named = named_scorers(scorers)
    tag = f"evaluate-{os.urandom(4).hex()}"
    evaluation = Evaluation(kind=kind, models=model_ids, cases=normal, case_ids=ids,
                            scorers=[name for name, _ in named], repeats=repeats)  # fmt: skip
    for index, (case, case_id) in enumerate(zip(normal, ids)):
        for repeat in range(repeats):
            row = index * repeats + repeat
            for model in model_ids:
                cell = EvaluationCell(row=row, case_id=case_id, case=case, model=model, kind=kind, repeat=repeat)
                cell.tag = f"{tag}-{len(evaluation.cells)}"
                evaluation.cells.append(cell)
    return EvaluationPlan(evaluation=evaluation, scorers=named, tag=tag)
