"""``oneOf`` values that match exactly one option, and values that a ``not`` rejects.

``oneOf`` answers match exactly one option: the writer tries each option in turn (a few varied values
each) and keeps the first value that no other option accepts (checked by :mod:`.schema_match`); ``not``
works the same way. When no such value turns up within :data:`TRIES_PER_OPTION` tries per option (and
:data:`MAX_RETRIES` in the whole answer) the options overlap too much to tell apart, and the request is a
400 naming the field ("the oneOf options ... overlap"): make the options exclusive, e.g. with a
distinguishing ``const``, ``enum``, ``type`` or ``required`` property.
"""

from __future__ import annotations

from typing import Any

from gatewaykit.emulator.chat.schema_checks import SchemaProblem
from gatewaykit.emulator.chat.schema_match import SchemaMatcher
from gatewaykit.emulator.chat.schema_merge import merge_schemas

#: Values tried for one ``oneOf`` option (or one ``not``) before giving up on it.
TRIES_PER_OPTION = 12
#: Rejected values allowed in one answer, however the ``oneOf``s nest.
MAX_RETRIES = 2_000


class OptionsOverlap(SchemaProblem):
    """No value was found that matches exactly one ``oneOf`` option (or that a ``not`` rejects)."""


def field_label(name: str) -> str:
    return f"'{name}'" if name else "the top-level value"


class ExclusiveChoice:
    """The part of the value writer that retries: mixed into :class:`.schema_values.SchemaWriter`."""

    matcher: SchemaMatcher
    retries: int
    varied: int
    chars: int
    numbers: list[tuple[float, str | None]]  # (a number from the prompt, what it counts or None)

    def value(self, schema: Any, name: str = "", depth: int = 0) -> Any:
        raise NotImplementedError

    def _option(self, options: list[Any], depth: int) -> Any:
        raise NotImplementedError

    def _one_of(self, schema: dict, name: str, depth: int) -> Any:
        """A value that the chosen option accepts and every other option rejects."""
        options = schema["oneOf"]
        rest = {k: v for k, v in schema.items() if k != "oneOf"}
        first = options.index(self._option(options, depth))
        for index in [first] + [i for i in range(len(options)) if i != first]:
            option = options[index]
            if option is False or not isinstance(option, dict) and option is not True:
                continue
            others = [o for i, o in enumerate(options) if i != index]
            found, value = self._avoiding(merge_schemas(rest, option if isinstance(option, dict) else {}), others, name,
                                          depth, own=option)
            if found:
                return value
        raise OptionsOverlap("", f"the oneOf options for {field_label(name)} overlap: no value matching exactly one of "
                                 f"them was found in {TRIES_PER_OPTION} tries per option; make the options exclusive "
                                 "(e.g. a distinguishing const, enum, type or required property)")

    def _avoiding(self, schema: dict, forbidden: list[Any], name: str, depth: int,
                  own: Any = True) -> tuple[bool, Any]:
        """(True, value) for a value of ``schema`` that no ``forbidden`` schema accepts, else (False, None).

        A nested oneOf/not that finds nothing fails only this try; if all tries fail and one failed that way,
        that error (naming the innermost field) is raised.
        """
        nested: OptionsOverlap | None = None
        for attempt in range(TRIES_PER_OPTION):
            if self.retries >= MAX_RETRIES:
                break
            chars, numbers, varied = self.chars, list(self.numbers), self.varied
            self.varied = varied + attempt
            try:
                value = self.value(schema, name, depth + 1)
                if self.matcher.matches(value, own) and not any(self.matcher.matches(value, f) for f in forbidden):
                    return True, value
            except OptionsOverlap as problem:
                nested = problem
            finally:
                self.varied = varied
            self.retries += 1
            self.chars, self.numbers = chars, numbers
        if nested is not None:
            raise nested
        return False, None
