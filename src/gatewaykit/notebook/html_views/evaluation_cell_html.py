"""The pieces of an evaluation grid's cell: its output (answer box, thumbnails, player or error), its scores,
its latency and cost line, and the whole ``<td>`` (:func:`cell_html`). Pure strings of HTML with inline styles,
everything from a model or a case escaped; :mod:`.evaluation_html` lays them out in a grid."""

from __future__ import annotations

from typing import Any, Optional, Sequence

from gatewaykit.client.session_tools.evaluation_text import cost_text, mean_text
from gatewaykit.notebook.html_views.style import FOOTER, MUTED, esc, format_seconds

__all__ = ["CELL_STYLE", "answer_box", "cell_html", "footer_html", "output_html", "scores_html", "text_box",
           "thumbnail_uri"]

CELL_STYLE = "padding:6px 8px;text-align:left;vertical-align:top;border:1px solid rgba(128,128,128,0.3);overflow:hidden;word-wrap:break-word"
_TEXT = "max-height:12em;overflow:auto;white-space:pre-wrap;font-size:0.92em;line-height:1.4"
_MARK = "display:inline-block;margin:0 4px 2px 0;padding:0 6px;border-radius:8px;font-size:0.8em;background:rgba(25,135,84,0.18)"
_SCORE = "display:inline-block;margin:0 6px 0 0;font-size:0.85em"
_FAILED = "color:#d9534f"
_THUMB = "max-width:100%;max-height:180px;height:auto;display:block;border-radius:4px;margin-bottom:4px"


def text_box(text: str) -> str:
    """Model text, escaped, in a box that scrolls past 12 lines (a cell still streaming: its text as it comes)."""
    return f'<div class="gk-eval-text" style="{_TEXT}">{esc(text)}</div>'


# A finished answer's Markdown, rendered and sanitised as a chat answer's is (headings as bold paragraphs
# of the answer's own size), in the same scrolling box.
_ANSWER = "max-height:12em;overflow:auto;font-size:0.92em;line-height:1.4"


def answer_box(text: str) -> str:
    """A finished chat cell's answer: its Markdown rendered (sanitised: model output is untrusted)."""
    from gatewaykit.notebook.markdown_html.markdown import render_markdown

    html = render_markdown(text)
    if html.startswith('<p class="gk-heading" style="font-weight:600;margin:.9em'):  # no gap above a first heading
        html = html.replace("margin:.9em", "margin:0", 1)
    return f'<div class="gk-eval-text gk-eval-answer" style="{_ANSWER}">{html}</div>'


_THUMB_PX = 240
_thumbs: dict[str, str] = {}  # b64 payload digest -> JPEG thumbnail URI (a grid repaints its finished cells once)


def thumbnail_uri(item: Any) -> Optional[str]:
    """A small JPEG ``data:`` URI of an image (a grid of a dozen stays light in the saved notebook)."""
    from gatewaykit.notebook.html_views.media_html import image_data_uri

    try:
        content = item.content
    except (AttributeError, ValueError):
        return image_data_uri(item)
    import base64
    import hashlib
    import io

    key = hashlib.sha256(content).hexdigest()
    made = _thumbs.get(key)
    if made is None:
        try:
            from PIL import Image

            picture = Image.open(io.BytesIO(content), formats=["PNG", "JPEG", "WEBP", "GIF"]).convert("RGB")
            picture.thumbnail((_THUMB_PX, _THUMB_PX))
            out = io.BytesIO()
            picture.save(out, format="JPEG", quality=82)
        except Exception:  # noqa: BLE001 - no Pillow, or not a picture it reads: the image as it came
            return image_data_uri(item)
        made = _thumbs[key] = "data:image/jpeg;base64," + base64.b64encode(out.getvalue()).decode("ascii")
        while len(_thumbs) > 512:
            _thumbs.pop(next(iter(_thumbs)))
    return made


def _images_html(result: Any) -> str:
    figures = []
    for index, item in enumerate(getattr(result, "data", None) or []):
        src = thumbnail_uri(item)
        if src is None:
            figures.append(f'<div style="{MUTED}">image {index + 1}: no displayable image</div>')
        else:
            figures.append(f'<img src="{esc(src)}" alt="image {index + 1}" style="{_THUMB}">')
    return "".join(figures) or f'<div style="{MUTED}">no image</div>'


def _error_html(error: BaseException) -> str:
    message = getattr(error, "message", None) or str(error)
    return f'<div class="gk-error" style="{_FAILED}"><strong>{esc(type(error).__name__)}</strong>: {esc(message[:300])}</div>'


def output_html(cell: Any) -> str:
    """A finished cell's output (or its error)."""
    if cell.error is not None:
        return _error_html(cell.error)
    if cell.result is None:
        return f'<div style="{MUTED}">no result</div>'
    if cell.kind == "chat":
        return answer_box(cell.text)
    if cell.kind == "image":
        return _images_html(cell.result)
    from gatewaykit.notebook.html_views.players import job_player_html

    return job_player_html(cell.result)


def _score_value(value: Any) -> str:
    if value is None:
        return "–"
    if isinstance(value, bool):
        return "✓" if value else "✗"
    return f"{value:.2f}" if isinstance(value, float) else esc(value)


def scores_html(cell: Any) -> str:
    """The cell's scores as small labels (a judge's reason and a scorer's error on hover)."""
    parts = []
    for name, value in cell.scores.items():
        reason = cell.reasons.get(name.split(".")[0], "")
        title = f' title="{esc(reason)}"' if reason else ""
        parts.append(f'<span class="gk-eval-score" style="{_SCORE}"{title}>{esc(name)} <b>{_score_value(value)}</b></span>')
    mean = mean_text(cell)
    if mean:  # what the row's "best" compares
        parts.append(f'<span class="gk-eval-mean" style="{_SCORE};{MUTED}">{esc(mean)}</span>')
    for name, error in cell.score_errors.items():
        parts.append(
            f'<span class="gk-eval-score" data-failed="1" style="{_SCORE};{_FAILED}" '
            f'title="{esc(type(error).__name__)}: {esc(error)}">{esc(name)} error: {esc(str(error)[:80])}</span>'
        )
    return f'<div style="margin-top:4px">{"".join(parts)}</div>' if parts else ""


def footer_html(cell: Any) -> str:
    """A cell's latency and cost line."""
    facts = [format_seconds(cell.latency_s) if cell.latency_s is not None else "", cost_text(cell)]
    return f'<div class="gk-footer" style="{FOOTER}">{" · ".join(esc(f) for f in facts if f)}</div>'


def cell_html(cell: Any, body: Optional[str] = None, marks: Sequence[str] = (), state: str = "done", clock: str = "") -> str:
    """One grid cell: marks, the body (a finished cell's output when None), scores, latency and cost.

    ``state`` is "waiting", "running" or "done" (``data-state``; a failed cell says "failed").
    """
    if body is None:
        body = output_html(cell)
    if state == "done" and cell.error is not None:
        state = "failed"
    labels = "".join(f'<span class="gk-mark" style="{_MARK}">{esc(mark)}</span>' for mark in marks)
    head = f"<div>{labels}</div>" if labels else ""
    if state in ("done", "failed"):
        tail = scores_html(cell) + footer_html(cell)
    else:
        tail = f'<div class="gk-footer" style="{FOOTER}">{esc(state)}{" · " + esc(clock) if clock else ""}</div>'
    return (
        f'<td class="gk-eval-cell" data-model="{esc(cell.model)}" data-case="{esc(cell.case_id)}" '
        f'data-state="{esc(state)}" style="{CELL_STYLE}">{head}{body}{tail}</td>'
    )


