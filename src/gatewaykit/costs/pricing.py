"""A user-supplied price table, for what the gateway charges but does not report.

A completed video or music job is billed with no amount in any answer: with a price table such rows
are ``estimated`` and the budget can stop a request before it is sent. The table maps a model id (or
``"*"``) to USD rates (``input_per_mtok``, ``per_image``, ``per_second`` ...); a malformed table is a
``ValueError`` naming the entry. Other sources (the gateway's catalog) answer for what the table does
not price (:meth:`PriceTable.add_source`). The format in full: ``docs/internals.md``.
"""

from __future__ import annotations

import json
import math
import threading
from typing import Any, Mapping, Optional

from gatewaykit.costs.quotes import Quote
from gatewaykit.request_numbers import as_integer

__all__ = ["PRICE_TABLE", "PriceTable", "PriceTableWarning"]

PRICE_TABLE = "price table"

class PriceTableWarning(UserWarning):
    """A price table entry names a model the gateway's catalog does not have (a typo prices nothing)."""


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
_BY_RESOLUTION = frozenset({"per_second", "per_second_audio"})


def _rate(value: Any, resolution: Optional[str]) -> Optional[float]:
    if isinstance(value, Mapping):
        if resolution is None:
            return None
        value = value.get(str(resolution))
    return None if value is None else float(value)


def _as_float(value: Any) -> Optional[float]:
    try:
        return None if value is None or isinstance(value, bool) else float(value)
    except (TypeError, ValueError):
        return None


