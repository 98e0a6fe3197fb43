"""``client.compare(prompt, models=[...], **params)``: one prompt on several models of one kind, side by side.

Planning is pure (:func:`plan_comparison`): every id is checked against the
catalog before anything is sent (an unknown id gets "did you mean ...?", a
model of another kind says which kind it is), so a typo costs nothing. Then
every model runs concurrently (threads for :class:`Client`, tasks for
:class:`AsyncClient`); one model failing shows its error in its own column and
the others finish (the runs: :mod:`gatewaykit.client.session_tools.comparison_runs`). Each model's requests are tagged in the ledger, so its cost
is what the ledger says: reported for chats and images, estimated (and labelled
so) or not reported for video and music jobs. A model the client's cassette
replayed or its response cache answered was not charged: where its cost stands
it shows what its ledger row says (``replayed from a cassette: not charged
(recorded cost $x)``, ``cached: not sent, not charged (saved $x)``), and the
total says how many models it leaves out that way.
"""

from __future__ import annotations

import difflib
import math
import os
import time
from dataclasses import dataclass, field
from typing import Any, Iterable, Optional

from gatewaykit.errors import ModelNotFoundError
from gatewaykit.optional_packages import needs
from gatewaykit.presentation import rich_bundle
from gatewaykit.terminal_text import plain_text
from gatewaykit.types import ModelList
from gatewaykit.types.replayed import CACHED, REPLAYED, NotCharged, not_charged_of, not_charged_total

__all__ = ["Comparison", "ComparisonEntry", "cost_text", "plan_comparison"]

_PREVIEW_CHARS = 120


def shown_seconds(seconds: float) -> float:
    """``seconds`` as precisely as a comparison or an evaluation grid shows them (a tenth): what "fastest"
    compares, so the mark never singles out one of two models that read alike."""
    return round(float(seconds), 1)


@dataclass
class ComparisonEntry:
    """One model's column: its result (or error), how long it took, what it cost.

    ``not_charged``: for a column nobody paid for now (the cassette replayed it, or the response cache
    answered it; ``total_cost`` 0), where it came from and what it cost when it was paid for; ``note`` is then
    what its ledger row says instead of a cost.
    """

    model: str
    kind: str
    result: Any = None
    error: Optional[BaseException] = None
    latency_s: Optional[float] = None
    total_cost: Optional[float] = None
    cost_source: Optional[str] = None
    tokens: Optional[int] = None
    tag: str = ""
    not_charged: Optional[NotCharged] = None
    note: Optional[str] = None

    @property
    def ok(self) -> bool:
        return self.error is None and self.result is not None

    @property
    def paid_cost(self) -> Optional[float]:
        """What the model costs for this prompt: ``total_cost``, or for a column not charged now what it cost
        when it was paid for (None when not known). What :attr:`Comparison.cheapest` compares."""
        if self.not_charged is not None:
            return self.not_charged.cost
        return self.total_cost

    @property
    def preview(self) -> str:
        """A one-line preview of the output: the answer's start, the image size, the job's media."""
        if self.error is not None:
            return f"error: {_one_line(str(self.error))}"
        result = self.result
        if result is None:
            return ""
        if self.kind == "chat":
            text = ""
            try:
                text = result.choices[0].message.content or ""
            except (AttributeError, IndexError):
                pass
            return _one_line(text)
        if self.kind == "image":
            count = len(getattr(result, "data", None) or [])
            return f"{count} image{'s' if count != 1 else ''} · {getattr(result, 'size', None) or '?'}"
        seconds = getattr(result, "seconds", None)
        status = getattr(result, "status", "")
        return f"{self.kind} {status}" + (f" · {seconds} s" if seconds else "")


def _one_line(text: str) -> str:
    text = " ".join(plain_text(str(text)).split())  # a model's escape sequences never reach a terminal
    return text if len(text) <= _PREVIEW_CHARS else text[: _PREVIEW_CHARS - 1] + "…"


