"""compare()'s "in all": the exact total, and a word when the rounded per-model figures add up differently (issue 31, item 6)."""

from __future__ import annotations

import gatewaykit as gk
from gatewaykit.client.session_tools.comparison import Comparison, ComparisonEntry

ANSWER = gk.ChatCompletion(model="m", choices=[{"message": {"role": "assistant", "content": "an answer"}}])


def _comparison(*costs: float) -> Comparison:
    entries = [ComparisonEntry(model=f"m{i}", kind="chat", result=ANSWER, total_cost=cost) for i, cost in enumerate(costs)]
    return Comparison(prompt="p", kind="chat", entries=entries)


def test_rounded_figures_that_do_not_add_up_are_named() -> None:
    """$0.00121 + $0.00121 shown, $0.00243 exact (0.002428): the line says what the shown figures add up to."""
    comparison = _comparison(0.001214, 0.001214)
    assert comparison.total_text == "in all: $0.00243 (exact; the rounded figures above add up to $0.00242)"
    assert str(comparison).splitlines()[-1].strip() == comparison.total_text


def test_figures_that_add_up_need_no_note() -> None:
    comparison = _comparison(0.25, 0.5)
    assert comparison.total_text == "in all: $0.75"


def test_the_notebook_grid_carries_the_same_line_away_from_mathjax() -> None:
    from gatewaykit.notebook.html_views.comparison_html import render_comparison_html

    html = render_comparison_html(_comparison(0.001214, 0.001214))
    assert "the rounded figures above add up to $0.00242" in html and "tex2jax_ignore" in html
