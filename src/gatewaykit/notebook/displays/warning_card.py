"""An unknown keyword in a notebook: a card like the error cards, not a red stderr box with a temp path.

``UnknownParameterWarning`` is an ordinary Python warning (scripts and tests see
it as one, ``-W error`` turns it into an exception). In a kernel, Python would
print it to stderr as ``/tmp/ipykernel_123/456.py:2: UnknownParameterWarning: ...``,
which JupyterLab shows as a red box. :func:`install_warning_cards` (run once by
``KernelDisplay``) shows it instead as an amber card in the cell: what was wrong,
the line that made the call, and that the request was still sent.
"""

from __future__ import annotations

import warnings
from typing import Any, Optional

from gatewaykit.client.core.parameter_names import UnknownParameterWarning
from gatewaykit.notebook.html_views import style
from gatewaykit.notebook.html_views.style import esc

__all__ = ["install_warning_cards", "render_warning_html"]

WARNING_BOX = "border-left:4px solid #e0a800;padding:6px 10px;background:rgba(224,168,0,0.12)"


def render_warning_html(message: str, line: Optional[str] = None) -> str:
    """The card: the warning's name, its message, the user's line (no file path: a kernel's is a temp file)."""
    where = f'<div style="{style.MUTED}">in: <code style="{style.CODE}">{esc(line)}</code></div>' if line else ""
    return (
        f'<div class="gk-warning" style="{style.BOX};{WARNING_BOX}">'
        f"<strong>UnknownParameterWarning</strong>"
        f'<div style="white-space:pre-wrap">{esc(message)}</div>{where}</div>'
    )


def _show_card(message: Any, line: Optional[str]) -> bool:
    try:
        from IPython.display import display
    except ImportError:  # pragma: no cover - a kernel always has IPython
        return False
    text = str(message)
    plain = f"UnknownParameterWarning: {text}" + (f"\n  in: {line}" if line else "")
    display(style.aligned_in_exports({"text/plain": plain, "text/html": render_warning_html(text, line)}), raw=True)
    return True


def install_warning_cards() -> None:
    """Show UnknownParameterWarning as a card in the current cell (other warnings are left alone); idempotent."""
    current = warnings.showwarning
    if getattr(current, "_gatewaykit_cards", False):
        return

    def showwarning(message: Any, category: Any, filename: str, lineno: int, file: Any = None,
                    line: Optional[str] = None) -> None:
        if isinstance(category, type) and issubclass(category, UnknownParameterWarning) and file is None:
            import linecache

            source = (line if line is not None else linecache.getline(filename, lineno)).strip()
            if _show_card(message, source or None):
                return
        current(message, category, filename, lineno, file, line)

    showwarning._gatewaykit_cards = True  # type: ignore[attr-defined]
    warnings.showwarning = showwarning
