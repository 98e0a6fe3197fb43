"""Lyrics structure: section tags such as ``[Verse]``/``[Chorus]`` and their lines.

The song renderer sizes each section by its line count and sings roughly one
note per syllable, so this module also offers a rough, language-tolerant
syllable counter.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_TAG = re.compile(r"^\[\s*([^\[\]]*?)\s*\]$")
_WORD = re.compile(r"\w+", re.UNICODE)
_VOWEL_GROUPS = re.compile(r"[aeiouy]+")

#: Section kinds the arranger knows; other tags are arranged like a verse.
SECTION_KINDS = ("intro", "verse", "prechorus", "chorus", "bridge", "outro", "instrumental")
_KIND_ALIASES = {
    "hook": "chorus", "refrain": "chorus", "pre": "prechorus", "pre-chorus": "prechorus",
    "solo": "instrumental", "interlude": "instrumental", "break": "instrumental",
    "breakdown": "instrumental", "drop": "chorus", "end": "outro", "ending": "outro",
}
MAX_SYLLABLES_PER_LINE = 20


@dataclass
class Section:
    """One tagged part of the lyrics, e.g. ``Section("chorus", ["la la la"])``."""

    tag: str  # lower-case tag text without brackets, e.g. "verse 2"
    lines: list[str] = field(default_factory=list)

    @property
    def kind(self) -> str:
        """The arrangement role: one of :data:`SECTION_KINDS` (unknown tags count as verse)."""
        words = self.tag.replace("_", " ").split()
        first = words[0].rstrip(":0123456789") if words else ""
        if first == "pre" and len(words) > 1 and words[1].startswith("chorus"):
            first = "prechorus"
        first = _KIND_ALIASES.get(first, first)
        return first if first in SECTION_KINDS else "verse"


def parse_lyrics(lyrics: str) -> list[Section]:
    """Split ``lyrics`` into sections at lines like ``[Verse 1]`` (case-insensitive).

    Blank lines are dropped; lines before the first tag form a ``"verse"``
    section; a tag with no lines under it yields a section with ``lines == []``.
    Empty lyrics give an empty list.
    """
    sections: list[Section] = []
    for raw in lyrics.splitlines():
        line = " ".join(raw.split())
        if not line:
            continue
        match = _TAG.match(line)
        if match:
            sections.append(Section(" ".join(match.group(1).lower().split()) or "verse"))
        elif sections:
            sections[-1].lines.append(line)
        else:
            sections.append(Section("verse", [line]))
    return sections


def count_syllables(line: str) -> int:
    """Rough syllable count of a lyric line (at least 1, at most ``MAX_SYLLABLES_PER_LINE``).

    Latin words count vowel groups (a silent final "e" is ignored); words in other
    scripts count one syllable per character, which suits CJK text.
    """
    total = 0
    for word in _WORD.findall(line.lower()):
        if word.isascii():
            groups = len(_VOWEL_GROUPS.findall(word))
            if groups > 1 and word.endswith("e") and not word.endswith(("le", "ee")):
                groups -= 1
            total += max(1, groups) if word.isalpha() else max(1, len(word) // 2)
        else:
            total += len(word)
    return max(1, min(MAX_SYLLABLES_PER_LINE, total))
