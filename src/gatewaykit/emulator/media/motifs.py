"""The prompt's main noun as a flat silhouette (the "synthetic" badge is :mod:`.badge`).

Cheap and clearly synthetic: a handful of nouns (cat, dog, bird, fish, house, tree,
car, boat, star, heart, moon, rocket, flower, lighthouse, balloon, glass, bicycle,
kite, plane, coin, skyline, cloud) are drawn as simple shapes in a unit box, in the
prompt's first colour word when it has one. Other prompts get no motif.
"""

from __future__ import annotations

from typing import Callable

from PIL import Image, ImageDraw

from .palette import COLOUR_WORDS, RGB, Palette, prompt_words

Box = tuple[float, float, float]  # left, top, size in pixels
_SYNONYMS = {
    "cat": {"cat", "cats", "kitten", "kittens", "kitty", "fox", "foxes", "tiger", "lion"},
    "dog": {"dog", "dogs", "puppy", "puppies", "wolf", "wolves"},
    "bird": {"bird", "birds", "eagle", "owl", "parrot", "sparrow", "crow", "seagull", "duck"},
    "fish": {"fish", "fishes", "whale", "shark", "dolphin", "goldfish"},
    "house": {"house", "houses", "home", "cottage", "cabin", "building", "castle", "barn"},
    "tree": {"tree", "trees", "pine", "oak", "palm"},
    "car": {"car", "cars", "truck", "bus", "taxi", "van"},
    "boat": {"boat", "boats", "ship", "sailboat", "yacht", "ferry"},
    "star": {"star", "stars"},
    "heart": {"heart", "hearts", "love"},
    "moon": {"moon", "crescent"},
    "rocket": {"rocket", "rockets", "spaceship", "spacecraft"},
    "flower": {"flower", "flowers", "rose", "roses", "tulip", "daisy", "sunflower", "blossom"},
    "lighthouse": {"lighthouse", "lighthouses", "beacon"},
    "balloon": {"balloon", "balloons"},
    "glass": {"lemonade", "glass", "juice", "drink", "cocktail", "smoothie", "milkshake"},
    "bicycle": {"bicycle", "bicycles", "bike", "bikes", "cyclist"},
    "kite": {"kite", "kites"},
    "plane": {"plane", "planes", "airplane", "aeroplane", "jet", "aircraft"},
    "coin": {"coin", "coins"},
    "skyline": {"city", "skyline", "skyscraper", "skyscrapers", "downtown"},
    "cloud": {"storm", "cloud", "clouds", "thunder", "thunderstorm", "rain", "lightning"},
}


def main_noun(prompt: str) -> str | None:
    """The first word of ``prompt`` that names a drawable motif (its canonical name)."""
    for word in prompt_words(prompt):
        for noun, words in _SYNONYMS.items():
            if word in words:
                return noun
    return None


def _p(box: Box, points: list[tuple[float, float]]) -> list[tuple[float, float]]:
    left, top, size = box
    return [(left + x * size, top + y * size) for x, y in points]


def _e(box: Box, x0: float, y0: float, x1: float, y1: float) -> tuple[float, float, float, float]:
    left, top, size = box
    return (left + x0 * size, top + y0 * size, left + x1 * size, top + y1 * size)


def _cat(d: ImageDraw.ImageDraw, b: Box, c: tuple) -> None:
    d.ellipse(_e(b, 0.2, 0.45, 0.8, 1.0), fill=c)
    d.ellipse(_e(b, 0.3, 0.15, 0.7, 0.55), fill=c)
    d.polygon(_p(b, [(0.31, 0.3), (0.33, 0.02), (0.48, 0.2)]), fill=c)
    d.polygon(_p(b, [(0.69, 0.3), (0.67, 0.02), (0.52, 0.2)]), fill=c)
    d.polygon(_p(b, [(0.75, 0.9), (0.98, 0.55), (0.92, 0.5), (0.72, 0.8)]), fill=c)


def _dog(d: ImageDraw.ImageDraw, b: Box, c: tuple) -> None:
    d.ellipse(_e(b, 0.15, 0.45, 0.8, 0.8), fill=c)
    d.ellipse(_e(b, 0.6, 0.2, 0.95, 0.55), fill=c)
    d.polygon(_p(b, [(0.62, 0.3), (0.55, 0.6), (0.68, 0.45)]), fill=c)
    for x in (0.22, 0.35, 0.6, 0.7):
        d.rectangle(_e(b, x, 0.7, x + 0.07, 1.0), fill=c)
    d.polygon(_p(b, [(0.18, 0.55), (0.02, 0.35), (0.06, 0.32), (0.22, 0.5)]), fill=c)