@dataclass
class Comparison:
    """The result of ``client.compare``: one :class:`ComparisonEntry` per model, in the order asked."""

    prompt: str
    kind: str
    entries: list[ComparisonEntry] = field(default_factory=list)

    @property
    def results(self) -> dict[str, Any]:
        """Model id -> its full result (``ChatCompletion``, ``ImageResult``, ``VideoJob``, ``MusicJob``; None on error)."""
        return {entry.model: entry.result for entry in self.entries}

    @property
    def errors(self) -> dict[str, BaseException]:
        """Model id -> the error it ended with (only the models that failed)."""
        return {entry.model: entry.error for entry in self.entries if entry.error is not None}

    @property
    def cheapest(self) -> Optional[str]:
        """The model whose known cost is lowest (None when no cost is known); a model not charged now (replayed,
        cached) counts at what it cost when it was paid for, not at its $0."""
        priced = [e for e in self.entries if e.ok and e.paid_cost is not None]
        return min(priced, key=lambda e: e.paid_cost).model if priced else None  # type: ignore[arg-type,return-value]

    @property
    def fastest(self) -> Optional[str]:
        """The model that finished first among those that succeeded; a model read back (a cassette's replay, the
        response cache's answer) is not timed: its seconds are the local read's, so the mark would fall on noise."""
        timed = [e for e in self.entries if e.ok and e.latency_s is not None and e.not_charged is None]
        if not timed:
            return None
        seconds = {e.model: shown_seconds(e.latency_s) for e in timed if e.latency_s is not None}
        first = min(timed, key=lambda e: e.latency_s or 0.0)
        if list(seconds.values()).count(seconds[first.model]) > 1:
            return None  # another model reads as fast ("0.3 s" and "0.3 s"): a mark on one would single out noise
        return first.model

    @property
    def total_cost(self) -> Optional[float]:
        """USD of the whole comparison (None when any model's cost is not known)."""
        costs = [e.total_cost for e in self.entries if e.ok or e.total_cost]
        if any(cost is None for cost in costs):
            return None
        return math.fsum(c for c in costs if c is not None)

    @property
    def not_charged_text(self) -> str:
        """``2 models replayed from a cassette: not charged (recorded cost $0.0011)``: what the total leaves out
        ("" when every model was charged)."""
        return not_charged_total("model", [e.not_charged for e in self.entries if e.not_charged is not None])

    @property
    def total_text(self) -> str:
        """``in all: $0.00242``, saying so when the rounded figures shown per model do not add up to it, and how
        many models were not charged (:attr:`not_charged_text`) ("" unknown)."""
        from gatewaykit.money import format_usd

        total = self.total_cost
        if total is None:
            return ""
        shown = [format_usd(e.total_cost) for e in self.entries if e.total_cost is not None and e.not_charged is None]
        added = math.fsum(float(text.lstrip("$").replace(",", "")) for text in shown)
        line = f"in all: {format_usd(total)}"
        if len(shown) > 1 and format_usd(added) != format_usd(total):
            line += f" (exact; the rounded figures above add up to {format_usd(added)})"
        not_charged = self.not_charged_text
        return line + (f" · {not_charged}" if not_charged else "")

    def to_pandas(self) -> Any:
        """One row per model: model, preview, latency_s, total_cost, cost_source, tokens, error, note (imports
        pandas); ``note`` is what a model not charged now shows for its cost (its ledger row's note), else None."""
        pd = needs("pandas", "Comparison.to_pandas()", "the comparison's grid (its display)")

        rows = [
            {
                "model": e.model,
                "preview": e.preview if e.error is None else "",
                "latency_s": e.latency_s,
                "total_cost": e.total_cost,
                "cost_source": e.cost_source,
                "tokens": e.tokens,
                "error": None if e.error is None else str(e.error),
                "note": e.note,
            }
            for e in self.entries
        ]
        columns = ["model", "preview", "latency_s", "total_cost", "cost_source", "tokens", "error", "note"]
        return pd.DataFrame(rows, columns=columns)

    def __repr__(self) -> str:
        failed = len(self.errors)
        return (
            f"Comparison({self.kind}, {len(self.entries)} models"
            + (f", {failed} failed" if failed else "")
            + f", cheapest={self.cheapest!r}, fastest={self.fastest!r})"
        )

    def __str__(self) -> str:
        lines = [f"{self.kind} comparison: {_one_line(self.prompt)}"]
        width = max((len(e.model) for e in self.entries), default=5)
        for e in self.entries:
            marks = [m for m, on in (("cheapest", e.model == self.cheapest), ("fastest", e.model == self.fastest)) if on]
            latency = "" if e.latency_s is None else f"{e.latency_s:.1f} s"
            cost = cost_text(e)
            lines.append(
                f"  {e.model:<{width}}  {latency:>7}  {cost:<14} {e.preview}" + (f"  [{', '.join(marks)}]" if marks else "")
            )
        if self.total_text and len(self.entries) > 1:
            lines.append(f"  {self.total_text}")
        return plain_text("\n".join(lines))

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        return rich_bundle(self, str(self))


def column_line(entry: ComparisonEntry) -> str:
    """One column on one line: model, latency, tokens, cost, and the output's preview (or the error)."""
    facts = [entry.model]
    if entry.latency_s is not None:
        facts.append(f"{entry.latency_s:.1f} s")
    if entry.tokens is not None:
        facts.append(f"{entry.tokens:,} tokens")
    cost = cost_text(entry)
    if cost:
        facts.append(cost)
    return " · ".join(facts) + f": {entry.preview}"


