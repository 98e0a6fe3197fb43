"""``client.evaluate`` in JupyterLab 4 + headless Chromium: the grid fills while other cells still run.

Screenshots go to ``test-artifacts/browser/`` (``evaluate-midrun.png``, ``evaluate-final.png``).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Iterator

import pytest
from jupyter_browser import NotebookPage
from jupyter_testbed import JupyterTestbed

pytestmark = [pytest.mark.browser, pytest.mark.slow]

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "browser"
SETUP = "import gatewaykit as gk\nclient = gk.Client(base_url={base_url!r}, api_key={api_key!r})"
EVALUATE = """\
cases = ['a red fox in snow', 'a lighthouse at dusk', 'a fruit market, watercolour', 'a robot reading <b>a book</b>']
def one_picture(output, case):
    return len(output.data) == 1
client.evaluate(cases, models=['image-pixels', 'image-tiers', 'image-aspect'],
                scorers=[one_picture, gk.judge(model='chat-vision', rubric='Shows what the prompt asks for')])"""


@pytest.fixture(scope="module")
def page(jupyter_testbed: JupyterTestbed) -> Iterator[NotebookPage]:
    from gatewaykit import emulator as gateway

    folder = jupyter_testbed.folder("lab", "evaluate")
    with gateway.start(time_scale=1) as running:
        folder.write_notebook("evaluate.ipynb", [SETUP.format(base_url=running.base_url, api_key=running.api_key), EVALUATE])
        with jupyter_testbed.open_notebook(folder, "evaluate.ipynb", ARTIFACTS, height=2200) as notebook:
            notebook.run_and_wait(0)
            yield notebook


def test_finished_cells_show_while_others_still_run_then_the_grid_is_final(page: NotebookPage) -> None:
    """Mid-run: done cells (thumbnail, scores, cost) beside unfinished ones; at the end marks and a summary row."""
    page.run(1)
    output = page.cell(1)
    done = output.locator(".gk-eval-cell[data-state='done']")
    pending = output.locator(".gk-eval-cell[data-state='running'], .gk-eval-cell[data-state='waiting']")
    deadline = time.monotonic() + 120
    while not (done.count() and pending.count()):
        assert time.monotonic() < deadline, f"waited 120 s for done cells beside unfinished ones: {page.output_text(1)!r}"
        time.sleep(0.05)
    page.screenshot("evaluate-midrun", 1)
    assert done.first.locator("img").count() == 1 and "$" in done.first.inner_text()
    page.wait_done(1)
    page.screenshot("evaluate-final", 1)
    assert output.locator(".gk-eval-cell").count() == 12
    assert output.locator(".gk-eval-cell[data-state='done']").count() == 12
    assert output.locator(".gk-eval-summary").count() == 1 and output.locator(".gk-mark").count() >= 1
    assert output.locator(".gk-evaluation").count() == 1
    assert "<b>a book</b>" in page.output_text(1)  # the prompt's markup is shown as text
    assert output.locator("mjx-container").count() == 0 and "in all: $" in page.output_text(1)  # no MathJax on amounts
