"""Tests for the synthetic media library used by the offline gateway."""

from __future__ import annotations

import io
import struct
import zlib

import av
import numpy as np
import pytest
from PIL import Image

from gatewaykit.emulator.media import (
    BITRATES,
    SAMPLE_RATES,
    ImageFacts,
    MediaError,
    Section,
    draw_image,
    inspect_image,
    parse_lyrics,
    probe_media,
    render_song,
    render_video,
)
from gatewaykit.emulator.media.arrangement import plan_song

LYRICS = """[Intro]
[Verse]
I walked along the river side
The water sang a song of light
[Chorus]
Oh we are alive tonight
Dancing under neon light
"""


def _solid(colour: tuple[int, int, int], fmt: str = "PNG", size: tuple[int, int] = (64, 48)) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", size, colour).save(buffer, fmt)
    return buffer.getvalue()


def _pixels(data: bytes) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(data)).convert("RGB"), dtype=np.float32)


def _png_claiming(width: int, height: int) -> bytes:
    """A tiny valid-looking PNG whose header declares ``width`` x ``height``."""
    data = bytearray(_solid((0, 0, 0), size=(8, 8)))
    ihdr = struct.pack(">II", width, height) + bytes(data[24:29])
    data[16:29] = ihdr
    data[29:33] = struct.pack(">I", zlib.crc32(b"IHDR" + ihdr))
    return bytes(data)


def _decoded_audio_seconds(data: bytes) -> float:
    with av.open(io.BytesIO(data)) as container:
        samples = sum(frame.samples for frame in container.decode(audio=0))
        return samples / container.streams.audio[0].sample_rate


