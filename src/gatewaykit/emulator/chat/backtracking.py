"""Refusing regular expressions that can backtrack for ever (a ``--script`` entry's ``re:`` match).

Python's ``re`` holds the GIL while it matches, so a pattern such as ``^(\\w+\\s?)+\\?$``
against ``"a" * 28 + "!"`` would freeze every request of the gateway, not only the one
that matched. The classic cause is a quantifier repeated by another quantifier (nested
quantifiers): the engine tries every way to split the text between them. The other is a
repeated group whose alternatives overlap (``(a|aa)+``, ``(a|ab)*``; see ``regex_ambiguity``).
Such patterns are refused when the script loads; matching is also bounded in time when a
request runs (``script.py``), which covers what this cannot see. Possessive quantifiers and atomic groups never
backtrack into their body, so they are allowed. Stdlib only.
"""

from __future__ import annotations

import re
from typing import Any

from gatewaykit.emulator.chat.regex_ambiguity import Unjudged, ambiguous_repeat

try:  # Python 3.11+
    from re import _constants as _c  # type: ignore[attr-defined]
    from re import _parser as _p  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover - Python 3.10
    import sre_constants as _c  # type: ignore[no-redef]
    import sre_parse as _p  # type: ignore[no-redef]

_BACKTRACKING_REPEATS = (_c.MAX_REPEAT, _c.MIN_REPEAT)
_ALL_REPEATS = (*_BACKTRACKING_REPEATS, *((_c.POSSESSIVE_REPEAT,) if hasattr(_c, "POSSESSIVE_REPEAT") else ()))


def _children(op: Any, av: Any) -> list[Any]:
    """The sub-patterns directly inside one parsed item."""
    if op in _ALL_REPEATS:
        return [av[2]]
    if op is _c.SUBPATTERN:
        return [av[3]]
    if op is _c.BRANCH:
        return list(av[1])
    if op in (_c.ASSERT, _c.ASSERT_NOT):
        return [av[1]]
    if op is _c.GROUPREF_EXISTS:
        return [branch for branch in av[1:] if branch is not None]
    if hasattr(_c, "ATOMIC_GROUP") and op is _c.ATOMIC_GROUP:
        return [av]
    return []


def _varies(op: Any, av: Any) -> bool:
    """A backtracking quantifier whose count can vary (``+``, ``*``, ``{2,5}``; not ``{3}``, not ``?``)."""
    return op in _BACKTRACKING_REPEATS and av[1] > 1 and av[0] != av[1]  # MAXREPEAT (unbounded) is large


def _has_repeat(items: Any) -> bool:
    """Whether a varying quantifier that can backtrack is inside ``items`` (atomic groups never backtrack)."""
    for op, av in items:
        if _varies(op, av):
            return True
        if hasattr(_c, "ATOMIC_GROUP") and op is _c.ATOMIC_GROUP:
            continue
        if any(_has_repeat(child) for child in _children(op, av)):
            return True
    return False


def _dangerous(items: Any, flags: int) -> str | None:
    """Why the first repeated group that can blow up can, judged on an automaton of its body; a group
    that cannot be judged that way (back-references...) is refused when it nests quantifiers."""
    for op, av in items:
        if hasattr(_c, "ATOMIC_GROUP") and op is _c.ATOMIC_GROUP:
            continue
        if op in _BACKTRACKING_REPEATS and av[1] > 1:
            nested = _has_repeat(av[2])
            try:
                found = ambiguous_repeat(av[2], flags)
            except Unjudged:
                found = "a repeated group" if nested else None
            if found:
                return f"a quantifier inside {found}" if nested and found.startswith("a repeated") else found
        for child in _children(op, av):
            found = _dangerous(child, flags)
            if found:
                return found
    return None


def catastrophic_backtracking(pattern: str, flags: int = re.IGNORECASE) -> str | None:
    """Why ``pattern`` can backtrack exponentially (a repeated group that can match one text in two ways,
    often through a quantifier inside it; overlapping alternatives in a repeated group), or None."""
    parsed = _p.parse(pattern, flags)
    return _dangerous(parsed, parsed.state.flags)
