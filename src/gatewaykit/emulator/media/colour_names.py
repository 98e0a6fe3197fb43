"""Human colour names for pixels ("red", "dark blue", "light grey", ...).

Classification works in HSV: very dark pixels are "black", unsaturated ones are
white/greys, the rest get a hue name with "dark"/"light" qualifiers, plus the
everyday special cases brown (dark orange/red), olive (dark yellow) and pink
(pale red/magenta). Vectorised with numpy so a whole thumbnail is named at once.
"""

from __future__ import annotations

import numpy as np

_HUES = ("red", "orange", "yellow", "green", "cyan", "blue", "purple", "magenta")
# Upper hue bounds in degrees for each entry of _HUES (red wraps around 345).
_HUE_EDGES = np.array([15, 40, 70, 165, 195, 255, 310, 345], dtype=np.float32)
_ACHROMATIC = ("black", "dark grey", "grey", "light grey", "white")
_SPECIAL = {("dark", "orange"): "brown", ("dark", "red"): "dark red", ("dark", "yellow"): "olive",
            ("light", "red"): "pink", ("light", "magenta"): "pink"}


def _names_table() -> list[str]:
    names = list(_ACHROMATIC)
    for qualifier in ("dark", "", "light"):
        for hue in _HUES:
            names.append(_SPECIAL.get((qualifier, hue), f"{qualifier} {hue}".strip()))
    return names


COLOUR_NAMES = _names_table()


def classify_pixels(rgb: np.ndarray) -> np.ndarray:
    """Map an ``(N, 3)`` uint8 array to indices into :data:`COLOUR_NAMES`."""
    pixels = rgb.astype(np.float32) / 255.0
    high = pixels.max(axis=1)
    low = pixels.min(axis=1)
    chroma = high - low
    saturation = np.where(high > 0, chroma / np.maximum(high, 1e-6), 0.0)
    r, g, b = pixels[:, 0], pixels[:, 1], pixels[:, 2]
    safe = np.maximum(chroma, 1e-6)
    hue = np.select(
        [high == r, high == g],
        [((g - b) / safe) % 6.0, (b - r) / safe + 2.0],
        (r - g) / safe + 4.0,
    ) * 60.0
    hue_index = np.searchsorted(_HUE_EDGES, hue % 360.0, side="right") % len(_HUES)
    qualifier = np.where(high < 0.52, 0, np.where((saturation < 0.55) & (high > 0.8), 2, 1))
    chromatic = 5 + qualifier * len(_HUES) + hue_index
    grey_level = np.clip((high * 4.0 + 0.5).astype(np.int64), 1, 4)
    achromatic = np.where(high < 0.13, 0, grey_level)
    is_grey = (saturation < 0.18) | (chroma < 0.08) | (high < 0.13)
    return np.where(is_grey, achromatic, chromatic).astype(np.int64)


def dominant_colours(rgb: np.ndarray, top: int = 3) -> list[tuple[str, str, float]]:
    """Most common named colours of ``(N, 3)`` pixels as ``(name, "#rrggbb", fraction)``.

    The hex value is the mean colour of the pixels given that name.
    """
    if rgb.size == 0:
        return []
    codes = classify_pixels(rgb)
    counts = np.bincount(codes, minlength=len(COLOUR_NAMES))
    result = []
    for code in np.argsort(-counts, kind="stable")[:top]:
        if counts[code] == 0:
            break
        mean = rgb[codes == code].mean(axis=0).round().astype(int)
        result.append((COLOUR_NAMES[code], "#{:02x}{:02x}{:02x}".format(*mean.tolist()),
                       float(counts[code] / len(codes))))
    return result
