"""Shared look of the HTML renderers: inline styles, escaping and number formats.

Styles are inline attributes, not ``<style>`` blocks: sanitisers (JupyterLab
for untrusted notebooks, GitHub, Colab) treat ``<style>`` very differently,
while simple inline styles survive or degrade to plain, readable HTML.
Colours use opacity rather than fixed greys so that dark themes stay legible.
The one ``<style>`` is :data:`EXPORT_ALIGNMENT`, which only nbconvert's exported page matches.
"""

from __future__ import annotations

import html
from typing import Any, Iterable, Optional

from gatewaykit.costs.rows import replayed_note
from gatewaykit.money import format_usd

BOX = "font-family:var(--jp-content-font-family,inherit);line-height:1.45;max-width:100%"
# A chat answer is visibly the model's: a shaded panel with an accent bar, distinct from the notebook's own text.
CHAT_BOX = "line-height:1.5;border-left:3px solid #4a90d9;background:#80808014;padding:.55em 1em;border-radius:0 4px 4px 0"
# One part of a streaming answer (several outputs in a row make one panel while it streams).
CHAT_PART_BOX = "line-height:1.5;border-left:3px solid #4a90d9;background:#80808014;padding:.1em 1em;margin:0"
FOOTER = "margin-top:0.5em;font-size:0.85em;opacity:0.65"
MUTED = "opacity:0.65"
TABLE = "border-collapse:collapse;font-size:0.9em"
CELL = "padding:2px 10px;text-align:left;vertical-align:top;border-bottom:1px solid rgba(128,128,128,0.3)"
CODE = "font-family:var(--jp-code-font-family,monospace);font-size:0.9em"
ERROR_BOX = "border-left:4px solid #d9534f;padding:6px 10px;background:rgba(217,83,79,0.08)"
# Amounts carry "$": this class keeps MathJax (JupyterLab typesets $...$) away from an element holding them.
NO_MATH = "tex2jax_ignore mathjax_ignore"
BANNER_BOX = "border:1px solid #e0a800;border-left-width:6px;padding:6px 10px;background:rgba(224,168,0,0.12)"

# nbconvert's lab template (``jupyter nbconvert --to html``, JupyterLab's "Export as HTML", Voila) lays an output
# out as a table row whose prompt cell is 64 px wide plus padding and border, and `.jp-OutputArea-prompt:empty`
# takes the padding and border off a display output's empty prompt: every such output starts 12 px left of the
# code (an ``Out[n]:`` prompt is not empty and lines up). This rule gives an output that carries it its prompt's
# padding and border back. It matches only there: that page puts ``jp-Notebook`` on ``<body>``, while JupyterLab
# and Notebook 7 put it on a div (and size prompts as flex items, empty or not), and Colab, VS Code and marimo
# have no such classes. JupyterLab's sanitizer (untrusted notebooks) and GitHub drop ``<style>`` with its text.
EXPORT_ALIGNMENT = (
    '<style class="gk-export-alignment">body.jp-Notebook .jp-OutputArea-child:has(style.gk-export-alignment)'
    ">.jp-OutputArea-prompt:empty{padding:var(--jp-code-padding);border:var(--jp-border-width) solid transparent}"
    "</style>"
)

STATUS_COLOURS = {
    "queued": "#6c757d",
    "in_progress": "#0d6efd",
    "completed": "#198754",
    "failed": "#d9534f",
    "cancelled": "#6c757d",
    "deleted": "#6c757d",
}


def esc(value: Any) -> str:
    """HTML-escape anything (quotes included), ``None`` as empty."""
    return "" if value is None else html.escape(str(value), quote=True)


def aligned_in_exports(bundle: dict[str, Any]) -> dict[str, Any]:
    """``bundle`` with :data:`EXPORT_ALIGNMENT` before its HTML (once): every output of ours goes out through this
    (a whole page, such as an evaluation's report, is left as it is)."""
    markup = bundle.get("text/html")
    if isinstance(markup, str) and markup and not markup.startswith((EXPORT_ALIGNMENT, "<!DOCTYPE")):
        bundle = {**bundle, "text/html": EXPORT_ALIGNMENT + markup}
    return bundle


def format_cost(usd: Optional[float]) -> str:
    """Money: ``$2.00``, ``$0.042``, ``$0.0013`` (two significant digits below a dollar, never
    scientific notation); empty for None. See :func:`gatewaykit.money.format_usd`."""
    return format_usd(usd)


def format_seconds(seconds: Optional[float]) -> str:
    """``4.2s`` / ``1m05s``."""
    if seconds is None:
        return ""
    seconds = max(0.0, float(seconds))
    if seconds < 60:
        return f"{seconds:.1f}s"
    minutes, rest = divmod(int(round(seconds)), 60)
    return f"{minutes}m{rest:02d}s"


def footer(parts: Iterable[str]) -> str:
    """A quiet line of already-escaped parts joined by middots."""
    items = [part for part in parts if part]
    if not items:
        return ""
    return f'<div class="gk-footer" style="{FOOTER}">{" · ".join(items)}</div>'


def status_badge(status: Optional[str]) -> str:
    colour = STATUS_COLOURS.get(status or "", "#6c757d")
    label = esc((status or "unknown").replace("_", " "))
    return (
        f'<span class="gk-status" data-status="{esc(status)}" style="display:inline-block;'
        f"padding:0 8px;border-radius:8px;color:#fff;background:{colour};"
        f'font-size:0.85em">{label}</span>'
    )


def row_cost_text(cost: Any, source: Any, note: Any = None) -> str:
    """A ledger row's cost as the displays show it: ``$0.40``, ``≈ $0.06 est.``, ``cost not reported``; a row
    nothing was charged for now (replayed, cached) shows its note."""
    if source in ("replayed", "cached") and isinstance(note, str) and note:
        return note
    if cost is None:
        return "cost not reported"
    return f"≈ {format_cost(cost)} est." if source == "estimated" else format_cost(cost)


def _from_prompt_cache(usage: Any) -> str:
    """`` (256 from the prompt cache)``: prompt tokens the gateway served from its prompt cache, billed at the
    cache-read rate (without it, a cost below tokens x the catalog's input price reads as a mistake); "" for none."""
    details = getattr(usage, "prompt_tokens_details", None)
    cached = getattr(details, "cached_tokens", None) or getattr(details, "cached_read_tokens", None)
    return f" ({cached:,} from the prompt cache)" if isinstance(cached, int) and cached > 0 else ""


def usage_parts(usage: Any, *, cached: Optional[str] = None) -> list[str]:
    """Escaped footer parts for a ``Usage``: tokens, reasoning tokens, cost (or, for an answer not charged,
    ``cached``: what stands for it, :func:`~gatewaykit.types.replayed.not_charged_note`)."""
    if usage is None:
        return [esc(cached)] if cached else []
    parts = [f"{usage.prompt_tokens:,} in{_from_prompt_cache(usage)} + {usage.completion_tokens:,} out tokens"]
    details = getattr(usage, "completion_tokens_details", None)
    reasoning = getattr(details, "reasoning_tokens", None) if details is not None else None
    if reasoning:
        parts.append(f"{reasoning:,} reasoning")
    cost = usage.total_cost
    if cached:
        parts.append(esc(cached))
    elif cost is not None:
        parts.append(esc(format_cost(cost)))
    return parts


def usage_text(usage: Any, *, cached: Optional[str] = None) -> str:
    """The same facts as :func:`usage_parts`, as plain text."""
    return " · ".join(html.unescape(part) for part in usage_parts(usage, cached=cached))
