"""``render_comparison_html(comparison)``: one column per model, side by side.

Each column: the model id (with "cheapest" / "fastest" marks), its output as
it shows on its own (the answer panel, the image grid, the player) or its
error card, then latency, tokens and cost (reported, or "≈ … est." when the
price was estimated; a model the client's cassette replayed or its response
cache answered shows its ledger row's note instead, and the total under the
grid says how many models were not charged). Pure: a string of HTML, everything from a model escaped
by the renderers it reuses.
"""

from __future__ import annotations

from typing import Any

from gatewaykit.client.session_tools.comparison import cost_text
from gatewaykit.notebook.html_views import html as views
from gatewaykit.notebook.html_views.style import BOX, CODE, FOOTER, MUTED, esc, format_seconds

__all__ = ["column_footer", "column_shell", "finished_body", "grid_html", "render_comparison_html"]

_GRID = "display:grid;gap:12px;align-items:start"
_COLUMN = "min-width:0;border:1px solid rgba(128,128,128,0.35);border-radius:6px;padding:8px 10px;overflow:hidden"
_STATE = "margin-left:6px;font-size:0.8em;opacity:0.7"
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
        from gatewaykit.notebook.html_views.media_html import render_image_grid_html

        return render_image_grid_html(result)
    from gatewaykit.notebook.html_views.players import job_player_html

    return job_player_html(result)


def _cost_html(entry: Any) -> str:
    """The column's cost as ``print(comparison)`` says it (one copy: ``comparison.cost_text``; a column the
    cassette replayed or the cache answered: its ledger row's note), "cost not reported" spelled out here."""
    if entry.total_cost is None and getattr(entry, "note", None) is None:
        return "cost not reported" if entry.ok else ""
    return cost_text(entry)


def column_footer(entry: Any) -> str:
    """A finished column's facts: latency, tokens, cost (escaped, joined by middots)."""
    facts = [format_seconds(entry.latency_s)]
    if entry.tokens is not None:
        facts.append(f"{entry.tokens:,} tokens")
    facts.append(_cost_html(entry))
    return " · ".join(esc(fact) for fact in facts if fact)


def column_shell(model: str, body: str, footer: str, *, marks: str = "", state: str = "") -> str:
    """One column: the model id (marks or a state beside it), its body (already safe HTML), a quiet footer.

    ``data-state`` says where the column is: "waiting", "running", "failed" or "done".
    """
    label = f'<span class="gk-compare-state" style="{_STATE}">{esc(state)}</span>' if state else ""
    return (
        f'<div class="gk-compare-column" data-model="{esc(model)}" data-state="{esc(state or "done")}" style="{_COLUMN}">'
        f'<div style="margin-bottom:6px"><code style="{CODE};white-space:nowrap">{esc(model)}</code>{marks}{label}</div>'
        f"{body}"
        f'<div class="gk-footer" style="{FOOTER}">{footer}</div>'
        "</div>"
    )


def finished_body(entry: Any) -> str:
    """A finished column's output as it shows on its own (the answer, the images, the player) or its error."""
    return _output_html(entry)


def _column_html(comparison: Any, entry: Any) -> str:
    marks = "".join(
        f'<span class="gk-mark" style="{_MARK}">{label}</span>'
        for label, on in (("cheapest", entry.model == comparison.cheapest), ("fastest", entry.model == comparison.fastest))
        if on and len(comparison.entries) > 1
    )
    state = "failed" if entry.error is not None else ""
    return column_shell(entry.model, _output_html(entry), column_footer(entry), marks=marks, state=state)


def grid_html(prompt: str, kind: str, columns: list[str], tail: str = "") -> str:
    """Columns side by side (at most four a row) under a line naming the kind, the count and the prompt."""
    count = max(1, len(columns))
    per_row = min(count, 4)
    head = f'<div style="{MUTED};margin-bottom:6px">{esc(kind)} · {count} model{"s" if count != 1 else ""} · {esc(prompt[:200])}</div>'
    grid = f'<div class="gk-compare" style="{_GRID};grid-template-columns:repeat({per_row},minmax(0,1fr))">{"".join(columns)}</div>'
    # Amounts carry "$" (several in one footer): keep MathJax from reading "$0.01 ... $0.02" as maths.
    return f'<div class="gk-comparison tex2jax_ignore mathjax_ignore" style="{BOX}">{head}{grid}{tail}</div>'


def render_comparison_html(comparison: Any) -> str:
    """The comparison as a grid: one column per model, in the order asked."""
    columns = [_column_html(comparison, entry) for entry in comparison.entries]
    total = comparison.total_text
    tail = f'<div class="gk-footer" style="{FOOTER}">{esc(total)}</div>' if total else ""
    return grid_html(comparison.prompt, comparison.kind, columns, tail)
