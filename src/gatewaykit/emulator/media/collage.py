"""Collages of reference images for image-to-image and edit requests.

References are laid out on a grid (one fills the frame, two sit side by side
along the long axis, four make a 2x2, and so on), each resized to *cover* its
cell, then tinted towards the prompt's palette so the result visibly comes from
both the references and the prompt. An enlarged reference is resampled bicubically
and softened by its scale (a small generated picture's hard edges would otherwise
show as stairs), and a reference's own "synthetic" badge is taken off: the result
carries one badge, its own.
"""

from __future__ import annotations

import math

import numpy as np
from PIL import Image, ImageDraw, ImageFilter, ImageOps

from .badge import erase_badge
from .decoding import decode_to_cover
from .errors import MediaError
from .palette import Palette

#: References beyond this many are ignored (the collage would be unreadable).
MAX_REFERENCES = 16
_GUTTER = (250, 250, 245)


def grid_shape(count: int, width: int, height: int) -> tuple[int, int]:
    """Columns and rows for ``count`` tiles on a ``width`` x ``height`` canvas."""
    if count <= 1:
        return 1, 1
    if count == 2:
        return (2, 1) if width >= height else (1, 2)
    columns = math.ceil(math.sqrt(count * width / height))
    columns = max(1, min(count, columns))
    return columns, math.ceil(count / columns)


def cover(image: Image.Image, size: tuple[int, int]) -> Image.Image:
    """``image`` cropped and resized to cover ``size``; enlarged smoothly (bicubic, softened by the scale)."""
    scale = max(size[0] / image.width, size[1] / image.height)
    fitted = ImageOps.fit(image, size, Image.Resampling.BICUBIC)
    if scale > 1.5:
        fitted = fitted.filter(ImageFilter.GaussianBlur(radius=min(4.0, 0.4 * scale)))
    return fitted


def compose_references(references: list[bytes], width: int, height: int) -> Image.Image:
    """Tile the encoded ``references`` over a ``width`` x ``height`` RGB canvas, each cropped to cover its cell.

    Each reference is decoded only when its cell is drawn, straight to the cell's size, so one
    full-size decode at a time is the most memory a collage takes. The last row stretches its
    cells so the canvas has no gaps; an undecodable reference is a MediaError naming it.
    """
    references = references[:MAX_REFERENCES]
    canvas = Image.new("RGB", (width, height))
    draw = ImageDraw.Draw(canvas)
    gutter = max(1, min(width, height) // 200)
    columns, rows = grid_shape(len(references), width, height)
    index = 0
    for row in range(rows):
        in_row = min(columns, len(references) - index)
        top, bottom = row * height // rows, (row + 1) * height // rows
        for column in range(in_row):
            left, right = column * width // in_row, (column + 1) * width // in_row
            if right > left and bottom > top:
                cell = (right - left, bottom - top)
                try:
                    picture = erase_badge(decode_to_cover(references[index], cell))
                except MediaError as exc:
                    raise MediaError(f"reference image {index + 1}: {exc}") from None
                canvas.paste(cover(picture, cell), (left, top))
                del picture
            if column:
                draw.rectangle((left - gutter // 2, top, left + gutter // 2, bottom), fill=_GUTTER)
            index += 1
        if row:
            draw.rectangle((0, top - gutter // 2, width, top + gutter // 2), fill=_GUTTER)
    return canvas


def tint_towards(image: Image.Image, palette: Palette, strength: float = 0.22) -> Image.Image:
    """Blend ``image`` with a vertical gradient of the palette's sky colours."""
    width, height = image.size
    top = np.array(palette.sky_top, np.float32)
    bottom = np.array(palette.sky_bottom, np.float32)
    t = np.linspace(0.0, 1.0, max(2, min(height, 256)), dtype=np.float32)[:, None, None]
    column = (top + (bottom - top) * t).astype(np.uint8)
    gradient = Image.fromarray(column, "RGB").resize((width, height), Image.Resampling.BILINEAR)
    return Image.blend(image, gradient, strength)
