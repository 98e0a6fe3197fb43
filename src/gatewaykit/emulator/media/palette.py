"""Prompt-derived colour palettes and deterministic seeding.

A prompt is turned into colours in two ways: colour words ("red", "ocean",
"sunset", "forest", ...) contribute their own hues in the order they appear, and
a SHA-256 digest of the prompt supplies a base hue, a colour scheme and small
jitter so that two prompts sharing a colour word still look different. All
randomness in the media package flows from :func:`derive_seed`, never from
Python's salted ``hash()``.
"""

from __future__ import annotations

import colorsys
import hashlib
import re
from dataclasses import dataclass

RGB = tuple[int, int, int]

#: Colour words and the hues they suggest, most characteristic first.
COLOUR_WORDS: dict[str, tuple[RGB, ...]] = {
    "red": ((205, 30, 40),), "crimson": ((170, 20, 50),), "scarlet": ((230, 35, 30),),
    "orange": ((240, 130, 30),), "amber": ((245, 170, 40),),
    "yellow": ((245, 215, 50),), "gold": ((225, 180, 50),), "golden": ((225, 180, 50),),
    "green": ((40, 160, 70),), "emerald": ((20, 140, 90),), "lime": ((150, 220, 60),),
    "blue": ((35, 80, 210),), "navy": ((20, 30, 100),), "azure": ((50, 140, 235),),
    "cyan": ((40, 200, 220),), "teal": ((20, 130, 130),), "turquoise": ((50, 200, 190),),
    "purple": ((120, 50, 170),), "violet": ((140, 80, 210),), "lavender": ((180, 160, 230),),
    "magenta": ((210, 40, 170),), "pink": ((240, 140, 180),), "rose": ((225, 90, 120),),
    "brown": ((120, 75, 40),), "white": ((240, 240, 240),), "black": ((15, 15, 20),),
    "grey": ((128, 128, 132),), "gray": ((128, 128, 132),), "silver": ((190, 195, 200),),
    "ocean": ((15, 60, 140), (30, 140, 190), (220, 240, 250)),
    "sea": ((20, 70, 150), (40, 150, 190), (230, 240, 245)),
    "beach": ((60, 170, 220), (240, 220, 170), (30, 120, 170)),
    "water": ((30, 100, 170), (90, 180, 220), (220, 240, 250)),
    "sunset": ((60, 30, 110), (245, 120, 60), (255, 200, 90)),
    "sunrise": ((90, 120, 200), (250, 170, 120), (255, 230, 150)),
    "dusk": ((40, 30, 90), (200, 90, 110), (250, 170, 100)),
    "forest": ((20, 70, 35), (70, 140, 60), (200, 220, 150)),
    "jungle": ((15, 80, 40), (60, 160, 60), (230, 220, 90)),
    "tree": ((40, 110, 50), (110, 170, 90), (240, 230, 170)),
    "night": ((8, 12, 40), (30, 40, 90), (230, 230, 210)),
    "space": ((5, 5, 20), (40, 20, 80), (240, 240, 255)),
    "galaxy": ((10, 5, 35), (90, 40, 140), (240, 200, 255)),
    "desert": ((230, 190, 130), (200, 120, 60), (255, 240, 200)),
    "sand": ((225, 195, 140), (190, 150, 90), (250, 235, 200)),
    "snow": ((225, 235, 245), (170, 195, 220), (255, 255, 255)),
    "winter": ((200, 220, 240), (120, 150, 190), (250, 250, 255)),
    "ice": ((190, 230, 245), (110, 170, 210), (250, 255, 255)),
    "fire": ((180, 20, 10), (250, 120, 20), (255, 220, 80)),
    "lava": ((120, 10, 5), (240, 80, 10), (255, 200, 60)),
    "sky": ((70, 140, 230), (160, 210, 250), (255, 250, 220)),
    "autumn": ((170, 60, 20), (220, 140, 40), (110, 70, 30)),
    "flower": ((235, 120, 170), (90, 170, 80), (255, 230, 120)),
    "garden": ((80, 160, 80), (240, 150, 190), (250, 240, 160)),
    "neon": ((20, 10, 40), (240, 40, 200), (40, 240, 240)),
    "cyberpunk": ((15, 10, 35), (230, 30, 190), (30, 230, 250)),
    "mountain": ((90, 110, 150), (170, 190, 215), (245, 245, 250)),
}

