"""Finding repeated groups whose alternatives overlap (``(a|a)*``, ``(a|ab)*``, ``(a|aa)+``, ``(aa?)+``).

A backtracking engine tries every way a repeated group can match a text. When the group can
match the same text in two ways (``(a|aa)+`` reads ``aa`` as ``a,a`` or as ``aa``), the number
of ways doubles with each repetition: a 30-character text takes seconds, 40 takes hours. When
two alternatives of a repeated group can match the same start of text (``(a|ab)*``), the engine
retries the second after the first at every repetition. Both are found here on the parsed pattern
(``re._parser``): each repeated group's body becomes a small automaton over character sets,
and two copies of it are walked together over the same characters.

Character sets are compared on a probe alphabet: ASCII, the pattern's own characters (both
cases) and a few non-ASCII representatives. Groups that hold atomic groups, possessive
quantifiers or back-references are not judged here (those cannot be read as a plain automaton);
the gateway bounds every match at request time anyway. Stdlib only.
"""

from __future__ import annotations

import re
from typing import Any

try:  # Python 3.11+
    from re import _constants as _c  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover - Python 3.10
    import sre_constants as _c  # type: ignore[no-redef]

#: Non-ASCII stand-ins, so ``\w``, ``\s`` and negated sets are compared beyond ASCII too.
_EXTRA = "\u00a0\u00e9\u00c9\u03a9\u0660\u2028\u4e2d\U0001f600"
_CATEGORIES = {name: re.compile(pattern) for name, pattern in (
    ("CATEGORY_DIGIT", r"\d"), ("CATEGORY_NOT_DIGIT", r"\D"), ("CATEGORY_SPACE", r"\s"),
    ("CATEGORY_NOT_SPACE", r"\S"), ("CATEGORY_WORD", r"\w"), ("CATEGORY_NOT_WORD", r"\W"))}
_UNROLL_AT_MOST = 20  # counts up to this are unrolled; a larger minimum is not judged


class Unjudged(Exception):
    """The group holds something a plain automaton cannot stand for (atomic group, back-reference...)."""



def _literals(node: Any, found: set[int]) -> None:
    """Every character code a parsed pattern names (literals and range ends)."""
    if isinstance(node, tuple) and len(node) == 2 and hasattr(node[0], "name"):
        op, av = node
        if op in (_c.LITERAL, _c.NOT_LITERAL):
            found.add(av)
        elif op is _c.RANGE:
            found.update(av)
        else:
            _literals(av, found)
    elif isinstance(node, (list, tuple)) or hasattr(node, "data"):
        for part in node:
            _literals(part, found)


class _Automaton:
    """An automaton with character-set edges and empty moves, built from parsed items."""

    def __init__(self, alphabet: str, flags: int) -> None:
        self.alphabet, self.flags = alphabet, flags
        self.edges: list[list[tuple[frozenset[str], int]]] = []
        self.empty: list[list[int]] = []
        self._closures: dict[int, dict[int, int] | None] = {}  # filled once the automaton is built

    def state(self) -> int:
        self.edges.append([])
        self.empty.append([])
        return len(self.edges) - 1

    def _same(self, ch: str, code: int) -> bool:
        other = chr(code)
        return ch == other or bool(self.flags & re.IGNORECASE) and ch.lower() == other.lower()

    def _in_range(self, ch: str, low: int, high: int) -> bool:
        forms = {ch, ch.lower(), ch.upper()} if self.flags & re.IGNORECASE else {ch}
        return any(low <= ord(form) <= high for form in forms if len(form) == 1)

    def _set_item(self, op: Any, av: Any) -> set[str]:
        if op is _c.LITERAL:
            return {ch for ch in self.alphabet if self._same(ch, av)}
        if op is _c.RANGE:
            return {ch for ch in self.alphabet if self._in_range(ch, *av)}
        if op is _c.CATEGORY and getattr(av, "name", "") in _CATEGORIES:
            return {ch for ch in self.alphabet if _CATEGORIES[av.name].match(ch)}
        return set(self.alphabet)  # a set item not modelled: assume it may match anything

    def _chars(self, op: Any, av: Any) -> frozenset[str]:
        """The probe characters one parsed character item matches."""
        if op is _c.LITERAL:
            return frozenset(self._set_item(op, av))
        if op is _c.NOT_LITERAL:
            return frozenset(set(self.alphabet) - self._set_item(_c.LITERAL, av))
        if op is _c.ANY:
            return frozenset(ch for ch in self.alphabet if ch != "\n" or self.flags & re.DOTALL)
        negate = any(item_op is _c.NEGATE for item_op, _ in av)
        chosen = set().union(*(self._set_item(item_op, item_av) for item_op, item_av in av if item_op is not _c.NEGATE))
        return frozenset(set(self.alphabet) - chosen if negate else chosen)

    def build(self, items: Any, start: int) -> int:
        """Add ``items`` after ``start``; the state where they end."""
        at = start
        for op, av in items:
            at = self._item(op, av, at)
        return at

    def _item(self, op: Any, av: Any, at: int) -> int:
        if op in (_c.LITERAL, _c.NOT_LITERAL, _c.ANY, _c.IN):
            end = self.state()
            self.edges[at].append((self._chars(op, av), end))
            return end
        if op in (_c.AT, _c.ASSERT, _c.ASSERT_NOT):
            return at  # anchors and look-arounds read nothing (they only narrow: over-approximated)
        if op is _c.SUBPATTERN:
            return self.build(av[3], at)
        if op is _c.BRANCH:
            end = self.state()
            for alternative in av[1]:
                first = self.state()
                self.empty[at].append(first)
                self.empty[self.build(alternative, first)].append(end)
            return end
        if op in (_c.MAX_REPEAT, _c.MIN_REPEAT):
            low, high, body = av
            if low > _UNROLL_AT_MOST:
                raise Unjudged(op)
            for _ in range(low):
                at = self.build(body, at)
            if high == low:
                return at
            if high - low > _UNROLL_AT_MOST:  # x{2,} or x{2,500}: read as x{2} then x*
                loop = self.state()
                self.empty[at].append(loop)
                self.empty[self.build(body, loop)].append(loop)
                return loop
            ends = [at]
            for _ in range(high - low):  # x{1,3}: x then two optional x
                at = self.build(body, at)
                ends.append(at)
            end = self.state()
            for each in ends:
                self.empty[each].append(end)
            return end
        raise Unjudged(op)

    def closure(self, state: int) -> dict[int, int] | None:
        """States reached from ``state`` by empty moves, with how many ways (None: some state two ways)."""
        if state in self._closures:
            return self._closures[state]
        ways: dict[int, int] = {}

        def visit(current: int, path: frozenset[int]) -> bool:
            if current in path or ways.get(current):
                return False
            ways[current] = 1
            return all(visit(nxt, path | {current}) for nxt in self.empty[current])

        self._closures[state] = found = ways if visit(state, frozenset()) else None
        return found


