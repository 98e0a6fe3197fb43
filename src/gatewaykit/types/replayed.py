"""What says an answer was replayed from the client's cassette, in one wording for every display.

A replayed answer was neither sent nor charged: its ``usage.cost`` is what the
recording paid. The cassette marks a replayed JSON answer that reports usage with
``"gatewaykit_cassette": "replayed"`` (:data:`REPLAY_MARKER`, its last field), and
a replayed stream marks the answer it assembles the same way
(:func:`mark_replayed`), so whatever shows an answer can tell
(:func:`replayed_answer`) and show :func:`replayed_note` where a cost would
stand: the words of the answer's ledger row (``cost_source="replayed"``).

Here, below the ledger, so the types' own plain-text faces (``print(answer)``)
say it too; :mod:`gatewaykit.costs.rows` re-exports the note.
"""

from __future__ import annotations

from typing import Any, TypeVar

from gatewaykit.money import format_usd

__all__ = ["REPLAYED_NOTE", "REPLAY_MARKER", "mark_replayed", "replayed_answer", "replayed_note"]

REPLAY_MARKER = "gatewaykit_cassette"
REPLAYED_NOTE = "replayed from a cassette: not charged"

_Answer = TypeVar("_Answer")


def replayed_note(usage: Any = None) -> str:
    """``replayed from a cassette: not charged (recorded cost $0.0021)``: what a display shows for the cost of
    an answer the client's cassette replayed (the row's note, and what the recording paid when ``usage`` says).

    ``usage`` is the replayed answer's usage (anything with ``total_cost``), or the recorded amount itself.
    """
    if isinstance(usage, (int, float)):
        recorded: Any = usage
    else:
        recorded = getattr(usage, "total_cost", None) if usage is not None else None
    known = isinstance(recorded, (int, float)) and not isinstance(recorded, bool) and recorded > 0
    return REPLAYED_NOTE + (f" (recorded cost {format_usd(recorded)})" if known else "")


def replayed_answer(answer: Any) -> bool:
    """Whether ``answer`` (a response model) carries the cassette's replay marker."""
    extra = getattr(answer, "model_extra", None) or {}
    return extra.get(REPLAY_MARKER) == "replayed"


def mark_replayed(answer: _Answer) -> _Answer:
    """``answer`` (a response model) marked as a cassette replay, as the cassette marks a JSON answer."""
    extra = getattr(answer, "__pydantic_extra__", None)
    if isinstance(extra, dict):
        extra[REPLAY_MARKER] = "replayed"
    return answer
