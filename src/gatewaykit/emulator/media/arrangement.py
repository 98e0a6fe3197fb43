"""Song planning: tempo, key, instruments and section lengths from prompt and lyrics.

The style prompt is read for cue words (``slow``/``ballad`` -> 70 bpm,
``upbeat``/``dance``/``edm``/``fast`` -> 128 bpm, an explicit ``NNN bpm`` wins;
``sad``/``minor``/``melancholic`` -> minor; instrument names), the key comes from
the prompt hash, and each lyric section gets bars in proportion to its lines.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from .lyrics import Section, parse_lyrics
from .palette import derive_seed, prompt_words

SLOW_BPM, FAST_BPM = 70, 128
MIN_BPM, MAX_BPM = 40, 220
MIN_NATURAL_SECONDS, MAX_NATURAL_SECONDS = 20.0, 90.0
BARS_PER_LINE = 2
BEATS_PER_BAR = 4

_SLOW = {"slow", "ballad", "ambient", "calm", "lullaby", "chill", "downtempo", "relaxing", "gentle"}
_FAST = {"upbeat", "dance", "edm", "fast", "techno", "house", "energetic", "punk", "disco", "party"}
_MINOR = {"sad", "minor", "melancholic", "melancholy", "dark", "somber", "sombre", "moody",
          "gloomy", "lonely", "tragic", "haunting"}
_INSTRUMENT_WORDS = {
    "piano": {"piano", "keys", "keyboard"},
    "strings": {"strings", "string", "violin", "cello", "orchestra", "orchestral", "cinematic"},
    "guitar": {"guitar", "acoustic", "rock", "folk", "country"},
    "synth": {"synth", "synths", "synthwave", "electronic", "edm", "techno", "house", "retro"},
    "bass": {"bass", "funk", "groove"},
    "drums": {"drums", "drum", "beat", "beats", "percussion", "rock", "dance", "edm", "techno",
              "house", "hiphop", "hip", "pop", "disco", "funk", "upbeat"},
}
_NO_DRUMS = {"ballad", "ambient", "lullaby", "acapella", "classical", "calm"}
_BPM = re.compile(r"(\d{2,3})\s*bpm", re.IGNORECASE)
NOTE_NAMES = ("C", "C#", "D", "D#", "E", "F", "F#", "G", "G#", "A", "A#", "B")
MAJOR_SCALE = (0, 2, 4, 5, 7, 9, 11)
MINOR_SCALE = (0, 2, 3, 5, 7, 8, 10)
# Chord progressions as 0-based scale degrees, per mode and section kind.
_PROGRESSIONS = {
    "major": {"verse": ((0, 4, 5, 3), (0, 5, 3, 4)), "chorus": ((3, 0, 4, 5), (5, 3, 0, 4)),
              "bridge": ((5, 3, 0, 4), (1, 4, 0, 5)), "other": ((0, 3), (0, 4))},
    "minor": {"verse": ((0, 5, 2, 6), (0, 3, 6, 5)), "chorus": ((5, 6, 0, 0), (3, 6, 2, 5)),
              "bridge": ((3, 4, 0, 5), (5, 6, 3, 4)), "other": ((0, 5), (0, 3))},
}


@dataclass(frozen=True)
class PlannedSection:
    """A section placed on the song's bar grid."""

    kind: str
    tag: str
    lines: tuple[str, ...]
    start_bar: int
    bars: int
    progression: tuple[int, ...]


@dataclass(frozen=True)
class SongPlan:
    """Everything needed to perform a song; also useful as metadata."""

    bpm: int
    root_midi: int
    mode: str  # "major" or "minor"
    instruments: tuple[str, ...]  # subset of piano, strings, guitar, synth, bass, drums
    sections: tuple[PlannedSection, ...]
    seconds: float

    @property
    def key(self) -> str:
        """Human key name, e.g. ``"D minor"``."""
        return f"{NOTE_NAMES[self.root_midi % 12]} {self.mode}"

    @property
    def bar_seconds(self) -> float:
        """Length of one 4/4 bar in seconds."""
        return BEATS_PER_BAR * 60.0 / self.bpm

    @property
    def scale(self) -> tuple[int, ...]:
        """Semitone offsets of the scale degrees."""
        return MAJOR_SCALE if self.mode == "major" else MINOR_SCALE


