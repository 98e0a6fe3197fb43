"""The synthetic model catalog: public entries for ``GET /v1/models`` plus prices.

Parameter entries are ``{type, values, default}``. ``type`` is ``enum`` (``values``
lists what is allowed), ``boolean`` (``values`` is ``[true, false]``), ``range``
(an integer interval: ``min`` and ``max``, optional ``step``; ``values`` is null)
or ``string`` (free text with ``min_length``/``max_length``; ``required: true``
when the model needs it).

Prices are integers in nano-dollars (see :mod:`gatewaykit.money`);
each entry also shows them in USD under ``pricing`` (an extra field). Chat
models price prompt tokens read from the prompt cache at ``cache_read``, 10 %
of ``input``; their ``prompt_caching`` entry states the caching rules (see
:mod:`gatewaykit.emulator.prompt_cache`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from gatewaykit.emulator import prompt_cache
from gatewaykit.emulator.media.music import BITRATES as MUSIC_BITRATES
from gatewaykit.emulator.media.music import SAMPLE_RATES as MUSIC_SAMPLE_RATES

ASPECT_RATIOS = ["1:1", "16:9", "9:16", "4:3", "3:4", "3:2", "2:3", "21:9"]
IMAGE_FORMATS = ["png", "jpeg", "webp"]
RESPONSE_FORMATS = ["b64_json", "url"]


def enum(values: list[Any], default: Any) -> dict[str, Any]:
    return {"type": "enum", "values": list(values), "default": default}


def int_range(low: int, high: int, default: int, step: int = 1) -> dict[str, Any]:
    return {"type": "range", "values": None, "default": default, "min": low, "max": high, "step": step}


def boolean(default: bool) -> dict[str, Any]:
    return {"type": "boolean", "values": [True, False], "default": default}


@dataclass(frozen=True)
class ModelSpec:
    """One catalog model: its public ``entry`` and private ``prices`` (nano-dollars)."""

    id: str
    kind: str  # chat, image, video, music
    entry: dict[str, Any]
    prices: dict[str, Any] = field(default_factory=dict)

    def parameter(self, name: str) -> dict[str, Any] | None:
        return (self.entry.get("parameters") or {}).get(name)


#: The longest answer a chat model writes (a request's ``max_tokens`` may only lower it); the catalog says so.
MAX_OUTPUT_TOKENS = 4096

#: Prompt tokens served from the prompt cache cost this fraction of the input price.
CACHE_READ_FRACTION = 0.1


def _chat(model_id: str, inputs: list[str], prices: dict[str, int], **features: Any) -> ModelSpec:
    prices = {**prices, "cache_read": round(prices["input"] * CACHE_READ_FRACTION)}
    per_million = {name: nanos / 1000 for name, nanos in prices.items()}  # nanos/token -> USD/M
    entry = {
        "id": model_id,
        "object": "model",
        "owned_by": "svc",
        "input_modalities": inputs,
        "output_modalities": ["text"],
        "context_length": 128_000,
        "max_output_tokens": MAX_OUTPUT_TOKENS,
        "features": features,
        "pricing": {"unit": "USD per million tokens", **per_million},
        "prompt_caching": {**prompt_cache.describe(), "cache_read_fraction_of_input": CACHE_READ_FRACTION},
    }
    return ModelSpec(model_id, "chat", entry, prices)


def _image(model_id: str, owner: str, params: dict, max_refs: int, prompt_max: int,
           pricing: dict[str, Any], prices: dict[str, Any]) -> ModelSpec:
    entry = {
        "id": model_id,
        "object": "model",
        "owned_by": owner,
        "input_modalities": ["text", "image"],
        "output_modalities": ["image"],
        "parameters": params,
        "edit": {"supported": True, "max_reference_images": max_refs},
        "prompt_max_length": prompt_max,
        "pricing": pricing,
    }
    return ModelSpec(model_id, "image", entry, prices)


def _image_common(n_max: int = 4, formats: list[str] = IMAGE_FORMATS) -> dict[str, Any]:
    return {
        "n": int_range(1, n_max, 1) if n_max > 1 else enum([1], 1),
        "output_format": enum(formats, "png"),
        "response_format": enum(RESPONSE_FORMATS, "b64_json"),
    }


IMAGE_PRESETS = {
    "square_hd": (1536, 1536), "square": (1024, 1024), "portrait_4_3": (768, 1024),
    "portrait_16_9": (576, 1024), "landscape_4_3": (1024, 768), "landscape_16_9": (1024, 576),
    "auto_2K": (2048, 2048), "1024x1024": (1024, 1024), "1536x1024": (1536, 1024),
    "1024x1536": (1024, 1536),
}
GPT_SIZES = {"auto": (1024, 1024), "1024x1024": (1024, 1024), "1536x1024": (1536, 1024),
             "1024x1536": (1024, 1536)}
TIER_LONG_SIDE = {"1K": 1024, "2K": 2048, "4K": 4096}
VIDEO_RESOLUTIONS = {"480p": 480, "720p": 720, "1080p": 1080}


def _build() -> dict[str, ModelSpec]:
    models = [
        _chat("chat-mini", ["text"], {"input": 150, "output": 600},
              tools=True, json_mode=True, reasoning=False, vision=False),
        _chat("chat-reasoner", ["text"], {"input": 1100, "output": 4400, "reasoning": 4400},
              tools=True, json_mode=True, reasoning=True, vision=False),
        _chat("chat-vision", ["text", "image"], {"input": 2500, "output": 10000},
              tools=True, json_mode=True, reasoning=False, vision=True),
        _image("image-pixels", "pixelworks",
               {"width": int_range(256, 2048, 1024, 16), "height": int_range(256, 2048, 1024, 16),
                **_image_common()},
               4, 10_000, {"usd_per_megapixel": 0.015}, {"per_pixel": 15}),
        _image("image-tiers", "lumen-labs",
               {"aspect_ratio": enum(ASPECT_RATIOS, "1:1"), "resolution": enum(list(TIER_LONG_SIDE), "1K"),
                **_image_common()},
               14, 50_000, {"usd_per_image": {"1K": 0.04, "2K": 0.08, "4K": 0.15}},
               {"1K": 40_000_000, "2K": 80_000_000, "4K": 150_000_000}),
        _image("image-aspect", "northwind",
               {"aspect_ratio": enum(["1:1", "16:9", "9:16", "4:3", "3:4"], "1:1"),
                **_image_common(n_max=1, formats=["png", "jpeg"])},
               1, 8_000, {"usd_per_image": 0.03}, {"image": 30_000_000}),
        _image("image-preset", "svc",
               {"image_size": enum(list(IMAGE_PRESETS), "square"), **_image_common()},
               8, 20_000, {"usd_per_image": 0.035}, {"image": 35_000_000}),
        _image("image-gpt", "svc",
               {"quality": enum(["low", "medium", "high"], "medium"),
                "image_size": enum(list(GPT_SIZES), "auto"), **_image_common()},
               10, 32_000,
               {"usd_per_image": {"square": {"low": 0.011, "medium": 0.042, "high": 0.167},
                                  "other": {"low": 0.016, "medium": 0.063, "high": 0.19}}},
               {"square": {"low": 11_000_000, "medium": 42_000_000, "high": 167_000_000},
                "other": {"low": 16_000_000, "medium": 63_000_000, "high": 190_000_000}}),
        ModelSpec("video-tiers", "video", {
            "id": "video-tiers", "object": "model", "owned_by": "lumen-labs",
            "input_modalities": ["text", "image"], "output_modalities": ["video"],
            "parameters": {
                "resolution": enum(list(VIDEO_RESOLUTIONS), "720p"),
                "duration": enum([4, 6, 8], 4),
                "aspect_ratio": enum(["16:9", "9:16", "1:1", "auto"], "16:9"),
                "generate_audio": boolean(False),
                "input_reference": {"type": "image", "values": None, "default": None},
            },
            "prompt_max_length": 4000,
            "pricing": {"usd_per_second": {"480p": 0.05, "720p": 0.1, "1080p": 0.25},
                        "usd_per_second_with_audio": {"480p": 0.08, "720p": 0.16, "1080p": 0.4}},
        }, {"silent": {"480p": 50_000_000, "720p": 100_000_000, "1080p": 250_000_000},
            "audio": {"480p": 80_000_000, "720p": 160_000_000, "1080p": 400_000_000}}),
        ModelSpec("video-range", "video", {
            "id": "video-range", "object": "model", "owned_by": "northwind",
            "input_modalities": ["text"], "output_modalities": ["video"],
            "parameters": {
                "duration": int_range(2, 12, 5),
                "aspect_ratio": enum(["16:9", "9:16", "1:1"], "16:9"),
                "generate_audio": boolean(True),
            },
            "prompt_max_length": 2000,
            "pricing": {"usd_per_second": 0.08, "usd_per_second_with_audio": 0.12},
        }, {"silent": {"720p": 80_000_000}, "audio": {"720p": 120_000_000}}),
        ModelSpec("music-song", "music", {
            "id": "music-song", "object": "model", "owned_by": "svc",
            "input_modalities": ["text"], "output_modalities": ["audio"],
            "parameters": {
                "lyrics_prompt": {"type": "string", "values": None, "default": None, "required": True,
                                  "min_length": 10, "max_length": 3000},
                "sample_rate": enum(list(MUSIC_SAMPLE_RATES), 44100),
                "bitrate": enum(list(MUSIC_BITRATES), 128000),
                "format": enum(["mp3"], "mp3"),
            },
            "prompt_max_length": 300,
            "pricing": {"usd_per_song": 0.06},
        }, {"song": 60_000_000}),
    ]
    return {model.id: model for model in models}


CATALOG: dict[str, ModelSpec] = _build()
