"""``client.evaluate(..., checkpoint=path)``: each finished cell kept in a :class:`Checkpoint` file.

Three rows per finished cell, all plain data (never code): its result (keyed
by the cell's case, model and repeat, fingerprinted by the request that made
it, so another prompt, model or parameter runs again), its facts (latency,
tokens) and each judge's verdict (keyed by the judge's model, rubric,
temperature and seed). A cell's facts are written before its result: a cell
whose result is stored is finished. A re-run restores those cells (this run
pays $0 for them, ``cost_source="checkpoint"``) and re-judges nothing already
judged; plain Python scorers run again (they cost nothing and may have changed).
"""

from __future__ import annotations

import math
from typing import Any, Callable, Optional

from gatewaykit.client.session_tools.checkpoint import Checkpoint
from gatewaykit.client.session_tools.evaluation import EvaluationCell
from gatewaykit.client.session_tools.evaluation_plan import cell_key

__all__ = ["EvaluationStore"]


def _facts_key(key: str) -> str:
    return f"{key}:facts"


def _verdict_key(cell: EvaluationCell, judge: Any) -> str:
    return f"{cell_key(cell)}:judge:{judge.fingerprint}"


class EvaluationStore:
    """The checkpoint of one evaluation run (thread-safe: cells are kept as they finish)."""

    def __init__(self, path: Any, client: Any) -> None:
        self._checkpoint = Checkpoint(path, client)
        self._extra: dict[str, Any] = {}

    def restore(self, cells: list[EvaluationCell], calls: list[Callable[[], Any]], keys: list[str],
                judges: list[Any]) -> list[EvaluationCell]:  # fmt: skip
        """Fill the cells the file holds (results, facts); the cells still to send, in order."""
        results, todo = self._checkpoint.plan(calls, keys)
        extra = [_facts_key(key) for key in keys] + [_verdict_key(c, j) for c in cells for j in judges]
        self._extra = self._checkpoint.load(extra)
        waiting = set(todo)
        for index, (cell, result) in enumerate(zip(cells, results)):
            if index in waiting:
                continue
            facts = self._extra.get(_facts_key(keys[index])) or {}
            cell.result, cell.restored = result, True
            cell.latency_s, cell.tokens = facts.get("latency_s"), facts.get("tokens")
            cell.total_cost, cell.cost_source = 0.0, "checkpoint"
            paid = facts.get("paid_cost")  # absent from a checkpoint an older gatewaykit wrote: not known
            cell.cost_when_paid = float(paid) if isinstance(paid, (int, float)) and math.isfinite(paid) else None
        return [cells[index] for index in todo]

    def keep(self, cell: EvaluationCell) -> None:
        """A finished cell: its facts, then its result (committed at once)."""
        key = cell_key(cell)
        self._checkpoint.store(_facts_key(key), {"latency_s": cell.latency_s, "tokens": cell.tokens,
                                                 "paid_cost": cell.paid_cost})
        self._checkpoint.store(key, cell.result)

    def verdict(self, cell: EvaluationCell, judge: Any) -> Optional[dict[str, Any]]:
        """A verdict this judge gave this cell in an earlier run, or None."""
        found = self._extra.get(_verdict_key(cell, judge))
        return found if isinstance(found, dict) and "score" in found else None

    def keep_verdict(self, cell: EvaluationCell, judge: Any, verdict: dict[str, Any]) -> None:
        self._checkpoint.store(_verdict_key(cell, judge), dict(verdict))

    def close(self) -> None:
        self._checkpoint.close()

    def warn(self) -> None:
        self._checkpoint.warn()
