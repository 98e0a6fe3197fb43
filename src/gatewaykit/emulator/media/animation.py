"""Frame painters for synthetic video: an animated prompt scene and a Ken Burns move.

Both painters do their expensive work once (background, caption, sprites, the
resized reference) and then produce each frame as an ``(height, width, 3)`` uint8
array with a handful of vectorised numpy operations on small patches, so
encoding, not drawing, dominates the cost of a clip.
"""

from __future__ import annotations

import numpy as np
from PIL import Image

from .badge import erase_badge
from .caption import draw_caption
from .collage import cover
from .decoding import decode_to_cover
from .errors import MediaError
from .palette import RGB, derive_seed, palette_for
from .scenery import paint_scene

KEN_BURNS_ZOOM = 1.18  # the reference is shown between 1.0x and this zoom


def disc_sprite(radius: float, glow: float = 2.0) -> np.ndarray:
    """Alpha (float32, square) of a soft-edged disc of ``radius`` with a fading halo."""
    half = int(np.ceil(radius * glow))
    axis = np.arange(-half, half + 1, dtype=np.float32)
    distance = np.hypot(axis[None, :], axis[:, None])
    core = np.clip(radius + 0.5 - distance, 0.0, 1.0)
    halo = 0.45 * np.exp(-((distance / radius) ** 2) / 1.2) * (distance > radius)
    return np.maximum(core, halo).astype(np.float32)


def blend_patch(frame: np.ndarray, colour: RGB, alpha: np.ndarray, x: int, y: int,
                cover: np.ndarray | None = None) -> None:
    """Blend ``colour`` into ``frame`` through ``alpha`` with its top-left at ``(x, y)``, clipped.

    ``cover`` (float32, frame-sized, 1 = hidden) masks the sprite behind foreground.
    """
    height, width = frame.shape[:2]
    x0, y0 = max(0, x), max(0, y)
    x1, y1 = min(width, x + alpha.shape[1]), min(height, y + alpha.shape[0])
    if x0 >= x1 or y0 >= y1:
        return
    a = alpha[y0 - y:y1 - y, x0 - x:x1 - x]
    if cover is not None:
        a = a * (1.0 - cover[y0:y1, x0:x1])
    region = frame[y0:y1, x0:x1].astype(np.float32)
    region += (np.asarray(colour, np.float32) - region) * a[..., None]
    frame[y0:y1, x0:x1] = region


class PromptAnimation:
    """A prompt scene with a sun crossing the sky and drifting orbs, under a static caption at the top.

    No timecode or progress bar is drawn (the player shows both), and nothing sits along the
    bottom edge, where a player's controls would cover it.
    """

    def __init__(self, prompt: str, *, seed: int, width: int, height: int, frames: int, fps: int) -> None:
        palette = palette_for(prompt, seed)
        scenery = paint_scene(prompt, palette, width, height, seed=seed, detail=1, draw_sun=False)
        band_bottom = draw_caption(scenery.image, prompt, ink=palette.ink, shade=palette.shade, at="top")
        self.background = np.asarray(scenery.image, dtype=np.uint8).copy()
        self.cover = np.asarray(scenery.foreground, dtype=np.float32) / 255.0
        self.frames = max(1, frames)
        self.sun_colour = palette.sun
        self.sun = disc_sprite(scenery.sun_radius)
        rng = np.random.default_rng(derive_seed(prompt, seed, "animation"))
        clear = band_bottom + scenery.sun_radius * 2  # the sun's glow stays below the caption
        self.sun_y = (max(scenery.sun_centre[1] * height, clear), max(height * 0.45, clear))
        self.sun_x = (width * rng.uniform(0.05, 0.3), width * rng.uniform(0.7, 0.95))
        if rng.random() < 0.5:
            self.sun_x = self.sun_x[::-1]
        short = min(width, height)
        self.orbs = []
        for index in range(3):
            radius = short * rng.uniform(0.02, 0.05)
            colour = palette.accents[index % len(palette.accents)]
            top = band_bottom + 3 * radius
            start = (rng.uniform(0, width), rng.uniform(top, max(top + 1, height * 0.8)))
            speed = rng.uniform(0.1, 0.35) * width * (1 if rng.random() < 0.5 else -1)
            self.orbs.append((colour, disc_sprite(radius, glow=1.4), start, speed, rng.uniform(0, 6.3)))
        self.fps = fps

    def frame(self, index: int) -> np.ndarray:
        """The ``index``-th frame as an ``(height, width, 3)`` uint8 array."""
        progress = index / max(1, self.frames - 1)
        frame = self.background.copy()
        height, width = frame.shape[:2]
        alpha = self.sun
        x = self.sun_x[0] + (self.sun_x[1] - self.sun_x[0]) * progress
        y = self.sun_y[0] + (self.sun_y[1] - self.sun_y[0]) * (1 - np.sin(np.pi * progress)) * 0.6
        blend_patch(frame, self.sun_colour, alpha, round(x) - alpha.shape[1] // 2, round(y) - alpha.shape[0] // 2, self.cover)
        seconds = index / self.fps
        for orb_colour, orb_alpha, (x0, y0), speed, phase in self.orbs:
            size = orb_alpha.shape[0]
            ox = (x0 + speed * seconds) % (width + size) - size
            oy = y0 + np.sin(phase + seconds * 1.5) * size * 0.3
            blend_patch(frame, orb_colour, orb_alpha, round(ox), round(oy) - size // 2, self.cover)
        return frame


class KenBurnsAnimation:
    """Image-to-video: a slow zoom and pan across a reference image."""

    def __init__(self, reference: bytes, *, seed: int, width: int, height: int, frames: int, fps: int) -> None:
        source_size = (round(width * KEN_BURNS_ZOOM), round(height * KEN_BURNS_ZOOM))
        try:
            picture = erase_badge(decode_to_cover(reference, source_size))
        except MediaError as exc:
            raise MediaError(f"reference image: {exc}") from None
        self.source = cover(picture, source_size)
        rng = np.random.default_rng(derive_seed(seed, "ken-burns", width, height))
        self.zoom_in = bool(rng.random() < 0.5)
        self.start = (rng.uniform(0.3, 0.7), rng.uniform(0.3, 0.7))
        self.end = (rng.uniform(0.3, 0.7), rng.uniform(0.3, 0.7))
        self.size = (width, height)
        self.frames = max(1, frames)

    def frame(self, index: int) -> np.ndarray:
        """The ``index``-th frame as an ``(height, width, 3)`` uint8 array."""
        progress = index / max(1, self.frames - 1)
        eased = progress * progress * (3 - 2 * progress)
        zoom_progress = eased if self.zoom_in else 1 - eased
        zoom = 1.0 + (KEN_BURNS_ZOOM - 1.0) * zoom_progress
        source_w, source_h = self.source.size
        box_w, box_h = source_w / zoom, source_h / zoom
        cx = self.start[0] + (self.end[0] - self.start[0]) * eased
        cy = self.start[1] + (self.end[1] - self.start[1]) * eased
        left = (source_w - box_w) * cx
        top = (source_h - box_h) * cy
        view = self.source.resize(self.size, Image.Resampling.BICUBIC, box=(left, top, left + box_w, top + box_h))
        frame = np.asarray(view, dtype=np.uint8).copy()
        return frame
