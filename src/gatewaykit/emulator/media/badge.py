"""The "synthetic" badge on every generated picture: sized to the picture, and taken off a reference.

The label's height is a fixed share of the picture (about 2 % of the geometric
mean of its sides, at least 9 px), so it reads the same on 768×1024 as on
2048×1152. An edit or image-to-video request whose reference came from the
offline gateway would otherwise show that reference's badge as well as the new
picture's: :func:`erase_badge` paints it out (only where it finds one).
"""

from __future__ import annotations

import math

import numpy as np
from PIL import Image, ImageDraw

from .caption import caption_font

BADGE_TEXT = "synthetic"


def badge_box(width: int, height: int, text: str = BADGE_TEXT) -> tuple[int, int, int, int, int] | None:
    """``(left, top, right, bottom, font size)`` of the badge on a ``width`` x ``height`` picture, or None."""
    if min(width, height) < 64:
        return None
    size = max(9, round(math.sqrt(width * height) * 0.02))
    pad = max(2, size // 3)
    font = caption_font(size)
    return pad, pad, pad * 3 + int(font.getlength(text)), pad * 3 + size, size


def draw_badge(image: Image.Image, text: str = BADGE_TEXT) -> None:
    """A translucent label in the top-left corner saying the picture is synthetic (RGB, in place)."""
    box = badge_box(*image.size, text=text)
    if box is None:
        return
    left, top, right, bottom, size = box
    pad = left
    layer = Image.new("RGBA", image.size, (0, 0, 0, 0))
    draw = ImageDraw.Draw(layer)
    draw.rounded_rectangle((left, top, right, bottom), radius=pad, fill=(0, 0, 0, 120))
    draw.text((pad * 2, pad * 2 - size // 8), text, font=caption_font(size), fill=(255, 255, 255, 230))
    image.paste(Image.alpha_composite(image.convert("RGBA"), layer).convert("RGB"))


def erase_badge(image: Image.Image) -> Image.Image:
    """``image`` (RGB) without an offline-gateway badge in its top-left corner; unchanged when it has none.

    The badge darkens its box and holds near-white text; when both show, the box is refilled with the
    pixels just below it, stretched upwards (the top-left of a generated picture is sky).
    """
    box = badge_box(*image.size)
    if box is None:
        return image
    left, top, right, bottom, _ = box
    pixels = np.asarray(image, dtype=np.float32)
    if bottom + 3 >= image.height or right >= image.width:
        return image
    inside = pixels[top + 1:bottom - 1, left + 1:right - 1]
    below = pixels[bottom + 1:bottom + 3, left:right]
    bright = (inside.min(axis=2) > 200).mean()
    darker = inside.mean() < below.mean() * 0.85
    if not (darker and 0.02 < bright < 0.5):
        return image
    strip = Image.fromarray(below.astype(np.uint8), "RGB").resize((right - left + 2, bottom + 2),
                                                                  Image.Resampling.BILINEAR)
    result = image.copy()
    result.paste(strip, (max(0, left - 1), 0))
    return result
