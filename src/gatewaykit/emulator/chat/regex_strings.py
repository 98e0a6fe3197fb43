"""Strings that match a regular expression (a JSON Schema ``pattern``), from Python's parse tree.

Repeats are kept short (at most :data:`EXTRA_REPEATS` beyond their minimum), character
classes prefer readable ASCII, and look-arounds are ignored; the caller checks the
result with ``re.search`` and retries with another draw when a look-around disagrees.

With ``minLength``/``maxLength`` the string is drawn at a target length: each part of
the pattern gets a share of it within the lengths that part can match (repeats choose
their count, alternations a branch that fits), and a pattern not anchored at one end
is padded there. Lengths the pattern can never match are refused up front
(:func:`length_problem`, used by the schema checks) and a draw that still misses is
an error, never a string that breaks the schema.
"""

from __future__ import annotations

import functools
import math
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


_REPEATS = (sre_constants.MAX_REPEAT, sre_constants.MIN_REPEAT, getattr(sre_constants, "POSSESSIVE_REPEAT", None))


def _widths(tokens: Any) -> tuple[int, float]:
    """Fewest and most characters ``tokens`` (a parsed sub-pattern) can match (``math.inf``: unbounded)."""
    low, high = tokens.getwidth()
    return low, (math.inf if high >= sre_constants.MAXREPEAT else high)


def _item_widths(tokens: Any) -> list[tuple[int, float]]:
    return [_widths(sre_parse.SubPattern(tokens.state, [item])) for item in tokens]


