"""Strings that match a regular expression (a JSON Schema ``pattern``), from Python's parse tree.

Repeats are kept short (at most :data:`EXTRA_REPEATS` beyond their minimum), character
classes prefer readable ASCII, and look-arounds are ignored; the caller checks the
result with ``re.search`` and retries with another draw when a look-around disagrees.
"""

from __future__ import annotations

import functools
import random
import re
import string
from typing import Any

try:  # Python 3.11+
    from re import _constants as sre_constants  # type: ignore[attr-defined]
    from re import _parser as sre_parse  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover - Python 3.10
    import sre_constants  # type: ignore[no-redef]
    import sre_parse  # type: ignore[no-redef]

EXTRA_REPEATS = 3
#: Longest string a pattern may force (``a{1000}{1000}``); past it the pattern is refused.
MAX_PATTERN_TEXT = 10_000
_PRINTABLE = [chr(c) for c in range(32, 127)]
_CATEGORIES = {
    sre_constants.CATEGORY_DIGIT: string.digits,
    sre_constants.CATEGORY_NOT_DIGIT: string.ascii_letters + "-_ ",
    sre_constants.CATEGORY_SPACE: " ",
    sre_constants.CATEGORY_NOT_SPACE: string.ascii_letters + string.digits,
    sre_constants.CATEGORY_WORD: string.ascii_letters + string.digits + "_",
    sre_constants.CATEGORY_NOT_WORD: " -.,",
}


class PatternError(ValueError):
    """The pattern cannot be compiled or no matching string was found."""


def _class_chars(items: list[tuple[Any, Any]]) -> list[str]:
    chars: list[str] = []
    negate = False
    for op, arg in items:
        if op is sre_constants.NEGATE:
            negate = True
        elif op is sre_constants.LITERAL:
            chars.append(chr(arg))
        elif op is sre_constants.RANGE:
            low, high = arg
            chars += [chr(c) for c in range(low, min(high, low + 200) + 1)]
        elif op is sre_constants.CATEGORY:
            chars += list(_CATEGORIES.get(arg, string.ascii_letters))
    if negate:
        excluded = set(chars)
        return [c for c in _PRINTABLE if c not in excluded] or ["\u00e9"]
    return chars or ["a"]


class _Builder:
    def __init__(self, rng: random.Random, ignore_case: bool) -> None:
        self.rng = rng
        self.groups: dict[int, str] = {}
        self.ignore_case = ignore_case
        self.length = 0

    def build(self, tokens: Any) -> str:
        text = "".join(self.token(op, arg) for op, arg in tokens)
        self.length += len(text)
        if self.length > MAX_PATTERN_TEXT * 4:
            raise PatternError(f"the pattern forces strings longer than {MAX_PATTERN_TEXT:,} characters")
        return text

    def token(self, op: Any, arg: Any) -> str:
        rng = self.rng
        if op is sre_constants.LITERAL:
            return chr(arg)
        if op is sre_constants.NOT_LITERAL:
            return rng.choice([c for c in string.ascii_letters if ord(c) != arg])
        if op is sre_constants.ANY:
            return rng.choice(string.ascii_lowercase)
        if op is sre_constants.IN:
            chars = _class_chars(arg)
            readable = [c for c in chars if c.isalnum()]
            return rng.choice(readable if readable and rng.random() < 0.8 else chars)
        if op is sre_constants.BRANCH:
            return self.build(rng.choice(arg[1]))
        if op is sre_constants.SUBPATTERN:
            group, *_, body = arg
            text = self.build(body)
            if group:
                self.groups[group] = text
            return text
        if op in (sre_constants.MAX_REPEAT, sre_constants.MIN_REPEAT, getattr(sre_constants, "POSSESSIVE_REPEAT", None)):
            low, high, body = arg
            high = low + EXTRA_REPEATS if high is sre_constants.MAXREPEAT else min(high, low + EXTRA_REPEATS)
            if low > MAX_PATTERN_TEXT:
                raise PatternError(f"the pattern repeats {low:,} times; at most {MAX_PATTERN_TEXT:,} are generated")
            return "".join(self.build(body) for _ in range(rng.randint(low, high)))
        if op is sre_constants.GROUPREF:
            return self.groups.get(arg, "")
        if op is getattr(sre_constants, "ATOMIC_GROUP", None):
            return self.build(arg)
        if op is sre_constants.GROUPREF_EXISTS:
            group, yes, no = arg
            return self.build(yes if group in self.groups else (no or []))
        return ""  # AT (anchors), ASSERT, ASSERT_NOT: no text of their own


@functools.lru_cache(maxsize=256)
def _parsed(pattern: str) -> tuple[re.Pattern[str], Any]:
    return re.compile(pattern), sre_parse.parse(pattern)


def string_matching(pattern: str, rng: random.Random, min_length: int = 0, max_length: int | None = None,
                    attempts: int = 40) -> str:
    """A string ``re.search(pattern, s)`` accepts, within the length bounds when a draw allows it."""
    try:
        compiled, tree = _parsed(pattern)
    except (re.error, RecursionError, OverflowError) as exc:
        raise PatternError(f"pattern {pattern!r} is not a valid regular expression ({exc})") from None
    fallback = None
    for _ in range(attempts):
        text = _Builder(rng, bool(compiled.flags & re.IGNORECASE)).build(tree)
        if len(text) > MAX_PATTERN_TEXT:
            raise PatternError(f"the pattern forces strings longer than {MAX_PATTERN_TEXT:,} characters")
        if not compiled.search(text):
            continue
        fallback = fallback or text
        if len(text) < min_length and not pattern.endswith("$"):
            text = (text + "x" * min_length)[:min_length] if compiled.search(text + "x" * min_length) else text
        if min_length <= len(text) and (max_length is None or len(text) <= max_length):
            return text
    if fallback is not None:
        return fallback
    raise PatternError(f"no string matching pattern {pattern!r} was found")
