"""A user-supplied price table, for what the gateway charges but does not report.

The gateway reports the exact cost of chats and images, but a completed video
or music job is billed with no amount in any answer. Give the ledger a price
table and such rows are ``estimated`` instead of ``not reported``; the budget
also uses it to stop a request that would pass the budget *before* it is sent.

Format: model id (or ``"*"`` for every other model) to a dict of rates, in USD::

    {
        "chat-mini":   {"input_per_mtok": 0.15, "output_per_mtok": 0.60},
        "image-gpt":   {"per_image": 0.04},
        "video-tiers": {"per_second": {"480p": 0.05, "720p": 0.10, "1080p": 0.20},
                        "per_second_audio": 0.15, "default_seconds": 4},
        "music-song":  {"per_song": 0.05},
        "*":           {"per_request": 0.01},
    }

``per_second`` and ``per_second_audio`` are a number or a mapping from the
request's ``resolution`` to a number; ``per_second_audio`` applies when the
request asked for ``generate_audio`` and replaces ``per_second``.
``default_seconds`` prices a video whose length is not known yet (no
``duration`` in the request). ``per_request`` is added to any request.
Before sending, a chat is priced roughly: input tokens as a quarter of the
characters of its messages, output tokens as its ``max_tokens`` (0 if unset).
"""

from __future__ import annotations

import json
from typing import Any, Mapping, Optional

__all__ = ["PriceTable"]

_KNOWN_RATES = frozenset(
    {
        "input_per_mtok",
        "output_per_mtok",
        "per_image",
        "per_second",
        "per_second_audio",
        "default_seconds",
        "per_song",
        "per_request",
    }
)


def _rate(value: Any, resolution: Optional[str]) -> Optional[float]:
    if isinstance(value, Mapping):
        if resolution is None:
            return None
        value = value.get(str(resolution))
    return None if value is None else float(value)


def _as_float(value: Any) -> Optional[float]:
    try:
        return None if value is None else float(value)
    except (TypeError, ValueError):
        return None


class PriceTable:
    """Estimates USD amounts from per-model rates (see the module docstring)."""

    def __init__(self, prices: Optional[Mapping[str, Mapping[str, Any]]] = None) -> None:
        self._prices: dict[str, dict[str, Any]] = {}
        for model, rates in (prices or {}).items():
            unknown = set(rates) - _KNOWN_RATES
            if unknown:
                raise ValueError(
                    f"unknown rate(s) {sorted(unknown)} for model {model!r}; "
                    f"known: {sorted(_KNOWN_RATES)}"
                )
            self._prices[str(model)] = dict(rates)

    def __bool__(self) -> bool:
        return bool(self._prices)

    def rates(self, model: Optional[str]) -> Optional[dict[str, Any]]:
        if model is not None and model in self._prices:
            return self._prices[model]
        return self._prices.get("*")

    def estimate(
        self,
        kind: str,
        model: Optional[str],
        *,
        params: Optional[Mapping[str, Any]] = None,
        images: Optional[int] = None,
        seconds: Optional[float] = None,
        prompt_tokens: Optional[int] = None,
        completion_tokens: Optional[int] = None,
    ) -> Optional[float]:
        """USD for one request, or None when the table cannot price it."""
        rates = self.rates(model)
        if rates is None:
            return None
        params = params or {}
        total = float(rates.get("per_request") or 0.0)
        priced = "per_request" in rates
        if kind in ("chat", "chat.stream") and (
            "input_per_mtok" in rates or "output_per_mtok" in rates
        ):
            total += (prompt_tokens or 0) * float(rates.get("input_per_mtok") or 0.0) / 1e6
            total += (completion_tokens or 0) * float(rates.get("output_per_mtok") or 0.0) / 1e6
            priced = True
        elif kind.startswith("image") and "per_image" in rates:
            count = images if images is not None else int(params.get("n") or 1)
            total += count * float(rates["per_image"])
            priced = True
        elif kind == "video" and ("per_second" in rates or "per_second_audio" in rates):
            length = seconds
            if length is None:
                length = _as_float(params.get("duration") or params.get("seconds"))
            if length is None:
                length = _as_float(rates.get("default_seconds"))
            resolution = params.get("resolution") or params.get("size")
            key = "per_second_audio" if params.get("generate_audio") and "per_second_audio" in rates else "per_second"
            rate = _rate(rates.get(key), resolution)
            if length is None or rate is None:
                return None
            total += length * rate
            priced = True
        elif kind == "music" and "per_song" in rates:
            total += float(rates["per_song"])
            priced = True
        return total if priced else None

    def estimate_request(self, kind: str, model: Optional[str], request: Mapping[str, Any]) -> Optional[float]:
        """A rough price for a request before it is sent (for the budget)."""
        prompt_tokens = completion_tokens = None
        if kind in ("chat", "chat.stream"):
            try:
                text = json.dumps(request.get("messages") or [], default=str)
            except (TypeError, ValueError):
                text = ""
            prompt_tokens = len(text) // 4
            completion_tokens = int(request.get("max_completion_tokens") or request.get("max_tokens") or 0)
        return self.estimate(
            kind,
            model,
            params=request,
            prompt_tokens=prompt_tokens,
            completion_tokens=completion_tokens,
        )
