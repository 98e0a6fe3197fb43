"""``client.compare`` in JupyterLab 4 + headless Chromium: columns fill while the others still stream.

Screenshots go to ``test-artifacts/browser/`` (``compare-midstream.png``, ``compare-final.png``).
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
COMPARE = "client.compare('Explain server-sent events', models=['chat-vision', 'chat-mini', 'chat-reasoner'])"


@pytest.fixture(scope="module")
def page(jupyter_testbed: JupyterTestbed) -> Iterator[NotebookPage]:
    from gatewaykit import emulator as gateway

    folder = jupyter_testbed.folder("lab", "compare")
    with gateway.start(time_scale=1) as running:
        folder.write_notebook("compare.ipynb", [SETUP.format(base_url=running.base_url, api_key=running.api_key), COMPARE])
        with jupyter_testbed.open_notebook(folder, "compare.ipynb", ARTIFACTS) as notebook:
            notebook.run_and_wait(0)
            yield notebook


def test_a_finished_column_shows_while_another_still_streams(page: NotebookPage) -> None:
    """Mid-run the grid has a finished column (with its cost) beside a running one showing part of its answer."""
    page.run(1)
    output = page.cell(1)
    done = output.locator(".gk-compare-column[data-state='done']")
    streaming = output.locator(".gk-compare-column[data-state='running'] .gk-live")
    deadline = time.monotonic() + 120
    while not (done.count() and streaming.count()):
        assert time.monotonic() < deadline, f"waited 120 s for a done column beside a streaming one: {page.output_text(1)!r}"
        time.sleep(0.05)
    page.screenshot("compare-midstream", 1)
    assert "$" in done.first.inner_text() and "tokens" in done.first.inner_text()
    page.wait_done(1)
    page.screenshot("compare-final", 1)
    columns = output.locator(".gk-compare-column")
    assert columns.count() == 3 and output.locator(".gk-compare-column[data-state='done']").count() == 3
    assert output.locator(".gk-mark").count() >= 1 and output.locator(".gk-live").count() == 0
    assert output.locator(".gk-comparison").count() == 1
