"""Stored notebooks reopened in JupyterLab 4 + headless Chromium, with no kernel run: what a reader sees.

Kept apart from the modules whose module-scoped page holds a Playwright session open
(two sync Playwright sessions cannot run at once in one thread).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from jupyter_browser import JupyterServer, open_notebook

pytestmark = [pytest.mark.browser, pytest.mark.slow]

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "browser"


def test_stored_notebook_08_shows_the_tool_loop_without_a_kernel(tmp_path: Path) -> None:
    """notebooks/08-conversations.ipynb reopened in JupyterLab shows its saved tool steps and the answer once."""
    import shutil

    import nbformat

    source = Path(__file__).resolve().parents[2] / "notebooks" / "08-conversations.ipynb"
    root = tmp_path / "work"
    root.mkdir()
    shutil.copy(source, root / "08.ipynb")
    stored = nbformat.read(source, as_version=4)
    cell = next(i for i, c in enumerate(stored.cells) if c.cell_type == "code" and "guide(" in c.source)
    server = JupyterServer(root, app="lab")
    try:
        with open_notebook(server, "08.ipynb", ARTIFACTS, height=2400) as page:
            output = page.cell(cell)
            output.locator("details.gk-tool-step").first.wait_for(timeout=180_000)
            for index in range(output.locator("details.gk-tool-step").count()):
                output.locator("details.gk-tool-step summary").nth(index).click()
            page.screenshot("tool-loop-notebook-08", cell)
            # (an untrusted notebook's sanitizer drops data-* attributes: count the blocks, read their text)
            blocks = output.locator("details.gk-tool-step")
            assert blocks.count() == 2 and all(blocks.nth(i).locator("summary").inner_text().endswith("ok") for i in range(2))
            assert '"country": "Portugal"' in blocks.nth(0).inner_text()
            answers = output.locator(".gk-chat:not(.gk-turn-step) .gk-answer")
            assert answers.count() == 1 and "Portugal" in answers.inner_text() and "25.0" in answers.inner_text()
    finally:
        server.stop()