def _walk_together(machine: _Automaton, a: int, b: int, stop: Any) -> bool:
    """Walk two copies from ``a`` and ``b`` over common characters; True when ``stop(x, y, apart)`` says so."""
    seen: set[tuple[int, int, bool]] = set()
    todo = [(a, b, a != b)]
    while todo:
        x, y, apart = todo.pop()
        if (x, y, apart) in seen:
            continue
        seen.add((x, y, apart))
        if stop(x, y, apart):
            return True
        for i, (chars_x, to_x) in enumerate(machine.edges[x]):
            for j, (chars_y, to_y) in enumerate(machine.edges[y]):
                if not chars_x & chars_y:
                    continue
                after_x, after_y = machine.closure(to_x), machine.closure(to_y)
                if after_x is None or after_y is None:
                    return True
                split = apart or x != y or i != j
                todo.extend((nx, ny, split or nx != ny) for nx in after_x for ny in after_y)
    return False


def _reads_one_text_two_ways(machine: _Automaton, start: int) -> bool:
    """Whether the looped body can reach one state by two different paths over the same text."""
    first = machine.closure(start)
    if first is None:
        return True
    return any(_walk_together(machine, x, y, lambda p, q, apart: apart and p == q) for x in first for y in first)


def _alternatives_overlap(machine: _Automaton, starts: list[int], ends: list[int]) -> tuple[int, int] | None:
    """Two alternatives where one can match the start of what the other matches, as indexes, or None."""
    for i in range(len(starts)):
        for j in range(i + 1, len(starts)):
            first_i, first_j = machine.closure(starts[i]), machine.closure(starts[j])
            if first_i is None or first_j is None:
                return i, j
            done = {ends[i], ends[j]}
            if any(_walk_together(machine, x, y, lambda p, q, apart: bool({p, q} & done))
                   for x in first_i for y in first_j):
                return i, j
    return None


def _branches(items: Any) -> list[Any]:
    """Every alternation inside ``items``."""
    found = []
    for op, av in items:
        if op is _c.BRANCH:
            found.append(av[1])
            for alternative in av[1]:
                found.extend(_branches(alternative))
        elif op is _c.SUBPATTERN:
            found.extend(_branches(av[3]))
        elif op in (_c.MAX_REPEAT, _c.MIN_REPEAT, _c.ASSERT, _c.ASSERT_NOT):
            found.extend(_branches(av[2] if op in (_c.MAX_REPEAT, _c.MIN_REPEAT) else av[1]))
    return found


def ambiguous_repeat(body: Any, flags: int) -> str | None:
    """Why the repeated ``body`` can make matching blow up, or None when it cannot.

    Raises :class:`Unjudged` when the body holds what a plain automaton cannot stand for.
    """
    codes: set[int] = set()
    _literals(body, codes)
    letters = {chr(code) for code in codes if code < 0x110000}
    alphabet = "".join(sorted(set(map(chr, range(128))) | set(_EXTRA) | letters
                              | {ch.swapcase() for ch in letters}))
    machine = _Automaton(alphabet, flags)
    start = machine.state()
    machine.empty[machine.build(body, start)].append(start)  # the repetition: back to the start
    if _reads_one_text_two_ways(machine, start):
        return "a repeated group that can match the same text in more than one way"
    for alternatives in _branches(body):
        alone = _Automaton(alphabet, flags)
        starts = [alone.state() for _ in alternatives]
        ends = [alone.build(alternative, first) for alternative, first in zip(alternatives, starts)]
        if _alternatives_overlap(alone, starts, ends) is not None:
            return "alternatives that can match the same start of text inside a repeated group"
    return None
