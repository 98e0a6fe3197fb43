"""Synthetic songs: a planned arrangement performed with numpy and encoded to MP3.

:func:`render_song` turns a style prompt and lyrics into MP3 bytes (via
``lameenc``): chords, bass and drums follow :mod:`.arrangement`, and a formant
"voice" sings one note per syllable of each lyric line. Choruses are louder and
fuller than verses. :func:`synthesise` exposes the raw stereo samples, which the
video renderer reuses as a soundtrack.
"""

from __future__ import annotations

import re

import numpy as np

from .arrangement import BEATS_PER_BAR, PlannedSection, SongPlan, plan_song
from .errors import MediaError
from .lyrics import Section, count_syllables, parse_lyrics
from .palette import derive_seed
from .synth import drum_hit, instrument_note, voice_note

#: Sample rates (Hz) accepted by :func:`render_song`.
SAMPLE_RATES = (16000, 24000, 32000, 44100, 48000)
#: MP3 bit rates (bits per second) accepted by :func:`render_song`. MPEG-2 rates
#: (16 and 24 kHz) top out at 160 kbps, so LAME encodes higher requests at 160 kbps.
BITRATES = (32000, 64000, 128000, 256000, 320000)
MAX_SECONDS = 600.0

__all__ = ["BITRATES", "SAMPLE_RATES", "Section", "SongPlan", "parse_lyrics", "plan_song",
           "render_song", "synthesise"]

_SECTION_GAIN = {"intro": 0.55, "verse": 0.75, "prechorus": 0.85, "chorus": 1.0, "bridge": 0.8,
                 "outro": 0.6, "instrumental": 0.7}
_PAN = {"piano": -0.25, "strings": 0.0, "guitar": 0.3, "synth": -0.1, "bass": 0.0,
        "kick": 0.0, "snare": 0.05, "hat": 0.35, "voice": 0.0}
_LEVEL = {"piano": 0.32, "strings": 0.2, "guitar": 0.3, "synth": 0.22, "bass": 0.42,
          "kick": 0.7, "snare": 0.4, "hat": 0.16, "voice": 0.42}
_VOWELS = re.compile(r"[aeiou]")


class _Mixer:
    """Stereo buffer that sounds are added into at sample offsets with constant-power pan."""

    def __init__(self, samples: int, sample_rate: int) -> None:
        self.sample_rate = sample_rate
        self.left = np.zeros(samples, dtype=np.float32)
        self.right = np.zeros(samples, dtype=np.float32)

    def add(self, start: int, sound: np.ndarray, source: str, gain: float = 1.0) -> None:
        end = min(len(self.left), start + len(sound))
        if start >= end or start < 0:
            return
        level = _LEVEL[source] * gain
        angle = (_PAN[source] + 1.0) * np.pi / 4
        chunk = sound[: end - start]
        self.left[start:end] += chunk * np.float32(level * np.cos(angle))
        self.right[start:end] += chunk * np.float32(level * np.sin(angle))


