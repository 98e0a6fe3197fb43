"""``render_comparison_html(comparison)``: one column per model, side by side.

Each column: the model id (with "cheapest" / "fastest" marks), its output as
it shows on its own (the answer panel, the image grid, the player) or its
error card, then latency, tokens and cost (reported, or "≈ … est." when the
price was estimated). Pure: a string of HTML, everything from a model escaped
by the renderers it reuses.
"""

from __future__ import annotations

from typing import Any

from gatewaykit.notebook import html as views
from gatewaykit.notebook.style import BOX, CODE, FOOTER, MUTED, esc, format_cost, format_seconds

__all__ = ["render_comparison_html"]

_GRID = "display:grid;gap:12px;align-items:start"
_COLUMN = "min-width:0;border:1px solid rgba(128,128,128,0.35);border-radius:6px;padding:8px 10px;overflow:hidden"
_MARK = "display:inline-block;margin-left:6px;padding:0 6px;border-radius:8px;font-size:0.8em;background:rgba(25,135,84,0.15)"


def _output_html(entry: Any) -> str:
    if entry.error is not None:
        return views.render_error_html(entry.error)
    result = entry.result
    if result is None:
        return f'<div style="{MUTED}">no result</div>'
    if entry.kind == "chat":
        return views.render_chat_html(result)
    if entry.kind == "image":
        from gatewaykit.notebook.media_html import render_image_grid_html

        return render_image_grid_html(result)
    from gatewaykit.notebook.players import job_player_html

    return job_player_html(result)


def _cost_html(entry: Any) -> str:
    if entry.total_cost is None:
        return "cost not reported" if entry.ok else ""
    text = format_cost(entry.total_cost)
    return f"≈ {text} est." if entry.cost_source == "estimated" else text


def _column_html(comparison: Any, entry: Any) -> str:
    marks = "".join(
        f'<span class="gk-mark" style="{_MARK}">{label}</span>'
        for label, on in (("cheapest", entry.model == comparison.cheapest), ("fastest", entry.model == comparison.fastest))
        if on and len(comparison.entries) > 1
    )
    facts = [format_seconds(entry.latency_s)]
    if entry.tokens is not None:
        facts.append(f"{entry.tokens:,} tokens")
    facts.append(_cost_html(entry))
    footer = " · ".join(esc(fact) for fact in facts if fact)
    return (
        f'<div class="gk-compare-column" style="{_COLUMN}">'
        f'<div style="margin-bottom:6px"><code style="{CODE};white-space:nowrap">{esc(entry.model)}</code>{marks}</div>'
        f"{_output_html(entry)}"
        f'<div class="gk-footer" style="{FOOTER}">{footer}</div>'
        "</div>"
    )


def render_comparison_html(comparison: Any) -> str:
    """The comparison as a grid: one column per model, in the order asked."""
    count = max(1, len(comparison.entries))
    columns = min(count, 4)
    head = f'<div style="{MUTED};margin-bottom:6px">{esc(comparison.kind)} · {count} model{"s" if count != 1 else ""} · {esc(comparison.prompt[:200])}</div>'
    body = "".join(_column_html(comparison, entry) for entry in comparison.entries)
    grid = f'<div class="gk-compare" style="{_GRID};grid-template-columns:repeat({columns},minmax(0,1fr))">{body}</div>'
    total = comparison.total_cost
    tail = f'<div class="gk-footer" style="{FOOTER}">in all: {esc(format_cost(total))}</div>' if total is not None else ""
    return f'<div class="gk-comparison" style="{BOX}">{head}{grid}{tail}</div>'
