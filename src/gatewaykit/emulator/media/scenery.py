"""Procedural scenery painted from a palette: gradient sky, sun, ridges, waves, orbs.

Smooth parts (sky gradient, sun glow) are computed with numpy at a small working
resolution and upscaled bilinearly, which is exact for gradients and keeps 4096 px
images cheap; hard-edged shapes are drawn at full resolution with ``ImageDraw``.
The layout (landscape, orbs or waves) follows words in the prompt when they
suggest one and otherwise the prompt hash and seed.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from PIL import Image, ImageDraw

from .palette import RGB, Palette, derive_seed, mix, prompt_words

LAYOUTS = ("landscape", "orbs", "waves")
_LAYOUT_WORDS = {
    "waves": {"ocean", "sea", "beach", "water", "wave", "river", "lake", "surf", "coast", "lighthouse", "pond",
              "harbour", "harbor", "boat", "ship"},
    "landscape": {"mountain", "forest", "hill", "valley", "landscape", "desert", "tree", "field"},
    "orbs": {"abstract", "bubble", "circle", "space", "galaxy", "planet", "orb", "neon"},
}
_SMOOTH_SIDE = 384  # working resolution for gradients


@dataclass
class Scenery:
    """A painted scene plus what animation needs to move a sun across it."""

    image: Image.Image  # RGB
    foreground: Image.Image  # L, 255 where terrain/waves cover the sky
    sun_centre: tuple[float, float]  # as fractions of width/height
    sun_radius: float  # pixels


def choose_layout(prompt: str, seed: int) -> str:
    """Pick a layout from words in ``prompt``, else from the prompt hash and seed."""
    words = set(prompt_words(prompt))
    for layout, cues in _LAYOUT_WORDS.items():
        if words & cues:
            return layout
    return LAYOUTS[derive_seed(prompt, seed, "layout") % len(LAYOUTS)]


def paint_sky(
    palette: Palette,
    width: int,
    height: int,
    *,
    tilt: float = 0.0,
    glow_at: tuple[float, float] | None = None,
) -> Image.Image:
    """Vertical (optionally tilted) gradient with an optional warm glow, as an RGB image."""
    scale = min(1.0, _SMOOTH_SIDE / max(width, height))
    low_w, low_h = max(2, round(width * scale)), max(2, round(height * scale))
    ys = np.linspace(0.0, 1.0, low_h, dtype=np.float32)[:, None]
    xs = np.linspace(-0.5, 0.5, low_w, dtype=np.float32)[None, :]
    t = np.clip(ys ** 1.2 + tilt * xs, 0.0, 1.0)[..., None]
    top = np.array(palette.sky_top, np.float32)
    bottom = np.array(palette.sky_bottom, np.float32)
    sky = top + (bottom - top) * t
    if glow_at is not None:
        dx = (xs + 0.5 - glow_at[0]) * (width / max(width, height))
        dy = (ys - glow_at[1]) * (height / max(width, height))
        glow = np.exp(-(dx * dx + dy * dy) / 0.04)[..., None] * 0.55
        sky = sky + (np.array(palette.sun, np.float32) - sky) * glow
    low = Image.fromarray(np.clip(sky, 0, 255).astype(np.uint8), "RGB")
    return low.resize((width, height), Image.Resampling.BILINEAR)


def _ridge_points(rng: np.random.Generator, width: int, height: int, base: float,
                  amplitude: float) -> list[tuple[float, float]]:
    count = max(8, min(400, width // 6))
    xs = np.linspace(0, width, count)
    ys = np.full(count, base * height)
    for octave in range(3):
        freq = rng.uniform(1.0, 3.0) * (2.2 ** octave)
        phase = rng.uniform(0, 2 * np.pi)
        ys -= amplitude * height / (1.8 ** octave) * (np.sin(xs / width * freq * 2 * np.pi + phase) + 1) / 2
    points = list(zip(xs.tolist(), ys.tolist()))
    return [(0.0, float(height))] + points + [(float(width), float(height))]


def _wave_points(rng: np.random.Generator, width: int, height: int, base: float,
                 amplitude: float) -> list[tuple[float, float]]:
    count = max(8, min(400, width // 6))
    xs = np.linspace(0, width, count)
    cycles, phase = rng.uniform(1.5, 4.0), rng.uniform(0, 2 * np.pi)
    ys = base * height + amplitude * height * np.sin(xs / width * cycles * 2 * np.pi + phase)
    return [(0.0, float(height))] + list(zip(xs.tolist(), ys.tolist())) + [(float(width), float(height))]


def _draw_sun(draw: ImageDraw.ImageDraw, centre: tuple[float, float], radius: float, colour: RGB) -> None:
    x, y = centre
    draw.ellipse((x - radius, y - radius, x + radius, y + radius), fill=colour + (255,))


def _draw_stars(draw: ImageDraw.ImageDraw, rng: np.random.Generator, width: int, height: int,
                colour: RGB) -> None:
    count = int(min(600, width * height / 4000))
    xs = rng.uniform(0, width, count)
    ys = rng.uniform(0, height * 0.5, count)
    sizes = rng.uniform(0.5, 1.6, count) * max(1.0, min(width, height) / 512)
    for x, y, r in zip(xs.tolist(), ys.tolist(), sizes.tolist()):
        draw.ellipse((x - r, y - r, x + r, y + r), fill=colour + (200,))


def paint_scene(
    prompt: str,
    palette: Palette,
    width: int,
    height: int,
    *,
    seed: int,
    detail: int = 1,
    draw_sun: bool = True,
) -> Scenery:
    """Paint the scene for ``prompt``; ``detail`` 0 (low), 1 (normal) or 2 (high)."""
    rng = np.random.default_rng(derive_seed(prompt, seed, "scene"))
    layout = choose_layout(prompt, seed)
    short = min(width, height)
    sun_centre = (float(rng.uniform(0.2, 0.8)), float(rng.uniform(0.15, 0.38)))
    sun_radius = short * float(rng.uniform(0.07, 0.13))
    image = paint_sky(palette, width, height, tilt=float(rng.uniform(-0.4, 0.4)),
                      glow_at=sun_centre if draw_sun and layout != "orbs" else None)
    foreground = Image.new("L", (width, height), 0)
    draw = ImageDraw.Draw(image, "RGBA")
    mask = ImageDraw.Draw(foreground)
    if detail >= 2 and sum(palette.sky_top) < 300:
        _draw_stars(draw, rng, width, height, (255, 255, 240))
    sun_xy = (sun_centre[0] * width, sun_centre[1] * height)
    if layout == "orbs":
        for index in range((3, 7, 12)[min(detail, 2)]):
            colour = palette.accents[index % len(palette.accents)]
            x, y = rng.uniform(0, width), rng.uniform(0, height * 0.8)
            r = short * rng.uniform(0.06, 0.22)
            draw.ellipse((x - r, y - r, x + r, y + r), fill=colour + (int(rng.integers(110, 220)),))
        if draw_sun:
            _draw_sun(draw, sun_xy, sun_radius, palette.sun)
        return Scenery(image, foreground, sun_centre, sun_radius)
    if draw_sun:
        _draw_sun(draw, sun_xy, sun_radius, palette.sun)
    layers = (1, 3, 4)[min(detail, 2)]
    for index in range(layers):
        depth = index / max(1, layers - 1)
        base = 0.62 + 0.16 * depth if layout == "landscape" else 0.6 + 0.12 * depth
        if layout == "landscape":
            points = _ridge_points(rng, width, height, base, 0.28 - 0.1 * depth)
            colour = mix(palette.ridges[min(index, 2)], palette.sky_bottom, 0.35 * (1 - depth))
        else:
            points = _wave_points(rng, width, height, base, 0.025 + 0.015 * depth)
            colour = mix(palette.accents[index % len(palette.accents)], palette.ridges[0], 0.2 + 0.2 * depth)
        draw.polygon(points, fill=colour + (255,))
        mask.polygon(points, fill=255)
    return Scenery(image, foreground, sun_centre, sun_radius)