_WORD = re.compile(r"[a-z]+")


def derive_seed(*parts: object) -> int:
    """Return a stable 64-bit seed from any printable parts (prompt, seed, salt...)."""
    digest = hashlib.sha256("\x1f".join(str(p) for p in parts).encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big")


def prompt_words(prompt: str) -> list[str]:
    """Lower-case alphabetic words of ``prompt`` with a trailing plural 's' folded."""
    words = []
    for word in _WORD.findall(prompt.lower()):
        if word not in COLOUR_WORDS and word.endswith("s") and word[:-1] in COLOUR_WORDS:
            word = word[:-1]
        words.append(word)
    return words


def colour_words_in(prompt: str) -> list[RGB]:
    """Colours suggested by the colour words of ``prompt``, in order, without repeats."""
    found: list[RGB] = []
    for word in prompt_words(prompt):
        for colour in COLOUR_WORDS.get(word, ()):
            if colour not in found:
                found.append(colour)
    return found


@dataclass(frozen=True)
class Palette:
    """The colours a scene is painted with."""

    sky_top: RGB
    sky_bottom: RGB
    sun: RGB
    ridges: tuple[RGB, ...]
    accents: tuple[RGB, ...]
    ink: RGB
    shade: RGB


def _hsv(h: float, s: float, v: float) -> RGB:
    r, g, b = colorsys.hsv_to_rgb(h % 1.0, min(max(s, 0.0), 1.0), min(max(v, 0.0), 1.0))
    return (round(r * 255), round(g * 255), round(b * 255))


def _shift(colour: RGB, hue: float, value: float) -> RGB:
    h, s, v = colorsys.rgb_to_hsv(*(c / 255 for c in colour))
    return _hsv(h + hue, s, v * value)


def mix(a: RGB, b: RGB, t: float) -> RGB:
    """Linear blend of two colours; ``t=0`` gives ``a``, ``t=1`` gives ``b``."""
    return (round(a[0] + (b[0] - a[0]) * t), round(a[1] + (b[1] - a[1]) * t),
            round(a[2] + (b[2] - a[2]) * t))


def _luminance(colour: RGB) -> float:
    return 0.299 * colour[0] + 0.587 * colour[1] + 0.114 * colour[2]


def palette_for(prompt: str, seed: int = 0) -> Palette:
    """Build the palette for ``prompt``; ``seed`` only adds slight jitter."""
    digest = hashlib.sha256(prompt.strip().lower().encode("utf-8")).digest()
    jitter_hue = (digest[0] / 255 - 0.5) * 0.06 + ((seed * 2654435761) % 97 / 97 - 0.5) * 0.02
    jitter_value = 0.9 + digest[1] / 255 * 0.2
    named = colour_words_in(prompt)
    if named:
        base = [_shift(c, jitter_hue, jitter_value) for c in named]
    else:
        hue = digest[2] / 255
        step = (0.08, 0.33, 0.5, 0.42)[digest[3] % 4]  # analogous, triadic, complementary, split
        sat = 0.45 + digest[4] / 255 * 0.4
        base = [_hsv(hue, sat, 0.55), _hsv(hue + step, sat * 0.8, 0.9), _hsv(hue - step, sat, 0.95)]
    first, second, third = base[0], base[1 % len(base)], base[2 % len(base)]
    if len(base) == 1:
        second = mix(first, (255, 255, 255), 0.35)
        third = _shift(first, 0.08, 1.15)
    sky_top = mix(first, (0, 0, 0), 0.15)
    sky_bottom = mix(second, (255, 255, 255), 0.15)
    ridges = tuple(mix(mix(first, third, 0.3), (0, 0, 0), 0.25 + 0.18 * i) for i in range(3))
    accents = tuple(base[i % len(base)] for i in range(4))
    dark_scene = _luminance(sky_bottom) < 140
    return Palette(
        sky_top=sky_top,
        sky_bottom=sky_bottom,
        sun=mix(third, (255, 250, 230), 0.45),
        ridges=ridges,
        accents=accents,
        ink=(250, 250, 245) if dark_scene or _luminance(sky_top) < 140 else (20, 20, 28),
        shade=(10, 10, 18) if dark_scene or _luminance(sky_top) < 140 else (245, 245, 240),
    )