def choose_tempo(prompt: str) -> int:
    """Beats per minute from the prompt: explicit ``NNN bpm``, cue words, else from the hash."""
    explicit = _BPM.search(prompt)
    if explicit:
        return max(MIN_BPM, min(MAX_BPM, int(explicit.group(1))))
    words = set(prompt_words(prompt))
    if words & _FAST:
        return FAST_BPM
    if words & _SLOW:
        return SLOW_BPM
    return 90 + derive_seed(prompt.lower(), "tempo") % 29


def choose_instruments(prompt: str) -> tuple[str, ...]:
    """Instruments named or implied by the prompt; a piano/bass/drums trio by default."""
    words = set(prompt_words(prompt))
    chosen = [name for name, cues in _INSTRUMENT_WORDS.items() if words & cues]
    if not [name for name in chosen if name not in ("bass", "drums")]:
        chosen = ["piano", "strings"] + chosen if words & _SLOW else ["piano", "bass", "drums"] + chosen
    if "drums" in chosen and "bass" not in chosen:
        chosen.append("bass")  # drums imply a rhythm section
    if "drums" in chosen and words & _NO_DRUMS and not words & {"drums", "drum", "beat", "beats"}:
        chosen.remove("drums")
    return tuple(dict.fromkeys(chosen))


def _default_sections() -> list[Section]:
    return [Section("intro"), Section("verse", ["", ""]), Section("chorus", ["", ""]), Section("outro")]


def _share_bars(weights: list[int], total: int) -> list[int]:
    """``total`` bars shared in proportion to ``weights`` (each at least 1), summing to exactly ``total``."""
    exact = [total * w / sum(weights) for w in weights]
    bars = [max(1, int(x)) for x in exact]
    by_remainder = sorted(range(len(weights)), key=lambda i: exact[i] - int(exact[i]), reverse=True)
    for index in by_remainder[: max(0, total - sum(bars))]:
        bars[index] += 1
    while sum(bars) > total:  # only when rounding every section up to one bar overshot
        largest = max(range(len(bars)), key=lambda i: bars[i])
        bars[largest] -= 1
    return bars


def plan_song(prompt: str, lyrics: str, *, seed: int, seconds: float | None = None) -> SongPlan:
    """Plan the arrangement; total length is ``seconds`` or derived from the lyrics (20-90 s)."""
    sections = [s for s in parse_lyrics(lyrics)] or _default_sections()
    bpm = choose_tempo(prompt)
    words = set(prompt_words(prompt))
    mode = "minor" if words & _MINOR and "major" not in words else "major"
    root_midi = 48 + derive_seed(prompt.strip().lower(), "key") % 12
    bar_seconds = BEATS_PER_BAR * 60.0 / bpm
    weights = [max(1, len(s.lines)) * BARS_PER_LINE for s in sections]
    natural = sum(weights) * bar_seconds
    if seconds is not None:  # an exact length (a video's soundtrack): enough bars to play to the very end
        target = float(seconds)
        total_bars = max(1, math.ceil(target / bar_seconds - 1e-9))
    else:  # a natural length ends exactly where the last bar ends
        total_bars = max(1, round(min(MAX_NATURAL_SECONDS, max(MIN_NATURAL_SECONDS, natural)) / bar_seconds))
        target = total_bars * bar_seconds
    bars = _share_bars(weights, max(total_bars, len(weights)))
    picker = derive_seed(prompt, seed, "progressions")
    planned, start = [], 0
    for index, (section, count) in enumerate(zip(sections, bars)):
        kind = section.kind
        family = kind if kind in ("verse", "chorus", "bridge") else "chorus" if kind == "prechorus" else "other"
        options = _PROGRESSIONS[mode][family]
        progression = options[(picker >> index) % len(options)] if family == "verse" else options[picker % len(options)]
        planned.append(PlannedSection(kind, section.tag, tuple(line for line in section.lines if line),
                                      start, count, progression))
        start += count
    return SongPlan(bpm, root_midi, mode, choose_instruments(prompt), tuple(planned), target)
