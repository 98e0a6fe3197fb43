"""A :class:`~gatewaykit.client.session_tools.batch.BatchResult` as a table: index, status, a short preview.

The status is ``ok`` or the error's class; the preview is the chat answer's
first line, an image result's count and size, a job's id and status, or the
error's message. Previews are model output or gateway text: always escaped,
cut to one short line. Long batches show their first rows and say how many
more there are.
"""

from __future__ import annotations

from typing import Any, Sequence

from gatewaykit.money import plural
from gatewaykit.notebook.html_views import style
from gatewaykit.notebook.html_views.style import esc
from gatewaykit.types import ChatCompletion, ImageResult, Job

__all__ = ["batch_preview", "batch_rows", "batch_text", "render_batch_html"]

PREVIEW_CHARS = 80
SHOWN_ROWS = 20


def _one_line(text: str, limit: int = PREVIEW_CHARS) -> str:
    line = next((part.strip() for part in str(text).splitlines() if part.strip()), "")
    return line if len(line) <= limit else line[: limit - 1].rstrip() + "…"


def batch_preview(item: Any) -> str:
    """One short line saying what a result is (plain text, not yet escaped)."""
    if isinstance(item, BaseException):
        return _one_line(str(item) or type(item).__name__)
    if item is None:
        return "None"
    if isinstance(item, ChatCompletion):
        return _one_line((item.content or "").lstrip().lstrip("#").lstrip()) or "(empty answer)"
    if isinstance(item, ImageResult):
        sizes = sorted({f"{image.width}×{image.height}" for image in item.images})
        return f"{plural(len(item.data), 'image')} {', '.join(sizes)}".strip()
    if isinstance(item, Job):
        return f"{item.id} {item.status}"
    return _one_line(repr(item))


def batch_rows(result: Sequence[Any]) -> list[tuple[str, str, str]]:
    """``(index, status, preview)`` for the first rows."""
    return [
        (str(index), type(item).__name__ if isinstance(item, BaseException) else "ok", batch_preview(item))
        for index, item in enumerate(result[:SHOWN_ROWS])
    ]


def _headline(result: Sequence[Any]) -> str:
    failed = sum(1 for item in result if isinstance(item, BaseException))
    return f"BatchResult: {plural(len(result), 'result')}, {failed:,} failed"


def _more(result: Sequence[Any]) -> str:
    extra = len(result) - SHOWN_ROWS
    return f"… and {plural(extra, 'more result')}" if extra > 0 else ""


def batch_text(result: Sequence[Any]) -> str:
    lines = [_headline(result)]
    lines += [f"  [{index}] {status}: {preview}" for index, status, preview in batch_rows(result)]
    if _more(result):
        lines.append("  " + _more(result))
    return "\n".join(lines)


def render_batch_html(result: Sequence[Any]) -> str:
    rows = "".join(
        f'<tr><td style="{style.CELL};text-align:right">{esc(index)}</td>'
        f'<td style="{style.CELL};white-space:nowrap">{esc(status)}</td>'
        f'<td style="{style.CELL}">{esc(preview)}</td></tr>'
        for index, status, preview in batch_rows(result)
    )
    header = "".join(f'<th style="{style.CELL}">{name}</th>' for name in ("#", "status", "result"))
    more = f'<p style="{style.MUTED}">{esc(_more(result))}</p>' if _more(result) else ""
    return (
        f'<div class="gk-batch tex2jax_ignore mathjax_ignore" style="{style.BOX}"><p><b>{esc(_headline(result))}</b></p>'
        f'<table style="{style.TABLE}"><thead><tr>{header}</tr></thead><tbody>{rows}</tbody></table>{more}</div>'
    )
