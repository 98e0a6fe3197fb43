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

from typing import Any, Optional, TypeVar

from gatewaykit.money import format_usd

__all__ = [
    "CACHED_NOTE", "CACHE_MARKER", "REPLAYED_NOTE", "REPLAY_MARKER", "cached_note", "mark_replayed", "not_charged",
    "not_charged_note", "replayed_answer", "replayed_note",
]  # fmt: skip

REPLAY_MARKER = "gatewaykit_cassette"
REPLAYED_NOTE = "replayed from a cassette: not charged"
# The response cache's mark on an answer it kept (``{"gatewaykit_cache": {"saved_cost": ...}}``, the client's
# ``transports/response_cache.py``), and the words of a cached answer's ledger row.
CACHE_MARKER = "gatewaykit_cache"
CACHED_NOTE = "cached: not sent, not charged"

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


def cached_note(saved: Any = None) -> str:
    """``cached: not sent, not charged (saved $0.0021)``: a cached answer's ledger note (``saved``: what the
    kept answer cost when it was made, if known)."""
    known = isinstance(saved, (int, float)) and not isinstance(saved, bool) and saved > 0
    return CACHED_NOTE + (f" (saved {format_usd(saved)})" if known else "")


def not_charged_note(answer: Any) -> Optional[str]:
    """What stands for the cost of an answer nobody paid for now: :func:`replayed_note` for the cassette's,
    :func:`cached_note` for the response cache's; None for an answer the gateway charged."""
    if replayed_answer(answer):
        return replayed_note(getattr(answer, "usage", None))
    marker = (getattr(answer, "model_extra", None) or {}).get(CACHE_MARKER)
    if isinstance(marker, dict):
        return cached_note(marker.get("saved_cost"))
    return None


def not_charged(answer: Any) -> bool:
    """Whether ``answer`` came from the cassette or the response cache: nothing was charged for it now."""
    return not_charged_note(answer) is not None
