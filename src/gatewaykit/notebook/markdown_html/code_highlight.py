"""Syntax highlighting for code blocks in model answers (Pygments, inline styles).

Inline hex colours, not classes or ``var(--jp-...)``: JupyterLab's sanitiser keeps them in untrusted
notebooks, as nbconvert and GitHub do, and the fixed palette (Solarized's accents) reads on light and
dark themes. The code is the model's: Pygments escapes every token into a classed span, the answer is
sanitised, and only then do classes become colours, so the sanitiser never parses CSS.
Details: ``docs/internals.md``.
"""

from __future__ import annotations

import html
from functools import lru_cache
from typing import Any, Optional

__all__ = ["CODE_BLOCK_STYLE", "highlight_code", "token_style"]

CODE_BLOCK_STYLE = "background:#80808021;padding:.6em .8em;border-radius:4px;margin:0 0 .8em;overflow-x:auto;line-height:1.4"
# Highlighting costs about 0.1-0.3 ms per line (Pygments' Python lexer is the slowest), so an answer
# highlights its first HIGHLIGHT_CHARS_PER_ANSWER characters of code, in order; later code is shown
# plain. That keeps the live view within its CPU budget per token even for code-heavy answers.
HIGHLIGHT_CHARS_PER_ANSWER = 8_000
HIGHLIGHTED = "gatewaykit_highlighted_chars"  # an ``env`` key: code characters highlighted so far

_PALETTE = {  # Solarized accents (https://ethanschoonover.com/solarized/), readable on light and dark
    "Keyword": "#859900",
    "Keyword.Constant": "#2aa198",
    "Keyword.Type": "#b58900",
    "Name.Builtin": "#268bd2",
    "Name.Function": "#268bd2",
    "Name.Class": "#b58900",
    "Name.Decorator": "#6c71c4",
    "Name.Tag": "#268bd2",
    "Name.Attribute": "#b58900",
    "Name.Exception": "#cb4b16",
    "String": "#2aa198",
    "String.Escape": "#cb4b16",
    "Number": "#d33682",
    "Operator.Word": "#859900",
    "Comment": "italic #839496",
    "Generic.Deleted": "#dc322f",
    "Generic.Inserted": "#859900",
    "Generic.Heading": "bold",
    "Literal": "#d33682",
}


@lru_cache(maxsize=1)
def _formatter() -> Any:
    from pygments.formatters import HtmlFormatter

    return HtmlFormatter(nowrap=True)  # <span class="k">: short classes, turned into colours by token_style


@lru_cache(maxsize=1)
def _class_styles() -> dict[str, str]:
    """Pygments' short class names (``k``, ``s2``, ``c1``...) to our inline style."""
    from pygments.token import STANDARD_TYPES, string_to_tokentype

    palette = {string_to_tokentype(name): value for name, value in _PALETTE.items()}
    styles = {}
    for token_type, css_class in STANDARD_TYPES.items():
        found = token_type
        while found not in palette and found.parent is not None:
            found = found.parent
        value = palette.get(found)
        if value and css_class:
            parts = [f"color:{word}" if word.startswith("#") else f"font-{'style' if word == 'italic' else 'weight'}:{word}"
                     for word in value.split()]
            styles[css_class] = ";".join(parts)
    return styles


def token_style(css_class: str) -> str:
    """The inline style for a Pygments token class (empty for plain text)."""
    return _class_styles().get(css_class, "")


@lru_cache(maxsize=64)
def _lexer(language: str) -> Optional[Any]:
    from pygments.lexers import get_lexer_by_name
    from pygments.util import ClassNotFound

    try:
        return get_lexer_by_name(language, stripnl=False, ensurenl=False)
    except ClassNotFound:
        return None


def highlight_code(code: str, language: str, env: Optional[dict[str, Any]] = None) -> str:
    """``code`` as escaped HTML, with ``<span class>`` tokens when ``language`` is one Pygments knows.

    ``env`` (the Markdown render's) counts the code highlighted so far in this answer.
    """
    language = language.strip().split(maxsplit=1)[0].lower() if language and language.strip() else ""
    lexer = None
    if language and env is not None:
        used = env.get(HIGHLIGHTED, 0)
        if used + len(code) <= HIGHLIGHT_CHARS_PER_ANSWER:
            lexer = _lexer(language)
            env[HIGHLIGHTED] = used + len(code)
    if lexer is None:
        return html.escape(code, quote=False)
    from pygments import highlight

    return str(highlight(code, lexer, _formatter()))
