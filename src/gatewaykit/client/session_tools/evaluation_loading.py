"""``ev.save(folder)``'s ``evaluation.json`` and ``gk.Evaluation.load(folder)``: an evaluation kept as plain data.

The JSON holds what the grid, ``stability()`` and ``compare()`` read: the
cases, models, scorers and repeats, and per cell its answer's text (chat) or
the names of its media files beside it, its scores, judges' reasons, errors
(as text), latency and cost; a case's value JSON cannot hold is kept as its text. Never code
(no pickle): loading runs nothing, and a media name that is not a plain file name is refused.
A loaded cell's result is a :class:`SavedAnswer`, :class:`SavedImages` or
:class:`SavedJob` read from those files; its error a :class:`SavedError`.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from types import SimpleNamespace
from typing import Any, Optional

__all__ = ["FORMAT", "SavedAnswer", "SavedError", "SavedImages", "SavedJob", "evaluation_record", "load_evaluation"]

FORMAT = "gatewaykit-evaluation"
VERSION = 1


class SavedError(Exception):
    """A request's or a scorer's error as the saved evaluation wrote it (``saved_text``: "Type: message")."""

    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.saved_text = text


class SavedAnswer:
    """A saved chat answer: ``choices[0].message.content`` is its text."""

    def __init__(self, text: str) -> None:
        self.choices = [SimpleNamespace(message=SimpleNamespace(content=text), index=0)]


class SavedImages:
    """A saved image result: ``data`` items with ``content`` (the file's bytes)."""

    def __init__(self, contents: list[bytes]) -> None:
        self.data = [SimpleNamespace(content=content, b64_json=None, url=None) for content in contents]


class SavedJob:
    """A saved video or song: ``content()`` reads its file; ``save(path)`` copies it."""

    status = "completed"
    videos: tuple[Any, ...] = ()
    audio: tuple[Any, ...] = ()
    completed_at = None

    def __init__(self, path: Path, kind: str) -> None:
        self.path = path
        self.id = path.stem
        self.object = "audio" if kind == "music" else "video"
        self.seconds = None

    def content(self) -> bytes:
        return self.path.read_bytes()

    def save(self, path: Any) -> Path:
        target = Path(path)
        if target.resolve() != self.path.resolve():
            target.write_bytes(self.content())
        return target


def _error_text(error: Optional[BaseException]) -> Optional[str]:
    if error is None:
        return None
    return getattr(error, "saved_text", None) or f"{type(error).__name__}: {error}"


def _number(value: Any) -> Any:
    return value if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value) else None


def evaluation_record(evaluation: Any) -> dict[str, Any]:
    """The evaluation as JSON-ready data (see the module docstring)."""
    cells = []
    for cell in evaluation.cells:
        cells.append({
            "row": cell.row, "case_id": cell.case_id, "model": cell.model, "repeat": cell.repeat,
            "ok": cell.ok, "text": cell.text if cell.kind == "chat" and cell.ok else None,
            "media": cell.media_names() if cell.ok else [],
            "error": _error_text(cell.error),
            "scores": {name: value if not isinstance(value, float) or math.isfinite(value) else None
                       for name, value in cell.scores.items()},
            "score_errors": {name: _error_text(exc) for name, exc in cell.score_errors.items()},
            "reasons": dict(cell.reasons),
            "latency_s": _number(cell.latency_s), "total_cost": _number(cell.total_cost),
            "cost_source": cell.cost_source, "tokens": cell.tokens, "paid_cost": _number(cell.paid_cost),
        })  # fmt: skip
    return {
        "format": FORMAT, "version": VERSION, "kind": evaluation.kind, "models": list(evaluation.models),
        "cases": evaluation.cases, "case_ids": list(evaluation.case_ids), "scorers": list(evaluation.scorers),
        "repeats": evaluation.repeats, "judge_cost": evaluation.judge_cost,
        "judge_replayed": evaluation.judge_replayed, "cells": cells,
    }  # fmt: skip


def _result(kind: str, saved: dict[str, Any], folder: Path) -> Any:
    if not saved.get("ok"):
        return None
    if kind == "chat":
        return SavedAnswer(str(saved.get("text") or ""))
    names = [str(name) for name in saved.get("media") or []]
    for name in names:
        if Path(name).name != name or name.startswith("."):
            raise ValueError(f"evaluation.json names a media file outside its folder: {name!r}")
    if kind == "image":
        return SavedImages([(folder / name).read_bytes() for name in names])
    if not names:
        return None
    return SavedJob(folder / names[0], kind)


def load_evaluation(folder: Path, evaluation_class: Any, cell_class: Any) -> Any:
    """The evaluation that ``save(folder)`` wrote, built of ``evaluation_class`` and ``cell_class`` (``Evaluation``
    and ``EvaluationCell``); FileNotFoundError / ValueError naming what is wrong."""
    path = folder / "evaluation.json"
    if not path.is_file():
        raise FileNotFoundError(f"{path} not found: load() reads the folder that Evaluation.save(folder) wrote")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except ValueError as exc:
        raise ValueError(f"{path} is not JSON ({exc})") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ValueError(f"{path} is not a saved gatewaykit evaluation")
    if data.get("version") != VERSION:
        raise ValueError(f"{path} is version {data.get('version')!r} of the format; this gatewaykit reads {VERSION}")
    kind = str(data["kind"])
    cases = list(data["cases"])
    case_ids = [str(i) for i in data["case_ids"]]
    by_id = dict(zip(case_ids, cases))
    evaluation = evaluation_class(kind=kind, models=list(data["models"]), cases=cases, case_ids=case_ids,
                            scorers=list(data["scorers"]), repeats=int(data["repeats"]),
                            judge_cost=float(data.get("judge_cost") or 0.0),
                            judge_replayed=int(data.get("judge_replayed") or 0))  # fmt: skip
    for saved in data["cells"]:
        case_id = str(saved["case_id"])
        cell = cell_class(row=int(saved["row"]), case_id=case_id, case=by_id[case_id], model=str(saved["model"]),
                              kind=kind, repeat=int(saved["repeat"]))  # fmt: skip
        cell.result = _result(kind, saved, folder)
        cell.error = SavedError(saved["error"]) if saved.get("error") else None
        cell.scores = dict(saved.get("scores") or {})
        cell.score_errors = {name: SavedError(str(text)) for name, text in (saved.get("score_errors") or {}).items()}
        cell.reasons = {str(k): str(v) for k, v in (saved.get("reasons") or {}).items()}
        cell.latency_s, cell.total_cost = saved.get("latency_s"), saved.get("total_cost")
        cell.cost_source, cell.tokens = saved.get("cost_source"), saved.get("tokens")
        evaluation.cells.append(cell)
    return evaluation
