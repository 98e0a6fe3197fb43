"""The error tree drawn in ``GatewayError``'s docstring is the class hierarchy, every exported error in it."""

from __future__ import annotations

import re
import textwrap

import gatewaykit.errors as errors

_LINE = re.compile(r"^(?P<indent>[│├└─ ]*)(?P<name>[A-Z]\w+)")


def _drawn(text: str) -> dict[str, str | None]:
    """Each class drawn -> the class drawn as its parent (None for the root), from each name's column."""
    parents: dict[str, str | None] = {}
    stack: list[tuple[int, str]] = []
    for line in textwrap.dedent(text.split("::", 1)[1]).splitlines():
        found = _LINE.match(line)
        if found is None:
            continue
        column = len(found["indent"])
        while stack and stack[-1][0] >= column:
            stack.pop()
        parents[found["name"]] = stack[-1][1] if stack else None
        stack.append((column, found["name"]))
    return parents


def _actual() -> dict[str, str | None]:
    """Each exported error class -> its first base that is a GatewayError (None for GatewayError itself)."""
    classes = [value for name in errors.__all__ if isinstance(value := getattr(errors, name), type)
               and issubclass(value, errors.GatewayError)]  # fmt: skip
    return {each.__name__: next((base.__name__ for base in each.__bases__ if issubclass(base, errors.GatewayError)),
                                None) for each in classes}  # fmt: skip


def test_the_drawn_error_tree_is_the_class_hierarchy() -> None:
    """Every exported error is drawn once, under the parent it inherits from first."""
    assert _drawn(errors.GatewayError.__doc__ or "") == _actual()