class _Builder:
    """One draw of a string; ``build(tokens, target)`` aims at ``target`` characters (None: a natural length)."""

    def __init__(self, rng: random.Random, ignore_case: bool) -> None:
        self.rng = rng
        self.groups: dict[int, str] = {}
        self.ignore_case = ignore_case
        self.length = 0
        self._widths: dict[int, list[tuple[int, float]]] = {}

    def build(self, tokens: Any, target: int | None = None) -> str:
        if target is None:
            text = "".join(self.token(op, arg) for op, arg in tokens)
        else:
            widths = self._widths.get(id(tokens))
            if widths is None:
                widths = self._widths[id(tokens)] = _item_widths(tokens)
            shares = self.split(target, widths)
            text = "".join(self.token(op, arg, share) for (op, arg), share in zip(tokens, shares))
        self.length += len(text)
        if self.length > MAX_PATTERN_TEXT * 4:
            raise PatternError(f"the pattern forces strings longer than {MAX_PATTERN_TEXT:,} characters")
        return text

    def split(self, target: int, widths: list[tuple[int, float]]) -> list[int]:
        """Shares of ``target`` for parts of these widths: each within its own, summing to ``target`` when
        the parts allow it (else as near as they allow)."""
        shares = [low for low, _ in widths]
        extra = target - sum(shares)
        slack = [high - low for low, high in widths]
        order = [i for i, room in enumerate(slack) if room > 0]
        self.rng.shuffle(order)
        for n, i in enumerate(order):
            if extra <= 0:
                break
            after = sum(slack[j] for j in order[n + 1:])
            least = max(0, extra - after) if after != math.inf else 0
            most = min(slack[i], extra)
            take = int(most) if n == len(order) - 1 else self.rng.randint(int(least), int(most))
            shares[i] += take
            extra -= take
        return shares

    def token(self, op: Any, arg: Any, target: int | None = None) -> str:
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
            branches = arg[1]
            if target is not None:
                fitting = [b for b in branches if _widths(b)[0] <= target <= _widths(b)[1]]
                return self.build(rng.choice(fitting or branches), target)
            return self.build(rng.choice(branches))
        if op is sre_constants.SUBPATTERN:
            group, *_, body = arg
            text = self.build(body, target)
            if group:
                self.groups[group] = text
            return text
        if op in _REPEATS:
            low, high, body = arg
            if low > MAX_PATTERN_TEXT:
                raise PatternError(f"the pattern repeats {low:,} times; at most {MAX_PATTERN_TEXT:,} are generated")
            if target is not None:
                return self.repeat_to(low, high, body, target)
            high = low + EXTRA_REPEATS if high is sre_constants.MAXREPEAT else min(high, low + EXTRA_REPEATS)
            return "".join(self.build(body) for _ in range(rng.randint(low, high)))
        if op is sre_constants.GROUPREF:
            return self.groups.get(arg, "")
        if op is getattr(sre_constants, "ATOMIC_GROUP", None):
            return self.build(arg, target)
        if op is sre_constants.GROUPREF_EXISTS:
            group, yes, no = arg
            return self.build(yes if group in self.groups else (no or []), target)
        return ""  # AT (anchors), ASSERT, ASSERT_NOT: no text of their own

    def repeat_to(self, low: int, high: int, body: Any, target: int) -> str:
        """``body`` repeated a number of times whose lengths can add up to ``target``, the target shared out."""
        least, most = _widths(body)
        high = min(high, MAX_PATTERN_TEXT)
        fewest = max(low, math.ceil(target / most) if 0 < most < math.inf else low)
        many = min(high, target // least if least else high)
        if fewest > many:  # no count fits exactly: the nearest one
            fewest = many = max(low, min(high, round(target / max(least, 1))))
        count = self.rng.randint(fewest, min(many, fewest + EXTRA_REPEATS))
        return "".join(self.build(body, share) for share in self.split(target, [(least, most)] * count))


@functools.lru_cache(maxsize=256)
def _parsed(pattern: str) -> tuple[re.Pattern[str], Any]:
    return re.compile(pattern), sre_parse.parse(pattern)


def _anchored(tree: Any) -> tuple[bool, bool]:
    """Whether the pattern is anchored at the start and at the end of the string (no text may go there)."""
    items = list(tree)
    starts = bool(items) and items[0][0] is sre_constants.AT and items[0][1] in (
        sre_constants.AT_BEGINNING, sre_constants.AT_BEGINNING_STRING)
    ends = bool(items) and items[-1][0] is sre_constants.AT and items[-1][1] in (
        sre_constants.AT_END, sre_constants.AT_END_STRING)
    return starts, ends


def _lengths(pattern: str) -> tuple[int, float]:
    """Fewest and most characters of a string ``re.search(pattern, s)`` can accept (``inf``: no most)."""
    tree = _parsed(pattern)[1]
    low, high = _widths(tree)
    starts, ends = _anchored(tree)
    return low, (high if starts and ends else math.inf)  # unanchored: any text may go around the match


def length_problem(pattern: str, min_length: int = 0, max_length: int | None = None) -> str | None:
    """Why no string can match ``pattern`` within ``min_length``..``max_length`` characters (None: some can).

    ``pattern`` must compile. Judged from the lengths the pattern can match, so a pattern whose
    look-arounds or back-references rule more out may still fail when drawn (:func:`string_matching`).
    """
    low, high = _lengths(pattern)
    most = math.inf if max_length is None else max_length
    if min_length > most:
        return f"minLength {min_length:,} is more than maxLength {max_length:,}"
    if low > most:
        return (f"the pattern '{pattern}' matches strings of at least {low:,} characters, "
                f"more than maxLength {max_length:,}; raise maxLength or change the pattern")
    if min_length > high:
        return (f"the pattern '{pattern}' matches strings of at most {int(high):,} characters, "
                f"fewer than minLength {min_length:,}; lower minLength or change the pattern")
    return None


def string_matching(pattern: str, rng: random.Random, min_length: int = 0, max_length: int | None = None,
                    attempts: int = 40) -> str:
    """A string ``re.search(pattern, s)`` accepts, of ``min_length`` to ``max_length`` characters.

    Raises :class:`PatternError` when the pattern is invalid, when no such string can exist
    (:func:`length_problem`), or when no draw found one (look-arounds, back-references).
    """
    try:
        compiled, tree = _parsed(pattern)
    except (re.error, RecursionError, OverflowError) as exc:
        raise PatternError(f"pattern {pattern!r} is not a valid regular expression ({exc})") from None
    bounded = bool(min_length) or max_length is not None
    if bounded:
        problem = length_problem(pattern, min_length, max_length)
        if problem:
            raise PatternError(problem)
    low, high = _widths(tree)
    starts, ends = _anchored(tree)
    shortest = max(min_length, low)
    longest = min(high, math.inf if max_length is None else max_length, shortest + 4 * EXTRA_REPEATS)
    fallback = None
    for attempt in range(attempts):
        target = None
        if bounded and attempt:  # the first draw at a natural length, then aimed at the bounds
            target = rng.randint(shortest, int(max(shortest, longest)))
        text = _Builder(rng, bool(compiled.flags & re.IGNORECASE)).build(tree, target)
        if len(text) > MAX_PATTERN_TEXT:
            raise PatternError(f"the pattern forces strings longer than {MAX_PATTERN_TEXT:,} characters")
        if not compiled.search(text):
            continue
        fallback = fallback or text
        if len(text) < min_length and not (starts and ends):  # room around the match: pad the free end
            padding = "x" * (min_length - len(text))
            padded = padding + text if ends else text + padding
            text = padded if compiled.search(padded) else text
        if min_length <= len(text) and (max_length is None or len(text) <= max_length):
            return text
    if fallback is not None and not bounded:
        return fallback
    where = f" of {min_length:,} to {max_length:,} characters" if max_length is not None else (
        f" of at least {min_length:,} characters")
    raise PatternError(f"no string matching pattern {pattern!r}{where if bounded else ''} was found; "
                       "simplify the pattern or its length limits")