def _bird(d: ImageDraw.ImageDraw, b: Box, c: tuple) -> None:
    d.ellipse(_e(b, 0.2, 0.4, 0.75, 0.75), fill=c)
    d.ellipse(_e(b, 0.6, 0.25, 0.85, 0.5), fill=c)
    d.polygon(_p(b, [(0.83, 0.35), (1.0, 0.4), (0.83, 0.45)]), fill=c)
    d.polygon(_p(b, [(0.25, 0.55), (0.0, 0.45), (0.05, 0.7)]), fill=c)
    d.polygon(_p(b, [(0.35, 0.5), (0.55, 0.1), (0.6, 0.5)]), fill=c)


def _fish(d: ImageDraw.ImageDraw, b: Box, c: tuple) -> None:
    d.ellipse(_e(b, 0.15, 0.3, 0.8, 0.7), fill=c)
    d.polygon(_p(b, [(0.2, 0.5), (0.0, 0.28), (0.0, 0.72)]), fill=c)


def _house(d: ImageDraw.ImageDraw, b: Box, c: tuple) -> None:
    d.rectangle(_e(b, 0.15, 0.45, 0.85, 1.0), fill=c)
    d.polygon(_p(b, [(0.05, 0.48), (0.5, 0.08), (0.95, 0.48)]), fill=c)


def _tree(d: ImageDraw.ImageDraw, b: Box, c: tuple) -> None:
    d.rectangle(_e(b, 0.44, 0.65, 0.56, 1.0), fill=c)
    d.polygon(_p(b, [(0.15, 0.72), (0.5, 0.0), (0.85, 0.72)]), fill=c)


def _car(d: ImageDraw.ImageDraw, b: Box, c: tuple) -> None:
    d.rectangle(_e(b, 0.0, 0.5, 1.0, 0.8), fill=c)
    d.polygon(_p(b, [(0.2, 0.5), (0.32, 0.28), (0.7, 0.28), (0.82, 0.5)]), fill=c)
    for x in (0.15, 0.65):
        d.ellipse(_e(b, x, 0.68, x + 0.22, 0.9), fill=c)


def _boat(d: ImageDraw.ImageDraw, b: Box, c: tuple) -> None:
    d.polygon(_p(b, [(0.0, 0.7), (1.0, 0.7), (0.82, 0.95), (0.15, 0.95)]), fill=c)
    d.polygon(_p(b, [(0.5, 0.05), (0.5, 0.65), (0.9, 0.65)]), fill=c)
    d.polygon(_p(b, [(0.46, 0.15), (0.46, 0.65), (0.15, 0.65)]), fill=c)


def _star(d: ImageDraw.ImageDraw, b: Box, c: tuple) -> None:
    import math

    points = [(0.5 + (0.5 if k % 2 == 0 else 0.2) * math.sin(k * math.pi / 5),
               0.52 - (0.5 if k % 2 == 0 else 0.2) * math.cos(k * math.pi / 5)) for k in range(10)]
    d.polygon(_p(b, points), fill=c)


def _heart(d: ImageDraw.ImageDraw, b: Box, c: tuple) -> None:
    d.ellipse(_e(b, 0.05, 0.1, 0.53, 0.58), fill=c)
    d.ellipse(_e(b, 0.47, 0.1, 0.95, 0.58), fill=c)
    d.polygon(_p(b, [(0.08, 0.43), (0.5, 0.95), (0.92, 0.43)]), fill=c)


def _moon(d: ImageDraw.ImageDraw, b: Box, c: tuple) -> None:
    d.pieslice(_e(b, 0.1, 0.1, 0.9, 0.9), 90, 270, fill=c)
    d.ellipse(_e(b, 0.3, 0.1, 0.7, 0.9), fill=c)


def _rocket(d: ImageDraw.ImageDraw, b: Box, c: tuple) -> None:
    d.ellipse(_e(b, 0.35, 0.0, 0.65, 0.85), fill=c)
    d.polygon(_p(b, [(0.37, 0.55), (0.18, 0.9), (0.4, 0.8)]), fill=c)
    d.polygon(_p(b, [(0.63, 0.55), (0.82, 0.9), (0.6, 0.8)]), fill=c)


