"""Prices a gateway's catalog states: the ``pricing`` field of ``GET /v1/models`` entries.

The offline gateway (and possibly a real one) puts each model's USD rates under ``pricing``;
:class:`CatalogPrices` reads them with each model's parameter defaults and prices a request the way
the offline gateway bills it. Details: ``docs/internals.md``.
"""

from __future__ import annotations

import math
from typing import Any, Iterable, Mapping, Optional

__all__ = ["CATALOG", "CatalogPrices"]

CATALOG = "catalog"


def _number(value: Any) -> Optional[float]:
    if isinstance(value, bool):
        return None
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) and number >= 0 else None


def _pick(value: Any, key: Any) -> Optional[float]:
    """A number, or the number under ``key`` in a mapping."""
    if isinstance(value, Mapping):
        return None if key is None else _number(value.get(str(key)))
    return _number(value)


def _size(text: Any) -> Optional[tuple[int, int]]:
    if isinstance(text, str) and "x" in text:
        width, _, height = text.partition("x")
        if width.isdigit() and height.isdigit():
            return int(width), int(height)
    return None


class CatalogPrices:
    """Prices read from catalog entries (``Model`` objects or dicts); the PriceTable source protocol."""

    label = CATALOG

    def __init__(self, models: Iterable[Any]) -> None:
        self._models: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {}
        for model in models:
            entry = model if isinstance(model, Mapping) else _as_dict(model)
            pricing = entry.get("pricing")
            if isinstance(pricing, Mapping) and entry.get("id"):
                defaults = {
                    name: (spec or {}).get("default")
                    for name, spec in (entry.get("parameters") or {}).items()
                    if isinstance(spec, Mapping)
                }
                self._models[str(entry["id"])] = (dict(pricing), defaults)

    def __bool__(self) -> bool:
        return bool(self._models)

    def __contains__(self, model: Any) -> bool:
        return model in self._models

    def price(
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
        """``(usd, assumptions)`` for one request, or None when the catalog states no price for it."""
        if model is None or model not in self._models:
            return None
        pricing, defaults = self._models[model]

        def given(name: str) -> Any:
            value = params.get(name)
            return defaults.get(name) if value is None else value

        if kind in ("chat", "chat.stream"):
            rate_in, rate_out = _number(pricing.get("input")), _number(pricing.get("output"))
            if rate_in is None or rate_out is None:
                return None
            usd = ((prompt_tokens or 0) * rate_in + (completion_tokens or 0) * rate_out) / 1e6
            return usd, {"prompt_tokens": prompt_tokens or 0, "completion_tokens": completion_tokens or 0}
        if kind == "video":
            return self._video(pricing, given, seconds)
        if kind == "music":
            song = _number(pricing.get("usd_per_song"))
            return None if song is None else (song, {"songs": 1})
        if kind.startswith("image"):
            return self._image(pricing, given, images)
        return None

    @staticmethod
    def _video(pricing: Mapping[str, Any], given: Any, seconds: Optional[float]) -> Optional[tuple]:
        length = seconds if seconds is not None else _number(given("duration"))
        audio = bool(given("generate_audio"))
        resolution = given("resolution")
        rate = _pick(pricing.get("usd_per_second_with_audio" if audio else "usd_per_second"), resolution)
        if length is None or rate is None:
            return None
        assumed: dict[str, Any] = {"duration": length}
        if resolution is not None:
            assumed["resolution"] = resolution
        assumed["generate_audio"] = audio
        return length * rate, assumed

    @staticmethod
    def _image(pricing: Mapping[str, Any], given: Any, images: Optional[int]) -> Optional[tuple]:
        count = images if images is not None else int(_number(given("n")) or 1)
        assumed: dict[str, Any] = {"n": count}
        per_megapixel = _number(pricing.get("usd_per_megapixel"))
        if per_megapixel is not None:
            width, height = _number(given("width")), _number(given("height"))
            if width is None or height is None:
                return None
            assumed.update(width=int(width), height=int(height))
            return count * width * height * per_megapixel / 1e6, assumed
        per_image = pricing.get("usd_per_image")
        if isinstance(per_image, Mapping) and ("square" in per_image or "other" in per_image):
            size = given("image_size")
            dims = _size(size) or (_size(f"{given('width')}x{given('height')}"))
            square = dims[0] == dims[1] if dims else size is None or "square" in str(size) or str(size) == "auto"
            quality = given("quality")
            rate = _pick(per_image.get("square" if square else "other"), quality)
            assumed.update(quality=quality, shape="square" if square else "not square")
        elif isinstance(per_image, Mapping):
            resolution = given("resolution")
            rate = _pick(per_image, resolution)
            assumed["resolution"] = resolution
        else:
            rate = _number(per_image)
        return None if rate is None else (count * rate, assumed)


def _as_dict(model: Any) -> dict[str, Any]:
    dump = getattr(model, "model_dump", None)
    if callable(dump):
        return dump(mode="json")  # type: ignore[no-any-return]
    return dict(vars(model))
