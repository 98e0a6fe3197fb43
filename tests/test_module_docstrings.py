"""Module docstrings say what a module is and why, in a few lines; detail and history live in docs/internals.md."""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "gatewaykit"
MOST_LINES = 15


def test_no_module_docstring_is_longer_than_fifteen_lines() -> None:
    """Every module's docstring (counted from its opening to its closing quotes) fits in 15 lines."""
    long = []
    for path in sorted(SRC.rglob("*.py")):
        body = ast.parse(path.read_text(encoding="utf-8")).body
        first = body[0] if body else None
        if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
            lines = first.end_lineno - first.lineno + 1  # type: ignore[operator]
            if lines > MOST_LINES:
                long.append(f"{path.relative_to(SRC)}: {lines} lines")
    assert not long, "module docstrings over 15 lines (move the detail to docs/internals.md):\n" + "\n".join(long)