def cost_text(entry: ComparisonEntry) -> str:
    """A column's cost as every view shows it: the amount ("≈ … est." when estimated, "not reported"), or for a
    column not charged now (replayed, cached) what its ledger row says instead (:attr:`ComparisonEntry.note`)."""
    from gatewaykit.money import format_usd

    note = getattr(entry, "note", None)  # a view's stand-in for an entry may have none
    if note is not None:
        return str(note)
    if entry.total_cost is None:
        return "not reported" if entry.ok else ""
    text = format_usd(entry.total_cost)
    return f"≈ {text} est." if entry.cost_source == "estimated" else text


def kind_of(catalog: ModelList, model_id: str, caller: str = "compare") -> str:
    """The model's kind from the catalog; a ModelNotFoundError with "did you mean ...?" when it is not there."""
    for model in catalog:
        if model.id == model_id:
            return str(model.kind)
    ids = [model.id for model in catalog]
    close = difflib.get_close_matches(model_id, ids, n=1, cutoff=0.6)
    hint = f"; did you mean {close[0]!r}?" if close else f"; available: {', '.join(ids)}"
    raise ModelNotFoundError(f"{caller}(): the model {model_id!r} is not in the catalog for this key{hint}", param="models")


def plan_comparison(catalog: ModelList, prompt: Any, models: Iterable[str]) -> tuple[str, list[str]]:
    """Check a comparison before anything is sent: its kind and the model ids, in order, without repeats."""
    if not isinstance(prompt, str) or not prompt.strip():
        raise ValueError("compare() needs a prompt: a non-empty string")
    if isinstance(models, str):
        raise TypeError(f"compare(models=...) takes a list of model ids, not the string {models!r}")
    ids = list(dict.fromkeys(models))
    if len(ids) < 1:
        raise ValueError("compare(models=[...]) needs at least one model id")
    kinds = {model_id: kind_of(catalog, model_id) for model_id in ids}
    first = kinds[ids[0]]
    others = [f"{model_id!r} is {_a(kind)} model" for model_id, kind in kinds.items() if kind != first]
    if others:
        raise ValueError(
            f"compare() runs models of one kind; {ids[0]!r} is {_a(first)} model, but " + ", ".join(others)
            + ": compare them in separate calls"
        )
    return first, ids


def new_tag() -> str:
    """A ledger tag unique to one comparison."""
    return f"compare-{os.urandom(4).hex()}"


def settle(entry: ComparisonEntry, rows: list[dict[str, Any]]) -> None:
    """Fill an entry's cost and tokens from its tagged ledger rows (the ledger decides reported/estimated;
    rows all replayed or all cached: not charged, with their note)."""
    mine = [row for row in rows if entry.tag in (row.get("tags") or ())]
    if entry.kind == "chat" and entry.result is not None:
        usage = getattr(entry.result, "usage", None)
        entry.tokens = getattr(usage, "total_tokens", None)
    if not mine:
        return
    costs = [row.get("total_cost") for row in mine]
    sources = {row.get("cost_source") for row in mine}
    if any(cost is None for cost in costs):
        entry.total_cost, entry.cost_source = None, "not reported"
        return
    entry.total_cost = math.fsum(costs)  # type: ignore[arg-type]
    entry.cost_source = "estimated" if "estimated" in sources else (sources.pop() if len(sources) == 1 else "mixed")
    entry.not_charged, entry.note = _not_charged(entry, mine)


def _not_charged(entry: ComparisonEntry, mine: list[dict[str, Any]]) -> tuple[Optional[NotCharged], Optional[str]]:
    """A column whose rows are all the cassette's or all the cache's: where it came from, what it cost when it was
    paid for (its answer's marker says; a cached row's ``saved_cost`` else), and the note to show: its one row's
    note, or the same wording over them all."""
    if entry.cost_source not in (REPLAYED, CACHED):
        return None, None
    found = not_charged_of(entry.result)
    if found is None or found.source != entry.cost_source:  # a job's answer carries no recorded cost
        saved = [row.get("saved_cost") for row in mine]
        known = [cost for cost in saved if isinstance(cost, (int, float)) and math.isfinite(cost)]
        found = NotCharged(entry.cost_source, math.fsum(known) if known else None)
    notes = {row.get("note") for row in mine}
    note = notes.pop() if len(notes) == 1 else None
    return found, note if isinstance(note, str) and note else found.note


class Timer:
    """Latency of one model's call, measured around it."""

    def __init__(self) -> None:
        self.started = time.perf_counter()

    def stop(self) -> float:
        return round(time.perf_counter() - self.started, 3)


def _a(kind: str) -> str:
    return f"an {kind}" if kind[:1] in "aeiou" else f"a {kind}"