def _onsets(data: bytes) -> int:
    """Count sharp rises in loudness (drum hits, note attacks) in decoded audio."""
    with av.open(io.BytesIO(data)) as container:
        audio = np.concatenate([frame.to_ndarray().mean(axis=0) for frame in container.decode(audio=0)])
    hop = 441
    energy = np.sqrt((audio[: len(audio) // hop * hop].reshape(-1, hop) ** 2).mean(axis=1))
    flux = np.maximum(0.0, np.diff(energy))
    peaks = (flux[1:-1] > flux[:-2]) & (flux[1:-1] >= flux[2:]) & (flux[1:-1] > 0.25 * flux.max())
    return int(peaks.sum())


# --- images -----------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", ["png", "jpeg", "webp"])
@pytest.mark.parametrize("size", [(64, 64), (1024, 768), (333, 1001)])
def test_draw_image_has_exact_size_and_format(fmt: str, size: tuple[int, int]) -> None:
    """draw_image returns an image of exactly the requested size in the requested format."""
    data = draw_image("a cat", seed=1, width=size[0], height=size[1], fmt=fmt)
    with Image.open(io.BytesIO(data)) as image:
        assert image.size == size
        assert image.format.lower() == fmt


@pytest.mark.parametrize("fmt", ["png", "jpeg", "webp"])
def test_draw_image_is_deterministic(fmt: str) -> None:
    """The same arguments give byte-identical output."""
    first = draw_image("red sunset over the sea", seed=7, width=320, height=200, fmt=fmt)
    assert draw_image("red sunset over the sea", seed=7, width=320, height=200, fmt=fmt) == first


def test_draw_image_differs_between_prompts() -> None:
    """Different prompts give clearly different pictures."""
    forest = _pixels(draw_image("a green forest", seed=1, width=256, height=256))
    ocean = _pixels(draw_image("a deep blue ocean", seed=1, width=256, height=256))
    assert np.abs(forest - ocean).mean() > 30


def test_draw_image_differs_between_seeds() -> None:
    """Different seeds change the picture for the same prompt."""
    first = _pixels(draw_image("a quiet place", seed=1, width=256, height=256))
    second = _pixels(draw_image("a quiet place", seed=2, width=256, height=256))
    assert np.abs(first - second).mean() > 3


def test_colour_words_bias_the_palette() -> None:
    """A prompt naming a colour is dominated by that colour."""
    facts = inspect_image(draw_image("red", seed=3, width=256, height=256))
    assert "red" in facts.dominant_colours[0][0]


def test_low_quality_still_has_exact_size() -> None:
    """quality='low' draws less but keeps the requested size."""
    data = draw_image("mountains", seed=1, width=200, height=120, quality="low", fmt="jpeg")
    assert Image.open(io.BytesIO(data)).size == (200, 120)


def test_references_are_visibly_used() -> None:
    """A reference image dominates the output and changes it versus no reference."""
    plain = _pixels(draw_image("a portrait", seed=1, width=256, height=256))
    with_ref = _pixels(draw_image("a portrait", seed=1, width=256, height=256,
                                  references=[_solid((250, 10, 10))]))
    assert np.abs(plain - with_ref).mean() > 20
    red, green, blue = with_ref[:160].reshape(-1, 3).mean(axis=0)
    assert red > green + 80 and red > blue + 80


def test_several_references_are_composed() -> None:
    """Two references appear side by side in the output."""
    data = draw_image("combine", seed=1, width=400, height=200, fmt="png",
                      references=[_solid((250, 0, 0)), _solid((0, 0, 250), "JPEG")])
    pixels = _pixels(data)[:100]
    left, right = pixels[:, :180].mean(axis=(0, 1)), pixels[:, 220:].mean(axis=(0, 1))
    assert left[0] > left[2] + 80 and right[2] > right[0] + 80


def test_undecodable_reference_raises_media_error() -> None:
    """A garbage reference is reported as a MediaError."""
    with pytest.raises(MediaError, match="reference image 1"):
        draw_image("x", seed=1, width=64, height=64, references=[b"not an image"])


def test_unsupported_format_raises_media_error() -> None:
    """Only png, jpeg and webp are produced."""
    with pytest.raises(MediaError, match="format"):
        draw_image("x", seed=1, width=64, height=64, fmt="bmp")


def test_draw_image_rejects_oversized_requests() -> None:
    """Requests beyond 4096x4096 pixels or 8192 per side raise MediaError."""
    with pytest.raises(MediaError, match="pixel limit"):
        draw_image("x", seed=1, width=8192, height=4096)
    with pytest.raises(MediaError, match="width"):
        draw_image("x", seed=1, width=0, height=64)


@pytest.mark.parametrize(("colour", "name"), [((255, 0, 0), "red"), ((0, 0, 255), "blue"),
                                               ((255, 255, 255), "white"), ((0, 0, 0), "black")])
def test_inspect_image_names_solid_colours(colour: tuple[int, int, int], name: str) -> None:
    """inspect_image names the colour of a solid image with fraction 1."""
    facts = inspect_image(_solid(colour))
    assert facts.dominant_colours[0][0] == name
    assert facts.dominant_colours[0][2] == pytest.approx(1.0)
    assert facts.dominant_colours[0][1] == "#{:02x}{:02x}{:02x}".format(*colour)


def test_inspect_image_reports_size_format_and_mode() -> None:
    """inspect_image reports width, height, format and mode."""
    facts = inspect_image(_solid((10, 200, 10), "JPEG", size=(300, 100)))
    assert (facts.width, facts.height, facts.format, facts.mode) == (300, 100, "jpeg", "RGB")
    assert isinstance(facts, ImageFacts)


def test_inspect_image_sorts_dominant_colours() -> None:
    """Dominant colours are the top three, largest fraction first."""
    image = Image.new("RGB", (100, 100), (0, 0, 255))
    image.paste((255, 0, 0), (0, 0, 100, 30))
    buffer = io.BytesIO()
    image.save(buffer, "PNG")
    names = [(name, round(fraction, 1)) for name, _hex, fraction in inspect_image(buffer.getvalue()).dominant_colours]
    assert names == [("blue", 0.7), ("red", 0.3)]


@pytest.mark.parametrize("data", [b"", b"garbage bytes", b"\x89PNG\r\n\x1a\n" + b"\x00" * 20])
def test_inspect_image_rejects_garbage(data: bytes) -> None:
    """Undecodable data raises MediaError."""
    with pytest.raises(MediaError):
        inspect_image(data)


def test_inspect_image_rejects_decompression_bombs() -> None:
    """Images declaring more than 40 megapixels are refused before decoding."""
    with pytest.raises(MediaError, match="limit"):
        inspect_image(_png_claiming(8000, 8000))


# --- video ------------------------------------------------------------------------------


def test_render_video_is_h264_mp4_of_requested_size_and_duration() -> None:
    """The clip decodes with PyAV as H.264 at the requested size and length, without audio."""
    facts = probe_media(render_video("a red sunset", seed=1, seconds=2, width=320, height=180))
    assert (facts.container, facts.video_codec, facts.width, facts.height) == ("mp4", "h264", 320, 180)
    assert facts.duration == pytest.approx(2.0, abs=0.1)
    assert facts.audio_codec is None


def test_render_video_frames_decode_and_move() -> None:
    """All frames decode as yuv420p and the picture changes over time."""
    data = render_video("ocean waves", seed=1, seconds=1, width=160, height=96, fps=12)
    with av.open(io.BytesIO(data)) as container:
        frames = [frame for frame in container.decode(video=0)]
    assert len(frames) == 12
    assert frames[0].format.name == "yuv420p"
    first, last = frames[0].to_ndarray(format="rgb24"), frames[-1].to_ndarray(format="rgb24")
    assert np.abs(first.astype(int) - last.astype(int)).mean() > 1


def test_render_video_moov_atom_precedes_media_data() -> None:
    """The MP4 is faststart (moov before mdat) so browsers can stream it."""
    data = render_video("x", seed=1, seconds=1, width=64, height=64)
    assert 0 < data.find(b"moov") < data.find(b"mdat")


def test_render_video_with_audio_has_aac_track() -> None:
    """audio=True adds a stereo AAC track as long as the video."""
    data = render_video("calm piano night", seed=1, seconds=2, width=128, height=72, audio=True)
    facts = probe_media(data)
    assert (facts.audio_codec, facts.channels) == ("aac", 2)
    assert facts.sample_rate in (44100, 48000)
    assert facts.duration == pytest.approx(2.0, abs=0.1)
    assert _decoded_audio_seconds(data) == pytest.approx(2.0, abs=0.1)


def test_render_video_rounds_odd_sizes_up_to_even() -> None:
    """yuv420p needs even sides, so odd requests are rounded up."""
    facts = probe_media(render_video("x", seed=1, seconds=1, width=101, height=55))
    assert (facts.width, facts.height) == (102, 56)


def test_render_video_is_deterministic() -> None:
    """The same arguments give byte-identical clips."""
    first = render_video("forest", seed=4, seconds=1, width=96, height=64)
    assert render_video("forest", seed=4, seconds=1, width=96, height=64) == first


def test_image_to_video_shows_the_reference() -> None:
    """With a reference image the frames show that image."""
    data = render_video("animate", seed=1, seconds=1, width=160, height=120, reference=_solid((20, 40, 230)))
    with av.open(io.BytesIO(data)) as container:
        frame = next(container.decode(video=0)).to_ndarray(format="rgb24")[30:100]
    red, green, blue = frame.reshape(-1, 3).mean(axis=0)
    assert blue > red + 120 and blue > green + 100
    assert probe_media(data).duration == pytest.approx(1.0, abs=0.1)


def test_render_video_rejects_bad_arguments() -> None:
    """Impossible lengths, frame rates and sizes raise MediaError."""
    for kwargs in ({"seconds": 0}, {"fps": 0}, {"width": 0}, {"width": 10000}):
        arguments = {"seed": 1, "seconds": 1, "width": 64, "height": 64} | kwargs
        with pytest.raises(MediaError):
            render_video("x", **arguments)


def test_probe_media_rejects_garbage() -> None:
    """Unreadable bytes raise MediaError."""
    with pytest.raises(MediaError):
        probe_media(b"definitely not media" * 10)


# --- music ------------------------------------------------------------------------------


def test_render_song_decodes_with_matching_duration() -> None:
    """The MP3 decodes and its length matches the returned duration."""
    data, duration = render_song("upbeat pop", LYRICS, seed=1, sample_rate=24000, bitrate=64000)
    assert 20 <= duration <= 90
    assert probe_media(data).audio_codec == "mp3"
    assert _decoded_audio_seconds(data) == pytest.approx(duration, abs=0.2)


@pytest.mark.parametrize("sample_rate", SAMPLE_RATES)
def test_render_song_honours_sample_rate_and_seconds(sample_rate: int) -> None:
    """Every supported sample rate is used as is, and seconds fixes the length."""
    data, duration = render_song("jazz", "", seed=1, sample_rate=sample_rate, bitrate=32000, seconds=3)
    assert duration == pytest.approx(3.0)
    assert probe_media(data).sample_rate == sample_rate


def test_render_song_bitrate_changes_size() -> None:
    """Higher bit rates produce bigger files."""
    small, _ = render_song("rock", "", seed=1, bitrate=BITRATES[0], seconds=4)
    large, _ = render_song("rock", "", seed=1, bitrate=BITRATES[-1], seconds=4)
    assert len(large) > 5 * len(small)


def test_render_song_is_deterministic() -> None:
    """The same arguments give identical MP3 bytes."""
    assert render_song("folk guitar", LYRICS, seed=3, seconds=5) == render_song("folk guitar", LYRICS, seed=3, seconds=5)


def test_render_song_rejects_unsupported_settings() -> None:
    """Unsupported sample rates and bit rates raise MediaError."""
    with pytest.raises(MediaError, match="sample_rate"):
        render_song("x", "", seed=1, sample_rate=22050)
    with pytest.raises(MediaError, match="bitrate"):
        render_song("x", "", seed=1, bitrate=96000)


def test_tempo_words_set_the_tempo() -> None:
    """slow/ballad, upbeat/dance and explicit bpm choose the tempo."""
    assert plan_song("slow ballad", "", seed=1).bpm == 70
    assert plan_song("upbeat dance", "", seed=1).bpm == 128
    assert plan_song("upbeat dance at 150 bpm", "", seed=1).bpm == 150
    assert plan_song("sad melancholic song", "", seed=1).mode == "minor"


def test_faster_prompt_has_more_onsets() -> None:
    """A fast dance prompt produces audibly more beats than a slow one of equal length."""
    fast, _ = render_song("upbeat dance with drums", "", seed=1, sample_rate=16000, bitrate=32000, seconds=12)
    slow, _ = render_song("slow song with drums", "", seed=1, sample_rate=16000, bitrate=32000, seconds=12)
    assert _onsets(fast) > 1.3 * _onsets(slow)


def test_longer_lyrics_make_longer_songs() -> None:
    """Song length follows the number of lyric lines."""
    short_lyrics = "[Verse]\n" + "\n".join(["la la la"] * 4)
    long_lyrics = "[Verse]\n" + "\n".join(["la la la"] * 8) + "\n[Chorus]\n" + "\n".join(["oh oh"] * 6)
    _, short = render_song("pop 120 bpm", short_lyrics, seed=1, sample_rate=16000, bitrate=32000)
    _, long = render_song("pop 120 bpm", long_lyrics, seed=1, sample_rate=16000, bitrate=32000)
    assert long > short + 20


def test_chorus_is_louder_than_verse() -> None:
    """Choruses are arranged louder than verses."""
    from gatewaykit.emulator.media.music import synthesise

    stereo, plan = synthesise("pop with drums", "[Verse]\nla la\nla la\n[Chorus]\noh oh\noh oh", seed=1,
                              sample_rate=16000)
    verse, chorus = plan.sections
    bar = plan.bar_seconds * 16000
    verse_rms = np.sqrt((stereo[:, : int(verse.bars * bar)] ** 2).mean())
    chorus_rms = np.sqrt((stereo[:, int(chorus.start_bar * bar): int((chorus.start_bar + chorus.bars - 1) * bar)] ** 2).mean())
    assert chorus_rms > 1.2 * verse_rms


def test_parse_lyrics_splits_tagged_sections() -> None:
    """Tags are case-insensitive, blank lines dropped, untagged lines open a verse."""
    sections = parse_lyrics("hello there\n\n[CHORUS]\nla la\n  oh  oh \n[Bridge 2]\n[outro]\n")
    assert sections == [Section("verse", ["hello there"]), Section("chorus", ["la la", "oh oh"]),
                        Section("bridge 2", []), Section("outro", [])]
    assert [section.kind for section in sections] == ["verse", "chorus", "bridge", "outro"]


def test_parse_lyrics_of_empty_text_is_empty() -> None:
    """Empty lyrics have no sections."""
    assert parse_lyrics("  \n\n") == []

