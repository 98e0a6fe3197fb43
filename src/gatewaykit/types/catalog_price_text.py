"""A catalog entry's ``pricing`` as one readable line, for the model table (``client.models.list()``).

``"$0.15 / $0.60 per 1M tokens"`` (input / output), ``"$0.05–0.25 per second"``
(a range over resolutions; ``"…, with audio $0.08–0.40"``), ``"$0.03 per image"``,
``"$0.015 per megapixel"``, ``"$0.06 per song"``. The shapes are those
:mod:`gatewaykit.costs.catalog_prices` prices by; anything else (or no
``pricing`` at all: the spec's catalog has none) gives ``""``, never a guess.
Standard library only: the types layer imports no costs code.
"""

from __future__ import annotations

import math
from typing import Any, Iterator, Mapping, Optional

__all__ = ["price_text"]


def _numbers(value: Any) -> Iterator[float]:
    """Every finite, non-negative number in ``value`` (a number or nested mappings of them)."""
    if isinstance(value, Mapping):
        for inner in value.values():
            yield from _numbers(inner)
    elif isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value) and value >= 0:
        yield float(value)


def _usd(value: float) -> str:
    text = f"{value:.4f}".rstrip("0")
    whole, _, cents = text.partition(".")
    return f"${whole}.{cents.ljust(2, '0')}"


def _span(value: Any) -> Optional[str]:
    found = sorted(set(_numbers(value)))
    if not found:
        return None
    if len(found) == 1:
        return _usd(found[0])
    return f"{_usd(found[0])}–{_usd(found[-1])[1:]}"


def price_text(pricing: Any) -> str:
    """One line for a catalog entry's ``pricing`` ("" when there is none, or it is of an unknown shape)."""
    if not isinstance(pricing, Mapping):
        return ""
    if "input" in pricing or "output" in pricing:
        prices = [_span(pricing.get(name)) for name in ("input", "output")]
        shown = " / ".join(price for price in prices if price)
        return f"{shown} per 1M tokens" if shown else ""
    for field, unit in (("usd_per_second", "per second"), ("usd_per_image", "per image"),
                        ("usd_per_megapixel", "per megapixel"), ("usd_per_song", "per song")):  # fmt: skip
        span = _span(pricing.get(field))
        if span:
            audio = _span(pricing.get("usd_per_second_with_audio")) if field == "usd_per_second" else None
            return f"{span} {unit}" + (f", with audio {audio}" if audio else "")
    return ""