def _flower(d: ImageDraw.ImageDraw, b: Box, c: tuple) -> None:
    d.rectangle(_e(b, 0.47, 0.45, 0.53, 1.0), fill=c)
    for x, y in ((0.5, 0.12), (0.28, 0.3), (0.72, 0.3), (0.36, 0.52), (0.64, 0.52)):
        d.ellipse(_e(b, x - 0.14, y - 0.14, x + 0.14, y + 0.14), fill=c)


def _lighthouse(d: ImageDraw.ImageDraw, b: Box, c: tuple) -> None:
    beam = c[:3] + (110,)
    d.polygon(_p(b, [(0.5, 0.22), (0.0, 0.1), (0.0, 0.34)]), fill=beam)
    d.polygon(_p(b, [(0.5, 0.22), (1.0, 0.1), (1.0, 0.34)]), fill=beam)
    d.polygon(_p(b, [(0.36, 1.0), (0.64, 1.0), (0.58, 0.32), (0.42, 0.32)]), fill=c)
    d.rectangle(_e(b, 0.41, 0.16, 0.59, 0.3), fill=c)
    d.polygon(_p(b, [(0.38, 0.17), (0.5, 0.04), (0.62, 0.17)]), fill=c)


def _balloon(d: ImageDraw.ImageDraw, b: Box, c: tuple) -> None:
    d.ellipse(_e(b, 0.18, 0.0, 0.82, 0.64), fill=c)
    d.polygon(_p(b, [(0.24, 0.45), (0.76, 0.45), (0.58, 0.76), (0.42, 0.76)]), fill=c)
    width = max(1, round(b[2] * 0.015))
    d.line(_p(b, [(0.43, 0.76), (0.44, 0.86)]), fill=c, width=width)
    d.line(_p(b, [(0.57, 0.76), (0.56, 0.86)]), fill=c, width=width)
    d.rectangle(_e(b, 0.41, 0.86, 0.59, 1.0), fill=c)


def _glass(d: ImageDraw.ImageDraw, b: Box, c: tuple) -> None:
    d.line(_p(b, [(0.56, 0.2), (0.72, 0.0)]), fill=c, width=max(1, round(b[2] * 0.03)))
    d.polygon(_p(b, [(0.3, 0.16), (0.7, 0.16), (0.64, 1.0), (0.36, 1.0)]), fill=c)
    d.ellipse(_e(b, 0.6, 0.06, 0.84, 0.3), fill=c)
    d.ellipse(_e(b, 0.64, 0.1, 0.8, 0.26), outline=tuple(int(v * 0.75) for v in c[:3]) + (255,),
              width=max(1, round(b[2] * 0.012)))


def _bicycle(d: ImageDraw.ImageDraw, b: Box, c: tuple) -> None:
    width = max(2, round(b[2] * 0.045))
    for x in (0.0, 0.58):
        d.ellipse(_e(b, x, 0.5, x + 0.42, 0.92), outline=c, width=width)
    d.line(_p(b, [(0.21, 0.71), (0.45, 0.71), (0.66, 0.45), (0.36, 0.45), (0.21, 0.71)]), fill=c, width=width,
           joint="curve")
    d.line(_p(b, [(0.45, 0.71), (0.34, 0.36)]), fill=c, width=width)
    d.line(_p(b, [(0.66, 0.45), (0.79, 0.71)]), fill=c, width=width)
    d.line(_p(b, [(0.66, 0.45), (0.62, 0.32), (0.74, 0.3)]), fill=c, width=width)
    d.rectangle(_e(b, 0.26, 0.33, 0.42, 0.38), fill=c)


def _kite(d: ImageDraw.ImageDraw, b: Box, c: tuple) -> None:
    d.polygon(_p(b, [(0.55, 0.0), (0.85, 0.28), (0.5, 0.66), (0.22, 0.3)]), fill=c)
    d.line(_p(b, [(0.5, 0.66), (0.42, 0.78), (0.52, 0.88), (0.44, 1.0)]), fill=c, width=max(1, round(b[2] * 0.015)))
    for x, y in ((0.43, 0.78), (0.51, 0.88)):
        d.polygon(_p(b, [(x - 0.05, y - 0.03), (x + 0.05, y + 0.03), (x + 0.05, y - 0.03), (x - 0.05, y + 0.03)]),
                  fill=c)


