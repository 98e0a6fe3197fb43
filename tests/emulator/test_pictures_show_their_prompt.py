"""Pictures show their prompt's subject, the badge is sized to the picture, references enlarge smoothly."""

from __future__ import annotations

import io

import numpy as np
import pytest
from PIL import Image

from gatewaykit.emulator.media import draw_image
from gatewaykit.emulator.media.badge import badge_box
from gatewaykit.emulator.media.motifs import main_noun
from gatewaykit.emulator.media.palette import palette_for
from gatewaykit.emulator.media.scenery import paint_scene


def picture(prompt: str, width: int = 256, height: int = 256, **options) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(draw_image(prompt, seed=5, width=width, height=height, **options)))
                      .convert("RGB"), np.int16)


@pytest.mark.parametrize("prompt, noun", [("a lighthouse at dusk", "lighthouse"), ("a hot air balloon", "balloon"),
                                          ("a tall glass of lemonade", "glass"),
                                          ("a red bicycle by a blue door", "bicycle"), ("a kite", "kite"),
                                          ("a paper plane over a city", "plane"), ("a gold coin", "coin"),
                                          ("a city skyline at night", "skyline"), ("a storm", "cloud")])
def test_the_notebooks_prompts_have_a_subject_to_draw(prompt, noun):
    """Each prompt the notebooks use names a thing the offline model draws."""
    assert main_noun(prompt) == noun


@pytest.mark.parametrize("prompt", ["a lighthouse at dusk", "a hot air balloon", "a tall glass of lemonade",
                                    "a red bicycle by a blue door"])
def test_the_subject_is_drawn_over_the_scene(prompt):
    """The lower middle of the picture differs from the bare scene: the subject is drawn there."""
    bare = np.asarray(paint_scene(prompt, palette_for(prompt, 5), 256, 256, seed=5, detail=1).image, np.int16)
    drawn = picture(prompt)
    middle = (slice(130, 240), slice(90, 166))
    assert (np.abs(drawn[middle] - bare[middle]).sum(axis=2) > 60).mean() > 0.15


def test_a_lighthouse_stands_by_the_sea():
    """A lighthouse gets the sea layout, not mountains."""
    from gatewaykit.emulator.media.scenery import choose_layout

    assert all(choose_layout("a lighthouse at dusk", seed) == "waves" for seed in range(5))


@pytest.mark.parametrize("size", [(768, 1024), (2048, 1152), (1024, 1024)])
def test_the_badge_is_the_same_share_of_every_picture(size):
    """The badge's height is about 2 % of the picture's geometric mean side, small or large."""
    left, top, right, bottom, font = badge_box(*size)
    share = font / (size[0] * size[1]) ** 0.5
    assert 0.018 <= share <= 0.022


def test_an_edit_collage_has_one_badge():
    """References made by the offline gateway lose their own badge: the collage shows only its own."""
    references = [draw_image("a quiet valley at dawn", seed=k, width=512, height=512) for k in (1, 2)]
    collage = picture("combine these", 1024, 512, references=references)
    # The second tile's top-left corner (where its reference's badge was) matches the pixels below it.
    corner = collage[8:30, 520:620].mean(axis=(0, 1))
    below = collage[40:50, 520:620].mean(axis=(0, 1))
    assert np.abs(corner - below).max() < 20


def test_an_enlarged_reference_has_no_stair_steps():
    """A 128 px reference enlarged 8x is smooth: few neighbouring pixels differ sharply (bilinear left 0.8 %)."""
    reference = draw_image("a red fox", seed=3, width=128, height=128)
    big = picture("combine these", 1024, 1024, references=[reference])
    steps = np.abs(np.diff(big[300:900, 300:900].sum(axis=2), axis=1))
    assert (steps > 20).mean() < 0.004
