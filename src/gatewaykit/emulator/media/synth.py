"""Small additive synthesiser: instrument notes, a formant "voice" and noise drums.

Every function returns a mono ``float32`` numpy array at the requested sample rate,
peak level roughly 1. Notes are cached by their parameters (songs repeat the same
chords and drum hits constantly) and returned read-only, so callers must not
modify them in place.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

#: Instruments :func:`instrument_note` can play.
INSTRUMENTS = ("piano", "strings", "guitar", "synth", "bass")
#: Vowels :func:`voice_note` can sing, with their first two formants in Hz.
VOWEL_FORMANTS = {"a": (800, 1200), "e": (500, 1800), "i": (320, 2300), "o": (500, 900),
                  "u": (330, 800)}
DRUMS = ("kick", "snare", "hat")

# (frequency ratio, amplitude, extra decay per second) per partial.
_PARTIALS: dict[str, tuple[tuple[float, float, float], ...]] = {
    "piano": ((1, 1.0, 0.0), (2, 0.45, 1.5), (3, 0.22, 3.0), (4, 0.12, 4.5), (5, 0.06, 6.0)),
    "strings": tuple((k, 1.0 / k, 0.0) for k in range(1, 8)),
    "guitar": tuple((k, 1.0 / k ** 1.2, 1.5 * k) for k in range(1, 9)),
    "synth": ((1, 1.0, 0.0), (3, 0.33, 0.0), (5, 0.2, 0.0), (7, 0.14, 0.0), (2, 0.15, 0.0)),
    "bass": ((1, 1.0, 0.0), (2, 0.35, 1.0), (3, 0.12, 2.0)),
}
# attack s, decay time constant s (None = sustained), sustain level, release s.
_ENVELOPES: dict[str, tuple[float, float | None, float, float]] = {
    "piano": (0.004, 0.9, 0.0, 0.06),
    "strings": (0.25, None, 0.85, 0.3),
    "guitar": (0.002, 0.6, 0.0, 0.05),
    "synth": (0.01, 0.18, 0.55, 0.08),
    "bass": (0.008, 0.7, 0.25, 0.05),
}


def midi_to_hz(note: float) -> float:
    """Frequency in Hz of MIDI note number ``note`` (69 = A4 = 440 Hz)."""
    return 440.0 * 2.0 ** ((note - 69) / 12.0)


def envelope(samples: int, sample_rate: int, attack: float, decay: float | None,
             sustain: float, release: float) -> np.ndarray:
    """Attack/decay/sustain/release gain curve exactly ``samples`` long.

    The decay is exponential towards ``sustain`` with time constant ``decay``;
    the release ramp occupies the last ``release`` seconds of the note.
    """
    t = np.arange(samples, dtype=np.float32) / sample_rate
    gain: np.ndarray  # float32 in both branches (NEP 50 keeps Python floats from widening it)
    if decay is None:
        gain = np.full(samples, sustain, dtype=np.float32)
    else:
        gain = sustain + (1.0 - sustain) * np.exp(-t / decay, dtype=np.float32)
    gain *= np.minimum(1.0, t / max(attack, 1e-4))
    tail = min(samples, max(1, int(release * sample_rate)))
    gain[samples - tail:] *= np.linspace(1.0, 0.0, tail, dtype=np.float32)
    return gain


def _readonly(array: np.ndarray) -> np.ndarray:
    array.setflags(write=False)
    return array


@lru_cache(maxsize=2048)
def instrument_note(instrument: str, midi: int, samples: int, sample_rate: int) -> np.ndarray:
    """One note of ``instrument`` (see :data:`INSTRUMENTS`) lasting ``samples`` samples."""
    frequency = midi_to_hz(midi)
    t = np.arange(samples, dtype=np.float32) / sample_rate
    out = np.zeros(samples, dtype=np.float32)
    detunes = (0.997, 1.003) if instrument in ("strings", "synth") else (1.0,)
    for ratio, amplitude, extra_decay in _PARTIALS[instrument]:
        for detune in detunes:
            partial = frequency * ratio * detune
            if partial >= sample_rate * 0.45:
                continue
            wave = np.sin(t * np.float32(2 * np.pi * partial)) * np.float32(amplitude / len(detunes))
            if extra_decay:
                wave *= np.exp(-t * np.float32(extra_decay))
            out += wave
    out *= envelope(samples, sample_rate, *_ENVELOPES[instrument])
    return _readonly(out / max(1e-6, float(np.abs(out).max())))


@lru_cache(maxsize=2048)
def voice_note(midi: int, samples: int, sample_rate: int, vowel: str = "a") -> np.ndarray:
    """A sung vowel: harmonics shaped by two formants, with delayed vibrato."""
    frequency = midi_to_hz(midi)
    first, second = VOWEL_FORMANTS.get(vowel, VOWEL_FORMANTS["a"])
    t = np.arange(samples, dtype=np.float32) / sample_rate
    depth = 0.012 * np.minimum(1.0, t / 0.25)
    phase = np.float32(2 * np.pi * frequency) * t + (frequency * depth / 5.5) * (1 - np.cos(2 * np.pi * 5.5 * t))
    out = np.zeros(samples, dtype=np.float32)
    for k in range(1, 13):
        partial = frequency * k
        if partial >= min(5000.0, sample_rate * 0.45):
            break
        weight = (np.exp(-((partial - first) / 180.0) ** 2) + 0.6 * np.exp(-((partial - second) / 260.0) ** 2)
                  + 0.25 / k)
        out += np.sin(phase * k) * np.float32(weight)
    out *= envelope(samples, sample_rate, 0.04, None, 1.0, min(0.12, samples / sample_rate / 3))
    return _readonly(out / max(1e-6, float(np.abs(out).max())))


@lru_cache(maxsize=64)
def drum_hit(drum: str, sample_rate: int) -> np.ndarray:
    """A synthesised ``"kick"``, ``"snare"`` or ``"hat"`` (fixed noise, so reproducible)."""
    noise_source = np.random.default_rng({"kick": 1, "snare": 2, "hat": 3}[drum])
    if drum == "kick":
        t = np.arange(int(0.35 * sample_rate), dtype=np.float32) / sample_rate
        sweep = 45.0 + 110.0 * np.exp(-t / 0.04)
        phase = np.cumsum(sweep, dtype=np.float32) * np.float32(2 * np.pi / sample_rate)
        out = np.sin(phase) * np.exp(-t / 0.12)
        out[: int(0.003 * sample_rate)] += 0.5
    elif drum == "snare":
        t = np.arange(int(0.22 * sample_rate), dtype=np.float32) / sample_rate
        noise = noise_source.standard_normal(len(t)).astype(np.float32)
        out = 0.7 * noise * np.exp(-t / 0.06) + 0.5 * np.sin(t * np.float32(2 * np.pi * 190)) * np.exp(-t / 0.05)
    elif drum == "hat":
        t = np.arange(int(0.06 * sample_rate), dtype=np.float32) / sample_rate
        noise = noise_source.standard_normal(len(t) + 1).astype(np.float32)
        out = np.diff(noise) * np.exp(-t / 0.012)
    else:
        raise ValueError(f"unknown drum {drum!r}")
    out = out.astype(np.float32)
    return _readonly(out / max(1e-6, float(np.abs(out).max())))