def _chord(plan: SongPlan, degree: int, octave: int = 0) -> list[int]:
    scale = plan.scale
    return [plan.root_midi + 12 * octave + scale[(degree + step) % 7] + 12 * ((degree + step) // 7)
            for step in (0, 2, 4)]


def _play_bar(mix: _Mixer, plan: SongPlan, section: PlannedSection, bar: int, degree: int) -> None:
    sr, beat = mix.sample_rate, plan.bar_seconds / BEATS_PER_BAR
    start = round((section.start_bar + bar) * plan.bar_seconds * sr)
    bar_len, beat_len = round(plan.bar_seconds * sr), round(beat * sr)
    gain = _SECTION_GAIN[section.kind]
    chord = _chord(plan, degree)
    full = section.kind in ("chorus", "prechorus")
    sparse = section.kind in ("intro", "outro", "instrumental")
    instruments = set(plan.instruments) | ({"strings"} if full else set())
    if "strings" in instruments:
        for note in chord:
            mix.add(start, instrument_note("strings", note + 12, bar_len, sr), "strings", gain)
    if "piano" in instruments:
        pattern = (0, 1, 2, 1) if sparse or plan.bpm < 90 else (0, 2, 1, 2)
        for step, index in enumerate(pattern):
            mix.add(start + step * beat_len, instrument_note("piano", chord[index] + 12, beat_len * 2, sr),
                    "piano", gain)
    if "guitar" in instruments:
        for step in range(BEATS_PER_BAR):
            for string, note in enumerate(chord + [chord[0] + 12]):
                mix.add(start + step * beat_len + string * round(0.012 * sr),
                        instrument_note("guitar", note, beat_len, sr), "guitar", gain * 0.7)
    if "synth" in instruments:
        for step in range(BEATS_PER_BAR):
            for note in chord:
                mix.add(start + step * beat_len + beat_len // 2,
                        instrument_note("synth", note + 12, beat_len // 2, sr), "synth", gain)
    if "bass" in instruments and not (section.kind == "intro"):
        for step in range(BEATS_PER_BAR):
            note = chord[0] - 12 if step % 2 == 0 else chord[2] - 24
            mix.add(start + step * beat_len, instrument_note("bass", note, beat_len, sr), "bass", gain)
    if "drums" in plan.instruments and section.kind != "intro":
        four_on_floor = plan.bpm >= 118
        half_time = section.kind in ("bridge", "outro")
        for step in range(BEATS_PER_BAR):
            at = start + step * beat_len
            if four_on_floor or step % 2 == 0:
                if not (half_time and step == 2):
                    mix.add(at, drum_hit("kick", sr), "kick", gain)
            if step % 2 == 1 and not (half_time and step == 1):
                mix.add(at, drum_hit("snare", sr), "snare", gain)
            for eighth in (0, 1) if not sparse else (0,):
                mix.add(at + eighth * beat_len // 2, drum_hit("hat", sr), "hat", gain * (0.7 + 0.3 * eighth))


def _sing_line(mix: _Mixer, plan: SongPlan, section: PlannedSection, line: str, start_bar: float,
               bars: float, rng: np.random.Generator) -> None:
    sr = mix.sample_rate
    sixteenth = plan.bar_seconds / 16
    span = bars * plan.bar_seconds * 0.85
    syllables = min(count_syllables(line), max(1, int(span / max(0.12, sixteenth))))
    note_seconds = max(sixteenth, round(span / syllables / sixteenth) * sixteenth)
    vowels = _VOWELS.findall(line.lower()) or ["a"]
    centre = 9 if section.kind == "chorus" else 7
    degree = centre
    scale = plan.scale
    for index in range(syllables):
        at = start_bar + index * note_seconds / plan.bar_seconds
        chord_root = section.progression[int(at - section.start_bar) % len(section.progression)]
        if index == 0 or index == syllables - 1:
            degree = chord_root + 7 + (2 if index == 0 and section.kind == "chorus" else 0)
        else:
            degree = int(np.clip(degree + rng.choice((-2, -1, -1, 0, 1, 1, 2)), centre - 4, centre + 5))
        midi = plan.root_midi + scale[degree % 7] + 12 * (degree // 7)
        samples = round(note_seconds * sr)
        sound = voice_note(midi, samples, sr, vowels[index % len(vowels)])
        mix.add(round(at * plan.bar_seconds * sr), sound, "voice", _SECTION_GAIN[section.kind] ** 0.5)
        if section.kind == "chorus":
            mix.add(round(at * plan.bar_seconds * sr), voice_note(midi - 12, samples, sr, "o"), "voice", 0.35)


def perform(plan: SongPlan, sample_rate: int, seed: int) -> np.ndarray:
    """Render ``plan`` to a ``(2, samples)`` float32 array in [-1, 1], exactly ``plan.seconds`` long."""
    samples = max(1, round(plan.seconds * sample_rate))
    mix = _Mixer(samples, sample_rate)
    rng = np.random.default_rng(derive_seed(seed, "melody", plan.key, plan.bpm))
    for section in plan.sections:
        for bar in range(section.bars):
            _play_bar(mix, plan, section, bar, section.progression[bar % len(section.progression)])
        if section.lines:
            per_line = section.bars / len(section.lines)
            for index, line in enumerate(section.lines):
                _sing_line(mix, plan, section, line, section.start_bar + index * per_line, per_line, rng)
    stereo = np.stack([mix.left, mix.right])
    peak = float(np.abs(stereo).max())
    if peak > 0:
        stereo *= np.float32(0.89 / peak)
    fade = min(samples, round(min(2.0, plan.seconds / 4) * sample_rate))
    stereo[:, samples - fade:] *= np.linspace(1.0, 0.0, fade, dtype=np.float32)
    return stereo


def synthesise(prompt: str, lyrics: str, *, seed: int, sample_rate: int = 44100,
               seconds: float | None = None) -> tuple[np.ndarray, SongPlan]:
    """Plan and perform a song: ``((2, samples) float32 array, plan)``; no encoding."""
    plan = plan_song(prompt, lyrics, seed=seed, seconds=seconds)
    return perform(plan, sample_rate, seed), plan


def encode_mp3(stereo: np.ndarray, sample_rate: int, bitrate: int) -> bytes:
    """Encode a ``(2, samples)`` float array in [-1, 1] as constant-bit-rate MP3."""
    import lameenc

    pcm = np.clip(stereo.T * 32767.0, -32768, 32767).astype("<i2")
    encoder = lameenc.Encoder()
    encoder.set_bit_rate(bitrate // 1000)
    encoder.set_in_sample_rate(sample_rate)
    encoder.set_out_sample_rate(sample_rate)  # otherwise LAME resamples low bit rates
    encoder.set_channels(2)
    encoder.set_quality(7)
    return bytes(encoder.encode(pcm.tobytes()) + encoder.flush())


def render_song(prompt: str, lyrics: str, *, seed: int, sample_rate: int = 44100, bitrate: int = 128000,
                seconds: float | None = None) -> tuple[bytes, float]:
    """Return ``(mp3_bytes, duration_seconds)`` for a song in the style of ``prompt``.

    Length is ``seconds`` if given (0 < seconds <= 600), otherwise derived from the
    lyrics' sections and clamped to 20-90 s. Raises :class:`MediaError` for
    unsupported ``sample_rate`` / ``bitrate`` (see :data:`SAMPLE_RATES`, :data:`BITRATES`).
    """
    if sample_rate not in SAMPLE_RATES:
        raise MediaError(f"unsupported sample_rate {sample_rate}; expected one of {SAMPLE_RATES}")
    if bitrate not in BITRATES:
        raise MediaError(f"unsupported bitrate {bitrate}; expected one of {BITRATES}")
    if seconds is not None and not 0 < seconds <= MAX_SECONDS:
        raise MediaError(f"seconds must be in (0, {MAX_SECONDS:g}], got {seconds}")
    stereo, _plan = synthesise(prompt, lyrics, seed=seed, sample_rate=sample_rate, seconds=seconds)
    return encode_mp3(stereo, sample_rate, bitrate), stereo.shape[1] / sample_rate
