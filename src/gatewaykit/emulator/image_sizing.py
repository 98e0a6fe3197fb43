"""Image request checks and the four sizing modes, giving real pixel dimensions.

pixel dimensions (``width``/``height``), resolution tier (``aspect_ratio`` +
``resolution``), aspect ratio only (``aspect_ratio``) or preset (``image_size``).
A model ignores sizing fields it does not declare in its ``parameters``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from gatewaykit.emulator.catalog import GPT_SIZES, IMAGE_PRESETS, TIER_LONG_SIDE, ModelSpec
from gatewaykit.emulator.fields import opt_bool, opt_enum, opt_int, opt_number, opt_seed, require_str
from gatewaykit.serving.bodies import integer_text
from gatewaykit.serving.errors import bad_request

ASPECT_LONG_SIDE = 1024


@dataclass(frozen=True)
class ImageRequest:
    prompt: str
    n: int
    width: int
    height: int
    output_format: str
    response_format: str
    quality: str | None
    resolution: str | None
    seed: int | None
    stream: bool
    #: An offline extension (:mod:`.image_sampling`): None (omitted), 0, or up to 2.
    temperature: float | None = None

    @property
    def size(self) -> str:
        return f"{self.width}x{self.height}"


def ratio_dimensions(ratio: str, long_side: int) -> tuple[int, int]:
    a, b = (int(part) for part in ratio.split(":"))
    if a >= b:
        return long_side, max(8, round(long_side * b / a / 8) * 8)
    return max(8, round(long_side * a / b / 8) * 8), long_side


def _param(spec: ModelSpec, body: dict[str, Any], name: str) -> Any:
    declared = spec.parameter(name)
    if declared is None:
        return None
    if declared["type"] == "range":
        value = opt_int(body, name, declared["min"], declared["max"], default=declared["default"])
        step = declared.get("step", 1)
        if value % step:
            raise bad_request(f"'{name}' must be a multiple of {step}; got {value}.", param=name)
        return value
    return opt_enum(body, name, declared["values"], default=declared["default"])


def dimensions(spec: ModelSpec, body: dict[str, Any]) -> tuple[int, int, str | None]:
    """(width, height, billed resolution tier or None) for the model's sizing mode."""
    params = spec.entry["parameters"]
    if "width" in params:
        return _param(spec, body, "width"), _param(spec, body, "height"), None
    if "resolution" in params:
        resolution = _param(spec, body, "resolution")
        ratio = _param(spec, body, "aspect_ratio")
        return (*ratio_dimensions(ratio, TIER_LONG_SIDE[resolution]), resolution)
    if "image_size" in params:
        size = _param(spec, body, "image_size")
        table = GPT_SIZES if "quality" in params else IMAGE_PRESETS
        return (*table[size], None)
    return (*ratio_dimensions(_param(spec, body, "aspect_ratio"), ASPECT_LONG_SIDE), None)


def parse_image_request(spec: ModelSpec, body: dict[str, Any]) -> ImageRequest:
    prompt = require_str(body, "prompt")
    limit = spec.entry["prompt_max_length"]
    if len(prompt) > limit:
        raise bad_request(f"The prompt is {len(prompt)} characters; {spec.id} accepts at most {limit}.",
                          param="prompt", code="PROMPT_TOO_LONG")
    n = opt_int(body, "n", 1, 4, default=1)
    n_declared = spec.entry["parameters"]["n"]  # every image model declares n (catalog._image_common)
    n_allowed = n_declared["values"] or list(range(1, n_declared["max"] + 1))
    if n not in n_allowed:
        raise bad_request(f"{spec.id} generates only n=1 image per request.", param="n")
    width, height, resolution = dimensions(spec, body)
    return ImageRequest(
        prompt=prompt,
        n=n,
        width=width,
        height=height,
        output_format=_param(spec, body, "output_format"),
        response_format=opt_enum(body, "response_format", ["b64_json", "url"], default="b64_json"),
        quality=_param(spec, body, "quality"),
        resolution=resolution,
        seed=opt_seed(body),
        stream=bool(opt_bool(body, "stream", False)),
        temperature=opt_number(body, "temperature", 0, 2),
    )


def form_to_body(form: Any) -> dict[str, Any]:
    """Multipart text fields as a JSON-like body: numbers and booleans decoded where the field is typed."""
    body: dict[str, Any] = {}
    for name, value in form.multi_items():
        if not isinstance(value, str) or name in ("image", "image[]"):
            continue
        if name in ("n", "width", "height", "seed"):
            body[name] = integer_text(value, name)
        elif name == "temperature":
            try:
                body[name] = float(value)
            except ValueError:
                raise bad_request("'temperature' must be a number from 0 to 2.", param="temperature") from None
        elif name == "stream":
            if value.lower() not in ("true", "false", "1", "0"):
                raise bad_request("'stream' must be true or false.", param="stream")
            body[name] = value.lower() in ("true", "1")
        else:
            body[name] = value
    return body
