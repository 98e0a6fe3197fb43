"""Cells of the CSV files the toolkit writes, made safe to open in a spreadsheet.

OWASP's rule against CSV (formula) injection: a text cell beginning with ``=``,
``+``, ``-``, ``@``, a tab or a carriage return is run as a formula by Excel,
LibreOffice and Google Sheets (a prompt, a model name or an error message from
a gateway can be ``=HYPERLINK(...)``); such a cell is written with a leading
``'``, which spreadsheets show as text. Numbers stay numbers (``-0.5`` as a
float is written as it is). Used by ``ledger.to_csv()`` and ``gallery.save()``.
"""

from __future__ import annotations

from typing import Any

__all__ = ["FORMULA_STARTS", "safe_cell", "safe_frame"]

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def safe_cell(value: Any) -> Any:
    """``value``, with ``'`` in front when it is text a spreadsheet would run as a formula."""
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value


def safe_frame(frame: Any) -> Any:
    """A copy of a pandas DataFrame whose text cells are safe (numeric columns untouched)."""
    frame = frame.copy()
    for name in frame.columns:
        if frame[name].dtype == object or str(frame[name].dtype) in ("string", "str"):
            frame[name] = frame[name].map(safe_cell)
    return frame
