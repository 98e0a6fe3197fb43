"""Synthetic image generation and inspection.

:func:`draw_image` paints a deterministic picture for a prompt: a palette from the
prompt's colour words and hash, a procedural scene (sky, sun, ridges, waves or
orbs), the prompt's main noun as a flat silhouette in its colour word when one is
recognised, and a small "synthetic" badge. The prompt is not burned in as a caption
(notebooks show it under the picture). With reference images it composes them into
a collage tinted by the prompt instead. :func:`inspect_image` reports the size,
format and dominant named colours of any encoded image, for vision chat models.
"""

from __future__ import annotations

import io
from dataclasses import dataclass, field

import numpy as np
from PIL import Image

from .collage import compose_references, tint_towards
from .colour_names import dominant_colours
from .decoding import open_image, to_rgb
from .errors import MediaError
from .badge import draw_badge
from .motifs import draw_motif
from .palette import palette_for
from .scenery import paint_scene

#: Output formats accepted by :func:`draw_image`.
IMAGE_FORMATS = ("png", "jpeg", "webp")
#: Smallest and largest accepted output side in pixels.
MIN_SIDE, MAX_SIDE = 1, 8192
#: Largest accepted output area (4096 x 4096); a wide 8192 x 2048 banner is fine.
MAX_PIXELS = 4096 * 4096
_DETAIL = {"low": 0, "high": 2, "hd": 2}
_JPEG_QUALITY = {0: 70, 1: 85, 2: 92}
_WEBP_QUALITY = {0: 65, 1: 80, 2: 90}
_FORMAT_ALIASES = {"jpg": "jpeg"}


@dataclass(frozen=True)
class ImageFacts:
    """What can truthfully be said about an encoded image."""

    width: int
    height: int
    format: str  # "png", "jpeg", "webp", "gif", ...
    mode: str  # Pillow mode of the decoded image, e.g. "RGB", "RGBA", "L", "P"
    dominant_colours: list[tuple[str, str, float]] = field(default_factory=list)


def _detail_level(quality: str | None) -> int:
    return _DETAIL.get((quality or "").strip().lower(), 1)


def _check_request(fmt: str, width: int, height: int) -> str:
    fmt = _FORMAT_ALIASES.get(fmt.lower(), fmt.lower())
    if fmt not in IMAGE_FORMATS:
        raise MediaError(f"unsupported image format {fmt!r}; expected one of {', '.join(IMAGE_FORMATS)}")
    for name, side in (("width", width), ("height", height)):
        if not isinstance(side, int) or not MIN_SIDE <= side <= MAX_SIDE:
            raise MediaError(f"{name} must be an integer from {MIN_SIDE} to {MAX_SIDE}, got {side!r}")
    if width * height > MAX_PIXELS:
        raise MediaError(f"{width}x{height} exceeds the {MAX_PIXELS:,} pixel limit for generated images")
    return fmt


def encode_image(image: Image.Image, fmt: str, detail: int = 1) -> bytes:
    """Encode an RGB image with fixed parameters and no metadata (byte-for-byte reproducible)."""
    buffer = io.BytesIO()
    if fmt == "png":
        image.save(buffer, "PNG", compress_level=1 if image.width * image.height > 4_000_000 else 3,
                   optimize=False)
    elif fmt == "jpeg":
        image.save(buffer, "JPEG", quality=_JPEG_QUALITY[detail], subsampling=2, optimize=False,
                   progressive=False)
    else:
        image.save(buffer, "WEBP", quality=_WEBP_QUALITY[detail], method=2, lossless=False, exact=False)
    return buffer.getvalue()


def draw_image(
    prompt: str,
    *,
    seed: int,
    width: int,
    height: int,
    fmt: str = "png",
    references: list[bytes] | None = None,
    quality: str | None = None,
) -> bytes:
    """Return encoded ``fmt`` bytes of exactly ``width`` x ``height`` depicting ``prompt``.

    Deterministic for equal arguments. ``quality="low"`` draws less detail and
    ``"high"``/``"hd"`` more; other values mean normal. ``references`` (encoded
    images) are composed into a tinted collage. Raises
    :class:`MediaError` for unsupported formats/sizes or undecodable references.
    """
    fmt = _check_request(fmt, width, height)
    detail = _detail_level(quality)
    palette = palette_for(prompt, seed)
    if references:
        picture = tint_towards(compose_references(references, width, height), palette)
    else:
        picture = paint_scene(prompt, palette, width, height, seed=seed, detail=detail).image
        draw_motif(picture, prompt, palette)
    draw_badge(picture)
    return encode_image(picture, fmt, detail)


def _sample_pixels(image: Image.Image, limit: int = 128) -> np.ndarray:
    """Up to ``limit`` x ``limit`` pixels on a regular grid as an ``(N, 3)`` array.

    Nearest-neighbour sampling keeps real colours (averaging would invent new ones);
    fully transparent pixels are left out.
    """
    scale = min(1.0, limit / max(image.size))
    size = (max(1, round(image.width * scale)), max(1, round(image.height * scale)))
    small = image.resize(size, Image.Resampling.NEAREST)  # before converting: the full image is never copied
    if small.mode not in ("RGBA", "LA", "PA", "P"):
        small = to_rgb(small)
    rgba = np.asarray(small.convert("RGBA")).reshape(-1, 4)
    visible = rgba[rgba[:, 3] > 0]
    return (visible if len(visible) else rgba)[:, :3]


def inspect_image(data: bytes) -> ImageFacts:
    """Size, format, mode and top-3 dominant named colours of encoded image ``data``.

    Raises :class:`MediaError` for undecodable data and for images declaring more
    than 40 megapixels (checked from the header, before decoding pixels).
    """
    image = open_image(data, load=False)
    fmt = (image.format or "unknown").lower()
    mode = image.mode
    width, height = image.size
    if fmt == "jpeg":
        image.draft("RGB", (256, 256))  # decode at reduced scale; much faster for big photos
    try:
        image.load()
    except Exception as exc:  # Pillow raises many types for corrupt data
        raise MediaError(f"image data is corrupt or truncated ({type(exc).__name__})") from None
    pixels = _sample_pixels(image)
    return ImageFacts(width=width, height=height, format=fmt, mode=mode,
                      dominant_colours=dominant_colours(pixels))
