"""What a conversation's turns cost, as every view of them says it: the chat box, the session's HTML and Markdown.

A request the client's cassette replayed or its response cache answered was not
charged: it counts $0 (as its ledger row, and as ``session.cost``), and where the
turn's cost stands it says what its ledger row says instead
(``replayed from a cassette: not charged (recorded cost $x)``, ``cached: not
sent, not charged (saved $x)``); a total says how many turns it leaves out that
way (:func:`not_charged_turns_text`). Pure: no I/O, no display; plain text, the
views escape it.
"""

from __future__ import annotations

import math
from typing import Any, Iterable, Optional

from gatewaykit.money import format_usd
from gatewaykit.types.replayed import NotCharged, by_source, not_charged_of, not_charged_total, replayed_answer

__all__ = [
    "all_not_charged", "not_charged_turns_text", "turn_cost", "turn_cost_facts", "turn_not_charged",
    "turn_not_charged_notes", "turn_replayed",
]  # fmt: skip


def turn_cost(turn: Any) -> Optional[float]:
    """USD the gateway reported for a turn's requests (None when one of them reported none); a request the
    client's cassette replayed or its response cache answered was not charged: $0, as its ledger row
    (:func:`turn_not_charged` has what it cost when it was paid for)."""
    costs = []
    for completion in turn.completions:
        if not_charged_of(completion) is not None:
            continue
        cost = getattr(getattr(completion, "usage", None), "cost", None)
        total = getattr(cost, "total_cost", None)
        if total is None or not math.isfinite(total):
            return None
        costs.append(total)
    return math.fsum(costs)


def turn_replayed(turn: Any) -> tuple[int, float]:
    """How many of a turn's requests the client's cassette replayed, and what the recording paid for them
    (the costs their answers report)."""
    replayed = [completion for completion in turn.completions if replayed_answer(completion)]
    recorded = [getattr(getattr(completion, "usage", None), "total_cost", None) for completion in replayed]
    return len(replayed), math.fsum(cost for cost in recorded if isinstance(cost, (int, float)) and math.isfinite(cost))


def turn_not_charged(turn: Any) -> list[NotCharged]:
    """A turn's requests nobody paid for now, by source (replayed, then cached; one entry each at most), with
    what they cost when they were paid for added up (None when no answer says)."""
    return [merged for _, merged in by_source(i for i in map(not_charged_of, turn.completions) if i is not None)]


def turn_not_charged_notes(turn: Any) -> list[str]:
    """What stands for the cost of a turn's requests not charged now: their ledger rows' note, one per source."""
    return [item.note for item in turn_not_charged(turn)]


def turn_cost_facts(turn: Any) -> list[str]:
    """A finished turn's cost as its footer says it: the amount, or (nothing charged) the note, or both."""
    notes = turn_not_charged_notes(turn)
    charged = sum(1 for completion in turn.completions if not_charged_of(completion) is None)
    facts = []
    if charged or not notes:
        cost = turn_cost(turn)
        facts.append(format_usd(cost) if cost is not None else "cost not reported")
    return facts + notes


def all_not_charged(turn: Any) -> bool:
    """Whether every request of a turn (one at least) came from the cassette or the response cache."""
    return bool(turn.completions) and all(not_charged_of(completion) is not None for completion in turn.completions)


def not_charged_turns_text(turns: Iterable[Any]) -> str:
    """``2 turns replayed from a cassette: not charged (recorded cost $0.0042)``: what a conversation's total
    leaves out ("" when every turn was charged)."""
    return not_charged_total("turn", [item for turn in turns for item in turn_not_charged(turn)])
