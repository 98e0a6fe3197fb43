"""The most a request can cost, priced from the gateway's catalog (the ``pricing`` of ``GET /v1/models``).

A chat is priced at its prompt plus ``n × max_tokens`` output tokens at the
dearer of the output and reasoning rates. The prompt is bounded from above
without a tokenizer: no token is shorter than one byte of the JSON body, in
the longest encoding a gateway may count it in (ASCII-escaped, image data left
out), each image part counts as the largest image a vision model
reads, and a margin covers the gateway's own framing. Images, video and music
use the catalog's prices with the model's defaults for what the request left
out (:class:`gatewaykit.costs.catalog_prices.CatalogPrices`), which is what the
gateway bills. None means the catalog states no price for the model.
"""

from __future__ import annotations

import math
from typing import Any, Iterable, Mapping, Optional

from gatewaykit.costs.catalog_prices import CatalogPrices
from gatewaykit.money import usd_to_nanos
from gatewaykit.request_numbers import as_integer

__all__ = ["WorstCase"]

#: Tokens one image part may cost (85 base + 170 per 512-pixel tile of the largest fitted image, rounded up).
IMAGE_PART_TOKENS = 1600
#: Tokens a gateway may add around a conversation (message framing, a tuned system prompt).
PROMPT_MARGIN_TOKENS = 256


def _rate(value: Any) -> Optional[float]:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
        return None
    return float(value)


def prompt_token_bound(body: Mapping[str, Any]) -> int:
    """An upper bound of a chat's prompt tokens: the longest encoding of its messages and tools, image data left
    out."""
    images = 0

    def without_images(value: Any) -> Any:
        nonlocal images
        if isinstance(value, dict):
            if value.get("type") == "image_url":
                images += 1
                return {"type": "image_url"}
            return {k: without_images(v) for k, v in value.items()}
        if isinstance(value, list):
            return [without_images(v) for v in value]
        return value

    counted = {k: without_images(v) for k, v in body.items() if k in ("messages", "tools")}
    return longest_encoding(counted) + images * IMAGE_PART_TOKENS + PROMPT_MARGIN_TOKENS


def longest_encoding(value: Any) -> int:
    """The length of the longest JSON text ``value`` may be counted as: UTF-8 bytes, or ASCII-escaped (a gateway
    may read tool schemas and tool calls as ``json.dumps`` writes them: ``ơ`` is the six characters ``\\u01a1``,
    up to six tokens for the two bytes UTF-8 spends on it), compact or with spaces after separators."""
    import json

    import orjson

    return max(len(orjson.dumps(value)), len(json.dumps(value)), len(json.dumps(value, ensure_ascii=False).encode()))


class WorstCase:
    def __init__(self, models: Iterable[Mapping[str, Any]]) -> None:
        self.entries = {str(m.get("id")): m for m in models if isinstance(m, Mapping) and m.get("id")}
        self.prices = CatalogPrices(self.entries.values())

    def kind_of(self, model: str) -> Optional[str]:
        entry = self.entries.get(model)
        outputs = (entry or {}).get("output_modalities") or []
        for kind, modality in (("video", "video"), ("music", "audio"), ("image", "image")):
            if modality in outputs:
                return kind
        return "chat" if entry else None

    def chat(self, body: Mapping[str, Any], max_tokens: int) -> Optional[int]:
        """Nanos: the prompt bound plus ``n × max_tokens`` at the dearest output rate."""
        pricing = (self.entries.get(str(body.get("model"))) or {}).get("pricing") or {}
        rate_in, rate_out = _rate(pricing.get("input")), _rate(pricing.get("output"))
        if rate_in is None or rate_out is None:
            return None
        rate_out = max(rate_out, _rate(pricing.get("reasoning")) or 0.0)
        n = as_integer(body.get("n")) or 1  # read as the gateway reads it: 8.0 is eight choices
        usd = (prompt_token_bound(body) * rate_in + max(1, n) * max_tokens * rate_out) / 1e6
        return math.ceil(usd * 1e9) + 1

    def job_or_image(self, kind: str, body: Mapping[str, Any], *, seconds: Optional[float] = None) -> Optional[int]:
        """Nanos for an image request (``n`` images), a video (its duration) or a song."""
        params = {k: v for k, v in body.items() if v is not None}
        images = None
        if kind.startswith("image"):
            images = max(1, as_integer(params.get("n", 1)) or 1)
        priced = self.prices.price(kind, str(body.get("model")), params, images=images, seconds=seconds)
        return None if priced is None else usd_to_nanos(round(priced[0], 9))
