"""Media polish: songs end with music, video text stays clear of player controls, images show the noun."""

from __future__ import annotations

import io

import av
import numpy as np
import pytest
from PIL import Image

from gatewaykit.emulator.media import draw_image, render_song, render_video
from gatewaykit.emulator.media.palette import palette_for
from gatewaykit.emulator.media.scenery import paint_scene


def trailing_silence(mp3: bytes, threshold_db: float = -40.0) -> float:
    """Seconds at the end of ``mp3`` whose 50 ms RMS stays below ``threshold_db`` dBFS (decoded by PyAV)."""
    with av.open(io.BytesIO(mp3)) as container:
        rate = container.streams.audio[0].codec_context.sample_rate
        pcm = np.concatenate([frame.to_ndarray() for frame in container.decode(audio=0)], axis=1).mean(axis=0)
    window = rate // 20
    count = len(pcm) // window
    rms = np.sqrt((pcm[: count * window].reshape(count, window) ** 2).mean(axis=1))
    loud = np.nonzero(rms > 10 ** (threshold_db / 20))[0]
    return (count - 1 - loud[-1]) / 20


@pytest.mark.parametrize("prompt, lyrics, seconds", [
    ("jazz", "[Verse]\nWalking down the road\nSinging all alone\n[Chorus]\nOh oh oh\nHere we go", None),
    ("sad lonely synthwave", "[Verse]\nWalking down the road\nSinging all alone\n[Chorus]\nOh oh oh", None),
    ("folk guitar", "[Verse]\nHello", None),
    ("rock", "", 30.0),
    ("slow piano ballad", "[Intro]\n[Verse]\nOne line here\n[Outro]", None),
])
def test_songs_end_with_music_not_silence(prompt, lyrics, seconds):
    """A song has no trailing silence over 0.5 s (decoded with PyAV, -40 dBFS)."""
    mp3, _duration = render_song(prompt, lyrics, seed=2, seconds=seconds)
    assert trailing_silence(mp3) <= 0.5


def _frames(data: bytes) -> list[np.ndarray]:
    with av.open(io.BytesIO(data)) as container:
        return [frame.to_ndarray(format="rgb24").astype(np.int16) for frame in container.decode(video=0)]


PROMPT = "a quiet valley at dawn with mist over the hills"


def _bare_scene(width: int, height: int) -> np.ndarray:
    """The scene without anything drawn over it."""
    scene = paint_scene(PROMPT, palette_for(PROMPT, 4), width, height, seed=4, detail=1, draw_sun=False).image
    return np.asarray(scene, dtype=np.float64)


def _unexplained(frame: np.ndarray, scene: np.ndarray) -> float:
    """Mean error left after the best per-channel affine map scene → frame (the codec shifts colours)."""
    errors = []
    for channel in range(3):
        x, y = scene[..., channel].ravel(), frame[..., channel].ravel().astype(np.float64)
        design = np.stack([x, np.ones_like(x)], axis=1)
        fit, *_ = np.linalg.lstsq(design, y, rcond=None)
        errors.append(np.abs(design @ fit - y).mean())
    return float(np.mean(errors))


def test_video_bottom_edge_has_no_caption_or_bar():
    """The strip under a player's controls shows only the scene: no caption, bar or timecode."""
    frames = _frames(render_video(PROMPT, seed=4, seconds=2, width=320, height=180))
    bottom = _bare_scene(320, 180)[-25:]
    for frame in (frames[0], frames[-1]):
        assert _unexplained(frame[-25:], bottom) < 3


def test_video_has_no_running_timecode():
    """The caption band at the top is the same at 0 s and at 1.5 s (no clock is drawn)."""
    frames = _frames(render_video(PROMPT, seed=4, seconds=2, width=320, height=180, fps=12))
    first, later = frames[0][:20], frames[18][:20]
    assert np.abs(first - later).mean() < 3


def test_video_caption_is_at_the_top():
    """The prompt caption is drawn at the top: that band differs from the bare scene."""
    frame = _frames(render_video(PROMPT, seed=4, seconds=1, width=320, height=180))[0]
    scene = _bare_scene(320, 180)
    assert _unexplained(frame[:15], scene[:15]) > 10


def _png(prompt: str, size=(256, 192)) -> np.ndarray:
    data = draw_image(prompt, seed=5, width=size[0], height=size[1], fmt="png")
    return np.asarray(Image.open(io.BytesIO(data)).convert("RGB"), dtype=np.int16)


def test_image_has_no_burned_in_caption():
    """Without a drawable noun, the picture below the badge is the bare scene: the prompt is not written on it."""
    prompt = "a quiet valley at dawn"
    picture = _png(prompt)
    scene = np.asarray(paint_scene(prompt, palette_for(prompt, 5), 256, 192, seed=5, detail=1).image, np.int16)
    assert np.array_equal(picture[40:], scene[40:])


def test_image_shows_the_main_noun_in_its_colour():
    """'a red fox' draws a silhouette in the red of the colour word in the lower middle."""
    picture = _png("a red fox in the snow")
    middle = picture[100:180, 80:176].reshape(-1, 3)
    red = np.all(middle == (205, 30, 40), axis=1).mean()
    assert red > 0.2


def test_image_is_badged_synthetic():
    """The top-left corner carries the synthetic badge (differs from the bare scene)."""
    prompt = "a quiet valley at dawn"
    picture = _png(prompt)
    scene = np.asarray(paint_scene(prompt, palette_for(prompt, 5), 256, 192, seed=5, detail=1).image, np.int16)
    assert np.abs(picture[:15, :60] - scene[:15, :60]).mean() > 10
