"""Stored notebooks reopened in JupyterLab 4 + headless Chromium, with no kernel run: what a reader sees.

In the browser tests' shared JupyterLab and Chromium (``jupyter_testbed``).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from jupyter_testbed import JupyterTestbed

pytestmark = [pytest.mark.browser, pytest.mark.slow]

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "browser"


def test_stored_notebook_08_shows_the_tool_loop_without_a_kernel(jupyter_testbed: JupyterTestbed) -> None:
    """notebooks/08-conversations.ipynb reopened in JupyterLab shows its saved tool steps and the answer once."""
    import shutil

    import nbformat

    source = Path(__file__).resolve().parents[2] / "notebooks" / "08-conversations.ipynb"
    folder = jupyter_testbed.folder("lab", "stored-notebooks")
    shutil.copy(source, folder.path / "08.ipynb")  # as stored (its kernelspec python3: the server's own kernel)
    stored = nbformat.read(source, as_version=4)
    cell = next(i for i, c in enumerate(stored.cells) if c.cell_type == "code" and "guide(" in c.source)
    with jupyter_testbed.open_notebook(folder, "08.ipynb", ARTIFACTS, height=2400) as page:
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
