"""Prices of requests in integer nano-dollars, and the ``usage.cost`` objects reporting them."""

from __future__ import annotations

from typing import Any

from gatewaykit.emulator.catalog import ModelSpec
from gatewaykit.money import nanos_to_usd


def chat_cost(spec: ModelSpec, prompt_tokens: int, text_tokens: int, reasoning_tokens: int,
              cached_tokens: int = 0) -> dict[str, int]:
    """Cost components of one chat (nanos). Reasoning tokens bill at the reasoning (or output) rate."""
    prices = spec.prices
    fresh = prompt_tokens - cached_tokens
    return {
        "input_tokens_cost": fresh * prices["input"] + cached_tokens * prices.get("cache_read", prices["input"]),
        "output_tokens_cost": text_tokens * prices["output"],
        "reasoning_tokens_cost": reasoning_tokens * prices.get("reasoning", prices["output"]),
        "citation_tokens_cost": 0,
        "search_queries_cost": 0,
        "request_cost": 0,
    }


def cost_object(components: dict[str, int]) -> dict[str, Any]:
    """``usage.cost``: every component in USD and ``total_cost`` their exact sum."""
    total = sum(components.values())
    return {"total_cost": nanos_to_usd(total), **{k: nanos_to_usd(v) for k, v in components.items()}}


def image_price(spec: ModelSpec, width: int, height: int, quality: str | None, resolution: str | None) -> int:
    """Price of one output image (nanos)."""
    prices = spec.prices
    if "per_pixel" in prices:
        return width * height * prices["per_pixel"]
    if "image" in prices:
        return prices["image"]
    if resolution is not None and resolution in prices:
        return prices[resolution]
    shape = "square" if width == height else "other"
    return prices[shape][quality or "medium"]


def video_price(spec: ModelSpec, resolution: str, seconds: int, audio: bool) -> int:
    return spec.prices["audio" if audio else "silent"][resolution] * seconds


def music_price(spec: ModelSpec) -> int:
    return spec.prices["song"]
