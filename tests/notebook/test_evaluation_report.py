"""An evaluation's repeats, comparison and report as HTML: the grouped grid with stability badges and the
repeats on click, the comparison grid with its changes marked, and ``to_html``'s self-contained page."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Iterator

import pytest

import gatewaykit as gk
from gatewaykit.notebook.html_views.rendering import mimebundle

CASES = [{"id": "volcano", "prompt": "In one sentence, tell me about volcanoes."},
         {"id": "tides", "prompt": "tides? <b>bold</b>"}]  # fmt: skip


def mentions(output: str, case: dict[str, Any]) -> bool:
    return case["id"].rstrip("s") in output.lower()


@pytest.fixture
def client() -> Iterator[gk.Client]:
    with gk.emulator.start(time_scale=0, seed=2) as gateway:
        with gk.Client(base_url=gateway.base_url, api_key=gateway.api_key, ledger=gk.Ledger(path=None),
                       display=False) as made:  # fmt: skip
            yield made


def test_a_grid_with_repeats_has_one_row_per_case_with_badges_and_the_repeats_on_click(client: gk.Client) -> None:
    """repeats=6: a row per case; each cell a stability badge per scorer and a <details> of its 6 repeats."""
    ev = client.evaluate(CASES, models=["chat-mini", "chat-reasoner"], scorers=[mentions], repeats=6, temperature=1.0)
    html = mimebundle(ev)["text/html"]
    assert html.count('class="gk-eval-cell"') == 4 and html.count('class="gk-eval-case"') == 2
    badges = re.findall(r'data-stability="(\w+)"[^>]*>mentions <b>(\d)/6</b> (\w+)</span>', html)
    expected = [(cell.case_id, cell.model) for cell in ev.cells if cell.repeat == 0]
    passed = {key: sum(c.scores["mentions"] for c in ev.cells if (c.case_id, c.model) == key) for key in expected}
    assert [int(count) for _, count, _ in badges] == [passed[key] for key in expected]
    assert all(state == word for state, _, word in badges)
    assert html.count('<details class="gk-eval-repeats">') == 4 and html.count('class="gk-eval-repeat"') == 24
    assert "<b>bold</b>" not in html and "&lt;b&gt;bold&lt;/b&gt;" in html  # a case's markup is shown as text


def test_compare_shows_a_grid_with_each_change_marked(client: gk.Client) -> None:
    """compare()'s DataFrame shows itself as the grid: one line per scorer, before → after, its change marked."""
    baseline = client.evaluate(CASES[:1], models=["chat-mini"], scorers=[gk.expect.contains("volcanoes")])
    changed = client.evaluate([{"id": "volcano", "prompt": "In one sentence, tell me about lava."}],
                              models=["chat-mini"], scorers=[gk.expect.contains("volcanoes")])  # fmt: skip
    html = changed.compare(baseline)._repr_html_()
    assert 'class="gk-changes-grid"' in html
    assert re.search(r'data-change="worse"[^>]*>contains\(&#x27;volcanoes&#x27;\) 1/1 → <b>0/1</b>', html), html


def test_to_html_writes_one_page_with_the_grid_stability_comparison_and_costs(client: gk.Client, tmp_path: Path) -> None:
    """The page holds everything inline (images as data: URIs), no script, no http(s) link, and a CSP allowing none."""
    baseline = client.evaluate(["a red fox"], models=["image-pixels"], width=256, height=256, repeats=2,
                               scorers=[gk.expect.max_cost(1.0)])  # fmt: skip
    ev = client.evaluate(["a red fox"], models=["image-pixels"], width=256, height=256, repeats=2,
                         scorers=[gk.expect.max_cost(1.0)])  # fmt: skip
    page = ev.to_html(tmp_path / "report.html", baseline=baseline).read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>") and "default-src &#x27;none&#x27;" in page
    assert "<script" not in page and not re.search(r'(?:src|href)="(?!data:)', page)
    assert page.count('src="data:image/') == 3  # the cell's first picture, then each repeat's in its list
    for part in ('class="gk-changes-grid"', 'class="gk-stability"', 'class="gk-report-costs"', 'class="gk-eval-grid"'):
        assert part in page