def _price_problem(value: Any) -> Optional[str]:
    """What is wrong with ``value`` as an amount of USD, or None."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return f"is {value!r}; a price is a number of USD"
    if not math.isfinite(value):
        return f"is {value!r}; a price is a finite number"
    if value < 0:
        return f"is {value!r}; a price cannot be negative"
    return None


def validate_prices(prices: Any) -> dict[str, dict[str, Any]]:
    """The table as plain dicts, or a ValueError naming the first bad entry."""
    if prices is None:
        return {}
    if not isinstance(prices, Mapping):
        raise ValueError(
            f"prices must map model ids to rates, e.g. {{'video-tiers': {{'per_second': 0.1}}}}; "
            f"got {type(prices).__name__}"
        )
    table: dict[str, dict[str, Any]] = {}
    for model, rates in prices.items():
        if not isinstance(model, str) or not model.strip():
            raise ValueError(f"prices: {model!r} is not a model id (a non-empty string, or '*')")
        if not isinstance(rates, Mapping):
            raise ValueError(f"prices[{model!r}] must be a dict of rates, e.g. {{'per_song': 0.05}}; got {rates!r}")
        unknown = set(rates) - _KNOWN_RATES
        if unknown:
            raise ValueError(
                f"unknown rate(s) {sorted(unknown)} for model {model!r}; known: {sorted(_KNOWN_RATES)}"
            )
        for name, value in rates.items():
            if name in _BY_RESOLUTION and isinstance(value, Mapping):
                for resolution, per_second in value.items():
                    problem = _price_problem(per_second)
                    if problem:
                        raise ValueError(f"prices[{model!r}][{name!r}][{resolution!r}] {problem}")
                continue
            problem = _price_problem(value)
            if problem:
                raise ValueError(f"prices[{model!r}][{name!r}] {problem}")
        table[model] = dict(rates)
    return table


class PriceTable:
    """Estimates USD amounts from per-model rates (see the module docstring)."""

    def __init__(self, prices: Optional[Mapping[str, Mapping[str, Any]]] = None) -> None:
        self._prices: dict[str, dict[str, Any]] = validate_prices(prices)
        self._sources: dict[str, Any] = {}  # name -> a source with .price(); replaced whole, never mutated
        self._sources_lock = threading.Lock()
        self._checked: set[str] = set()  # gateways whose catalog the table's model ids were checked against

    def __bool__(self) -> bool:
        return bool(self._prices) or any(bool(source) for source in self._sources.values())

    def __getstate__(self) -> dict[str, Any]:
        return {"_prices": self._prices}  # catalogs come back with the client that reads them

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(state.get("_prices"))  # type: ignore[misc]

    # ------------------------------------------------------------------ sources

    def add_source(self, name: str, source: Any) -> None:
        """Price what this table does not with ``source`` (e.g. a gateway's catalog; ``name``: its URL).

        Adding a source under a name already used replaces it (a re-read catalog).
        """
        with self._sources_lock:
            sources = {key: value for key, value in self._sources.items() if key != name}
            sources[name] = source
            self._sources = sources

    def unknown_models(self, gateway: str, model_ids: Any) -> list[str]:
        """Once per gateway: a message for each entry naming a model not in ``model_ids`` (its catalog)."""
        if gateway in self._checked:
            return []
        self._checked.add(gateway)
        import difflib

        known = list(model_ids)
        messages = []
        for model in self._prices:
            if model == "*" or model in known:
                continue
            close = difflib.get_close_matches(model, known, n=1)
            hint = f"; did you mean {close[0]!r}?" if close else f"; its models: {', '.join(known)}"
            messages.append(f"price table entry {model!r} names no model of the catalog of {gateway}{hint}")
        return messages

    @property
    def sources(self) -> dict[str, Any]:
        """The sources consulted after the table's own rates, by name."""
        return dict(self._sources)

    def rates(self, model: Optional[str]) -> Optional[dict[str, Any]]:
        if model is not None and model in self._prices:
            return self._prices[model]
        return self._prices.get("*")

    # ----------------------------------------------------------------- pricing

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
        """USD for one request, or None when neither the table nor a source can price it."""
        found = self.price(
            kind, model, params or {}, images=images, seconds=seconds,
            prompt_tokens=prompt_tokens, completion_tokens=completion_tokens,
        )  # fmt: skip
        return None if found is None else found[0]

    def price(self, kind: str, model: Optional[str], params: Mapping[str, Any], **facts: Any) -> Optional[tuple]:
        """``(usd, source name, assumptions)`` from the first source that prices it, or None."""
        own = self.own_price(kind, model, params, **facts)
        if own is not None:
            return own[0], PRICE_TABLE, own[1]
        for source in list(self._sources.values()):
            found = source.price(kind, model, params, **facts)
            if found is not None:
                return found[0], source.label, found[1]
        return None

    def own_price(
        self,
        kind: str,
        model: Optional[str],
        params: Mapping[str, Any],
        *,
        images: Optional[int] = None,
        seconds: Optional[float] = None,
        prompt_tokens: Optional[int] = None,
        completion_tokens: Optional[int] = None,
    ) -> Optional[tuple[float, dict[str, Any]]]:
        """``(usd, assumptions)`` from this table's own rates, or None."""
        rates = self.rates(model)
        if rates is None:
            return None
        total = float(rates.get("per_request") or 0.0)
        priced = "per_request" in rates
        assumed: dict[str, Any] = {}
        if kind in ("chat", "chat.stream") and ("input_per_mtok" in rates or "output_per_mtok" in rates):
            total += (prompt_tokens or 0) * float(rates.get("input_per_mtok") or 0.0) / 1e6
            total += (completion_tokens or 0) * float(rates.get("output_per_mtok") or 0.0) / 1e6
            assumed.update(prompt_tokens=prompt_tokens or 0, completion_tokens=completion_tokens or 0)
            priced = True
        elif kind.startswith("image") and "per_image" in rates:
            count = images if images is not None else int(params.get("n") or 1)
            total += count * float(rates["per_image"])
            assumed["n"] = count
            priced = True
        elif kind == "video" and ("per_second" in rates or "per_second_audio" in rates):
            length = seconds
            if length is None:
                length = _as_float(params.get("duration") or params.get("seconds"))
            if length is None:
                length = _as_float(rates.get("default_seconds"))
            resolution = params.get("resolution") or params.get("size")
            audio = bool(params.get("generate_audio"))
            key = "per_second_audio" if audio and "per_second_audio" in rates else "per_second"
            rate = _rate(rates.get(key), resolution)
            if length is None or rate is None:
                return None
            total += length * rate
            assumed.update(duration=length, generate_audio=audio)
            if resolution is not None:
                assumed["resolution"] = resolution
            priced = True
        elif kind == "music" and "per_song" in rates:
            total += float(rates["per_song"])
            assumed["songs"] = 1
            priced = True
        return (total, assumed) if priced else None

    def estimate_request(self, kind: str, model: Optional[str], request: Mapping[str, Any]) -> Optional[float]:
        """A rough price for a request before it is sent (for the budget)."""
        return self.quote(kind, model, request).total_cost

    def quote(self, kind: str, model: Optional[str], request: Mapping[str, Any],
              output: Optional[tuple[int, str]] = None) -> Quote:
        """What ``request`` would cost, from the first source that prices it (a :class:`Quote`).

        ``output``: ``(tokens, where from)``, the answer a chat that sets no ``max_tokens`` is quoted at
        (:mod:`gatewaykit.costs.assumed_output`); without it such a chat is quoted at its prompt alone.
        """
        prompt_tokens = completion_tokens = None
        assumed_output = None
        if kind in ("chat", "chat.stream"):
            prompt_tokens = prompt_token_estimate(request.get("messages") or [])
            bound = as_integer(request.get("max_completion_tokens")) or as_integer(request.get("max_tokens"))
            if bound is None and output is not None:
                bound, where = output
                assumed_output = f"unset, assumed {bound} ({where})"
            completion_tokens = max(1, as_integer(request.get("n")) or 1) * max(0, bound or 0)  # n answers
        found = self.price(kind, model, request, prompt_tokens=prompt_tokens, completion_tokens=completion_tokens)
        if found is None:
            return Quote(kind=kind, model=model, total_cost=None, source=None, assumptions={})
        assumptions = dict(found[2])
        if assumed_output is not None:
            assumptions["max_tokens"] = assumed_output
        return Quote(kind=kind, model=model, total_cost=found[0], source=found[1], assumptions=assumptions)


#: Prompt tokens an image part is counted at in a quote: a 1024x1024 picture at ``detail`` "high" (85, plus 170
#: per 512-pixel tile: 765), the gateway's rule for vision input; ``detail: "low"`` is 85 whatever its size.
IMAGE_PART_TOKENS = 765
LOW_DETAIL_IMAGE_TOKENS = 85


def prompt_token_estimate(messages: Any) -> int:
    """A chat's prompt tokens before it is sent: its text at about 4 characters a token, each image part at what
    a picture costs (its base64 is not text: a 300 KB PNG is not 75,000 tokens)."""
    images = 0
    low = 0
    text_only = messages
    if isinstance(messages, list) and any(isinstance(m, dict) and isinstance(m.get("content"), list) for m in messages):
        text_only = []
        for message in messages:
            content = message.get("content") if isinstance(message, dict) else None
            if not isinstance(content, list):
                text_only.append(message)
                continue
            kept = []
            for part in content:
                if isinstance(part, dict) and part.get("type") == "image_url":
                    image = part.get("image_url")
                    if isinstance(image, dict) and image.get("detail") == "low":
                        low += 1
                    else:
                        images += 1
                else:
                    kept.append(part)
            text_only.append({**message, "content": kept})
    try:
        text = json.dumps(text_only, default=str)
    except (TypeError, ValueError):
        text = ""
    return len(text) // 4 + images * IMAGE_PART_TOKENS + low * LOW_DETAIL_IMAGE_TOKENS
