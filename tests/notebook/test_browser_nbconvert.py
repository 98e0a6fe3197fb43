"""Our outputs in nbconvert's HTML export (lab template) in headless Chromium: they line up with the code.

One notebook is built in-process (no kernel) from the bundles our displays send, exported once with
nbconvert's ``HTMLExporter`` and opened once from a file; the page's own CDN scripts are blocked (no network).
Opened in a context of the browser tests' shared Chromium (``chromium``).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from factories import chat, model_list, video_job

from gatewaykit.errors import RateLimitError
from gatewaykit.notebook.html_views.html import render_offline_banner_html
from gatewaykit.notebook.html_views.rendering import mimebundle
from gatewaykit.notebook.html_views.style import aligned_in_exports
from gatewaykit.notebook.displays.warning_card import render_warning_html

pytestmark = [pytest.mark.browser, pytest.mark.slow]

# For each code cell: the left edge of its code box, and of the first element of ours in each output.
MEASURE = """() => [...document.querySelectorAll('.jp-CodeCell')].map(cell => ({
  code: cell.querySelector('.jp-InputArea-editor').getBoundingClientRect().left,
  ours: [...cell.querySelectorAll('.jp-OutputArea-output')].map(output => {
    const first = output.querySelector(':is([class^="gk-"], [class*=" gk-"]):not(style)');
    return [first.className, first.getBoundingClientRect().left];
  }),
}))"""


def _exported_notebook(path: Path) -> None:
    import nbformat
    from nbconvert import HTMLExporter

    banner = render_offline_banner_html("http://127.0.0.1:1")
    warning = render_warning_html("unknown keyword temprature=")
    shown = {
        "banner": aligned_in_exports({"text/plain": "offline", "text/html": banner}),
        "chat": mimebundle(chat("Hello **world**")),
        "job": mimebundle(video_job("in_progress", progress=40)),
        "error": mimebundle(RateLimitError("slow down", status=429)),
        "warning": aligned_in_exports({"text/plain": "warning", "text/html": warning}),
    }
    cells = []
    for name, bundle in shown.items():
        cell = nbformat.v4.new_code_cell(f"show_{name}()")
        cell.outputs = [nbformat.v4.new_output("display_data", data=bundle)]
        cells.append(cell)
    catalog = nbformat.v4.new_code_cell("catalog", execution_count=1)  # an Out[1]: result, for contrast
    catalog.outputs = [nbformat.v4.new_output("execute_result", data=mimebundle(model_list()), execution_count=1)]
    notebook = nbformat.v4.new_notebook(cells=[*cells, catalog])
    body, _ = HTMLExporter(template_name="lab").from_notebook_node(notebook)
    path.write_text(body, encoding="utf-8")


def test_our_outputs_line_up_with_the_code_in_nbconvert_html(tmp_path: Path, chromium: Any) -> None:
    """In nbconvert's lab-template HTML every output of ours starts at the code box's left edge (within 1 px)."""
    page_file = tmp_path / "exported.html"
    _exported_notebook(page_file)
    context = chromium.new_context(viewport={"width": 1280, "height": 1600})
    try:
        page = context.new_page()
        page.route(re.compile(r"^https?://"), lambda route: route.abort())  # the template's CDN scripts
        page.goto(page_file.as_uri())
        page.wait_for_selector(".jp-CodeCell .gk-job", timeout=60_000)
        assert "jp-Notebook" in page.evaluate("document.body.className")  # what the style's selector keys on
        cells = page.evaluate(MEASURE)
    finally:
        context.close()
    assert len(cells) == 6 and all(len(cell["ours"]) == 1 for cell in cells), cells
    off = [(name, left - cell["code"]) for cell in cells for name, left in cell["ours"] if abs(left - cell["code"]) > 1]
    assert not off, f"outputs not lined up with the code box (class, px off): {off}"