def _plane(d: ImageDraw.ImageDraw, b: Box, c: tuple) -> None:
    d.polygon(_p(b, [(0.0, 0.52), (1.0, 0.2), (0.36, 0.66)]), fill=c)
    d.polygon(_p(b, [(0.36, 0.66), (1.0, 0.2), (0.46, 0.86)]), fill=c[:3] + (200,))


def _coin(d: ImageDraw.ImageDraw, b: Box, c: tuple) -> None:
    d.ellipse(_e(b, 0.1, 0.1, 0.9, 0.9), fill=c)
    d.ellipse(_e(b, 0.2, 0.2, 0.8, 0.8), outline=tuple(int(v * 0.7) for v in c[:3]) + (255,),
              width=max(1, round(b[2] * 0.03)))


def _skyline(d: ImageDraw.ImageDraw, b: Box, c: tuple) -> None:
    for x0, x1, top in ((-0.4, -0.15, 0.5), (-0.15, 0.08, 0.3), (0.08, 0.3, 0.55), (0.3, 0.46, 0.1),
                        (0.46, 0.7, 0.4), (0.7, 0.9, 0.22), (0.9, 1.15, 0.6), (1.15, 1.4, 0.35)):
        d.rectangle(_e(b, x0, top, x1, 1.0), fill=c)
    d.polygon(_p(b, [(0.34, 0.1), (0.38, -0.05), (0.42, 0.1)]), fill=c)


def _cloud(d: ImageDraw.ImageDraw, b: Box, c: tuple) -> None:
    d.polygon(_p(b, [(0.52, 0.5), (0.36, 0.78), (0.5, 0.78), (0.4, 1.0), (0.66, 0.7), (0.52, 0.7), (0.62, 0.5)]),
              fill=(250, 220, 60, 255))
    for x0, y0, x1, y1 in ((0.05, 0.25, 0.45, 0.6), (0.3, 0.05, 0.75, 0.55), (0.55, 0.2, 0.95, 0.6)):
        d.ellipse(_e(b, x0, y0, x1, y1), fill=c)


_DRAW: dict[str, Callable[..., None]] = {"cat": _cat, "dog": _dog, "bird": _bird, "fish": _fish, "house": _house,
                                        "tree": _tree, "car": _car, "boat": _boat, "star": _star, "heart": _heart,
                                        "moon": _moon, "rocket": _rocket, "flower": _flower,
                                        "lighthouse": _lighthouse, "balloon": _balloon, "glass": _glass,
                                        "bicycle": _bicycle, "kite": _kite, "plane": _plane, "coin": _coin,
                                        "skyline": _skyline, "cloud": _cloud}


#: Colours a thing has unless the prompt names one (lemonade is yellow, a coin golden).
_NATURAL: dict[str, RGB] = {"glass": (246, 224, 94), "coin": (224, 176, 46)}


def motif_colour(prompt: str, palette: Palette) -> RGB:
    """The prompt's first colour word (one that names a single hue), else the thing's own, else the palette's ink."""
    for word in prompt_words(prompt):
        hues = COLOUR_WORDS.get(word)
        if hues and len(hues) == 1:
            return hues[0]
    return _NATURAL.get(main_noun(prompt) or "", palette.ink)


def draw_motif(image: Image.Image, prompt: str, palette: Palette) -> str | None:
    """Draw the main noun's silhouette in the lower middle of ``image`` (RGB, in place); its name or None."""
    noun = main_noun(prompt)
    if noun is None or min(image.size) < 48:
        return None
    width, height = image.size
    size = min(width, height) * 0.42
    box = ((width - size) / 2, height * 0.93 - size, size)
    layer = Image.new("RGBA", image.size, (0, 0, 0, 0))
    draw = ImageDraw.Draw(layer)
    outline = (245, 245, 240, 255) if sum(motif_colour(prompt, palette)) < 200 else (20, 20, 28, 255)
    offset = max(1.5, size * 0.012)
    for dx, dy in ((-1, -1), (1, -1), (-1, 1), (1, 1), (0, 1.6)):  # an outline, so it shows on any sky
        _DRAW[noun](draw, (box[0] + dx * offset, box[1] + dy * offset, box[2]), outline)
    _DRAW[noun](draw, box, motif_colour(prompt, palette) + (255,))
    image.paste(Image.alpha_composite(image.convert("RGBA"), layer).convert("RGB"))
    return noun
