"""What says an answer was not charged (replayed from a cassette, answered from the cache), in one wording for every display.

A replayed answer was neither sent nor charged; the cassette marks it (:data:`REPLAY_MARKER`,
:func:`mark_replayed`) and every display words it with :func:`replayed_note` / :func:`not_charged_note`,
so the recorded cost is never shown as paid again. Details: ``docs/internals.md``.
"""

from __future__ import annotations

import math
from typing import Any, Iterable, NamedTuple, Optional, TypeVar

from gatewaykit.money import format_usd, plural

__all__ = [
    "CACHED", "CACHED_NOTE", "CACHE_MARKER", "REPLAYED", "REPLAYED_NOTE", "REPLAY_MARKER", "NotCharged", "by_source", "cached_note",
    "mark_replayed", "not_charged", "not_charged_note", "not_charged_of", "not_charged_total", "replayed_answer",
    "replayed_note",
]  # fmt: skip

REPLAY_MARKER = "gatewaykit_cassette"
REPLAYED_NOTE = "replayed from a cassette: not charged"
# The response cache's mark on an answer it kept (``{"gatewaykit_cache": {"saved_cost": ...}}``, the client's
# ``transports/response_cache.py``), and the words of a cached answer's ledger row.
CACHE_MARKER = "gatewaykit_cache"
CACHED_NOTE = "cached: not sent, not charged"
# The ledger's cost_source of such a request's row (costs.rows: REPLAYED, CACHED).
REPLAYED = "replayed"
CACHED = "cached"

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


class NotCharged(NamedTuple):
    """An answer (or several added up) nobody paid for now: ``source`` is its ledger row's ``cost_source``
    (:data:`REPLAYED` or :data:`CACHED`), ``cost`` what it cost when it was paid for (the recording's, or the
    kept answer's; None when not known)."""

    source: str
    cost: Optional[float] = None

    @property
    def note(self) -> str:
        """What stands for its cost: :func:`replayed_note` or :func:`cached_note` (its ledger row's note)."""
        return cached_note(self.cost) if self.source == CACHED else replayed_note(self.cost)


def _amount(value: Any) -> Optional[float]:
    known = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
    return float(value) if known else None


def not_charged_of(answer: Any) -> Optional[NotCharged]:
    """Where an answer nobody paid for now came from and what it cost then (the cassette's replay: the
    recorded cost its usage reports; the response cache's: the saving its marker holds); None for an answer
    the gateway charged."""
    if replayed_answer(answer):
        return NotCharged(REPLAYED, _amount(getattr(getattr(answer, "usage", None), "total_cost", None)))
    marker = (getattr(answer, "model_extra", None) or {}).get(CACHE_MARKER)
    if isinstance(marker, dict):
        return NotCharged(CACHED, _amount(marker.get("saved_cost")))
    return None


def not_charged_note(answer: Any) -> Optional[str]:
    """What stands for the cost of an answer nobody paid for now: :func:`replayed_note` for the cassette's,
    :func:`cached_note` for the response cache's; None for an answer the gateway charged."""
    found = not_charged_of(answer)
    return found.note if found is not None else None


def not_charged(answer: Any) -> bool:
    """Whether ``answer`` came from the cassette or the response cache: nothing was charged for it now."""
    return not_charged_of(answer) is not None


def not_charged_total(noun: str, items: Iterable[NotCharged], many: Optional[str] = None) -> str:
    """What a total leaves out: ``2 turns replayed from a cassette: not charged (recorded cost $0.0042)``.

    ``items``: one :class:`NotCharged` per ``noun`` (a turn, a model) that was not charged, once per source
    (a turn with both a replayed and a cached request is counted under each). Replayed first, then cached,
    joined by ", "; the costs known are added up. "" when there are none.
    """
    return ", ".join(f"{plural(count, noun, many)} {total.note}" for count, total in by_source(items))


def by_source(items: Iterable[NotCharged]) -> list[tuple[int, NotCharged]]:
    """``items`` added up per source, replayed first, then cached: (how many, one :class:`NotCharged` with the
    costs known added up, None when none is); a source with no item is left out."""
    items = list(items)
    grouped = []
    for source in (REPLAYED, CACHED):
        mine = [item for item in items if item.source == source]
        if mine:
            known = [cost for cost in (_amount(item.cost) for item in mine) if cost is not None]
            grouped.append((len(mine), NotCharged(source, math.fsum(known) if known else None)))
    return grouped
