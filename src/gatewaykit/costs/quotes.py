"""``gk.Quote``: what a request would cost before it is sent, where that figure comes from, and why.

``client.videos.quote(...)`` (and ``music``, ``images``) returns one; a client
with ``confirm_over=`` asks before sending a request whose quote passes it;
``client.map``/``client.batch`` add their items' quotes into one
(:meth:`Quote.combine`). ``total_cost`` is USD or None (nothing could price
it); ``source`` is ``"price table"`` (your ``Ledger(prices=...)``),
``"catalog"`` (the prices the gateway's catalog states) or None;
``assumptions`` are the values the figure rests on (duration, resolution,
n, ...), including the model's defaults for what the request left out, and,
for a chat without ``max_tokens``, the output it is quoted at
(:mod:`gatewaykit.costs.assumed_output`).
"""

from __future__ import annotations

import html
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping, Optional

from gatewaykit.money import format_usd, plural

__all__ = ["Quote", "describe_amount"]


def describe_amount(usd: Optional[float], source: Optional[str]) -> str:
    """``≈ $0.40 est. (catalog)``, ``$0.40 (price table)`` style text; ``cost unknown`` for None."""
    if usd is None:
        return "cost unknown"
    return f"≈ {format_usd(usd)} est." + (f" ({source})" if source else "")


def _value(value: Any) -> str:
    if isinstance(value, bool):  # "generate_audio off", not Python's "generate_audio False"
        return "on" if value else "off"
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return str(value)


@dataclass(frozen=True)
class Quote:
    """A price before sending: ``total_cost`` (USD or None), ``source``, ``assumptions``."""

    kind: str
    model: Optional[str]
    total_cost: Optional[float]
    source: Optional[str]
    assumptions: Mapping[str, Any] = field(default_factory=dict)
    requests: int = 1
    unpriced: int = 0  # requests in a combined quote that nothing could price

    @classmethod
    def combine(cls, quotes: Iterable["Quote"]) -> "Quote":
        """One quote for many requests (a batch): the sum of what could be priced."""
        quotes = list(quotes)
        priced = [q for q in quotes if q.total_cost is not None]
        sources = sorted({q.source for q in priced if q.source})
        models = sorted({q.model for q in quotes if q.model})
        unpriced = sum(q.unpriced if q.total_cost is not None else q.requests for q in quotes)
        return cls(
            kind="batch",
            model=models[0] if len(models) == 1 else None,
            total_cost=sum(q.total_cost for q in priced) if priced else None,  # type: ignore[misc]
            source=" + ".join(sources) or None,
            assumptions={"models": models} if len(models) > 1 else {},
            requests=sum(q.requests for q in quotes),
            unpriced=unpriced,
        )

    @property
    def summary(self) -> str:
        """One line: ``≈ $0.80 est. (catalog) for video-tiers: duration 8, resolution 1080p``."""
        what = plural(self.requests, "request") if self.requests != 1 or self.kind == "batch" else (self.model or self.kind)
        text = f"{describe_amount(self.total_cost, self.source)} for {what}"
        if self.unpriced:
            text += f" ({plural(self.unpriced, 'request')} of unknown cost not included)"
        facts = ", ".join(f"{name} {_value(value)}" for name, value in self.assumptions.items()
                          if name not in ("models", "unpriced_jobs"))
        return f"{text}: {facts}" if facts else text

    def exceeds(self, threshold: float) -> bool:
        """True when the quoted amount passes ``threshold`` USD (an unknown amount does not)."""
        return self.total_cost is not None and self.total_cost > threshold

    def __str__(self) -> str:
        return self.summary

    def _repr_html_(self) -> str:
        return f'<div class="gatewaykit-quote">{html.escape(self.summary)}</div>'
