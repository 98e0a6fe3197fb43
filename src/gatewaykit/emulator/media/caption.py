"""Prompt captions: word-wrapped text on a translucent band along the bottom or top of a picture.

Videos put it at the top, where a player's controls do not cover it.

Uses Pillow's bundled default font (``ImageFont.load_default(size=...)``), so no
font files or network access are needed. Text that does not fit in the allowed
number of lines is truncated with "...".
"""

from __future__ import annotations

from PIL import Image, ImageDraw, ImageFont

from .palette import RGB

ELLIPSIS = "..."


def caption_font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    """Pillow's default font at ``size`` pixels.

    Deliberately not cached: loading takes ~0.05 ms, and a FreeType face shared
    between server threads would not be safe.
    """
    return ImageFont.load_default(size=size)


def caption_font_size(width: int, height: int) -> int:
    """A legible font size for a picture of ``width`` x ``height``."""
    return max(8, min(120, round(min(width, height * 1.8) / 28)))


def _fit_word(word: str, font: ImageFont.FreeTypeFont | ImageFont.ImageFont, limit: float) -> str:
    word = word[: int(limit // max(1.0, font.getlength("i"))) + 1]  # no glyph is narrower than "i"
    while word and font.getlength(word) > limit:
        word = word[:-1]
    return word


def wrap_caption(
    text: str,
    font: ImageFont.FreeTypeFont | ImageFont.ImageFont,
    max_width: float,
    max_lines: int,
) -> list[str]:
    """Greedy word wrap of ``text`` into at most ``max_lines`` lines no wider than ``max_width``."""
    lines: list[str] = []
    current = ""
    truncated = False
    for word in text.split():
        if font.getlength(word) > max_width:
            word = _fit_word(word, font, max_width)
        candidate = f"{current} {word}" if current else word
        if font.getlength(candidate) <= max_width:
            current = candidate
            continue
        lines.append(current)
        current = word
        if len(lines) == max_lines:
            truncated = True
            break
    else:
        if current:
            lines.append(current)
    if truncated and lines:
        last = lines[-1]
        while last and font.getlength(last + ELLIPSIS) > max_width:
            last = last[:-1].rstrip()
        lines[-1] = last + ELLIPSIS
    return [line for line in lines if line]


def draw_caption(
    image: Image.Image,
    text: str,
    *,
    ink: RGB = (250, 250, 245),
    shade: RGB = (10, 10, 18),
    opacity: float = 0.55,
    at: str = "bottom",
) -> int:
    """Draw ``text`` on a translucent band along the bottom (or ``at="top"``) of ``image`` (RGB, in place).

    Returns the edge of the band facing the rest of the picture: for the bottom its top
    (``image.height`` if nothing was drawn), for the top its bottom (0 if nothing was
    drawn), so callers can keep moving content clear of it.
    """
    text = " ".join(text[:2000].split())
    width, height = image.size
    empty = height if at == "bottom" else 0
    if not text or width < 16 or height < 16:
        return empty
    size = caption_font_size(width, height)
    font = caption_font(size)
    pad = max(2, size // 2)
    max_lines = 1 if height < 160 else 2 if height < 420 else 3
    lines = wrap_caption(text, font, width - 2 * pad, max_lines)
    if not lines:
        return empty
    line_height = round(size * 1.25)
    band_height = min(height // 2, len(lines) * line_height + pad * 2 - (line_height - size))
    top = height - band_height if at == "bottom" else 0
    band = image.crop((0, top, width, height)).convert("RGBA")
    overlay = Image.new("RGBA", band.size, shade + (round(255 * opacity),))
    band = Image.alpha_composite(band, overlay)
    draw = ImageDraw.Draw(band)
    for row, line in enumerate(lines):
        draw.text((pad, pad + row * line_height), line, font=font, fill=ink + (255,))
    image.paste(band.convert("RGB"), (0, top))
    return top if at == "bottom" else band_height
