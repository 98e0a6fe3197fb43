"""A chat answer and a gateway error as a class sees them: JupyterLab 4 + headless Chromium.

Screenshots (``test-artifacts/browser-chat/``): the answer with a heading, a
table and a code block in the light and the dark theme, the same notebook
reopened untrusted (saved by nbclient, unsigned: JupyterLab's sanitiser then
filters the inline styles), and a short error.
"""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path
from typing import Any, Iterator

import pytest
from jupyter_browser import NotebookPage
from jupyter_testbed import JupyterTestbed, NotebookFolder

pytestmark = [pytest.mark.browser, pytest.mark.slow]

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "browser-chat"
ANSWER = """# Queues in Python

A queue hands work from producers to consumers, **first in, first out**.

| kind | blocks? | module |
|---|---|---|
| `queue.Queue` | yes | queue |
| `asyncio.Queue` | awaits | asyncio |

```python
import queue

jobs = queue.Queue()
for n in range(3):
    jobs.put(f"job {n}")  # producers add work
print(jobs.get())
```

That is all a first queue needs.
"""
LONG = "\n\n".join(f"Paragraph {n}: " + "words that stream in slowly " * 12 for n in range(12)) + "\n"
CELLS = [
    "import gatewaykit as gk\nclient = gk.Client(base_url={base_url!r}, api_key={api_key!r})",
    "client.chat.ask('Show me a queue', model='chat-mini')",
    "client.images.generate(model='image-pixels', prompt='a fox', width=999, height=256)",
    "client.chat.ask('A long answer please', model='chat-mini')",
]


@pytest.fixture(scope="module")
def lab(jupyter_testbed: JupyterTestbed) -> Iterator[NotebookFolder]:
    from gatewaykit import emulator as gateway

    folder = jupyter_testbed.folder("lab", "chat")
    script = {"answers": [{"match": "queue", "content": ANSWER}, {"match": "long answer", "content": LONG}]}
    with gateway.start(time_scale=0.5, script=script) as running:
        cells = [source.format(base_url=running.base_url, api_key=running.api_key) for source in CELLS]
        folder.write_notebook("chat.ipynb", cells)
        yield folder


@pytest.fixture(scope="module")
def page(lab: NotebookFolder, jupyter_testbed: JupyterTestbed) -> Iterator[NotebookPage]:
    with jupyter_testbed.open_notebook(lab, "chat.ipynb", ARTIFACTS) as notebook:
        notebook.run_and_wait(0)
        notebook.run_and_wait(1)
        notebook.run(2)
        notebook.wait_done(2)
        yield notebook


def test_the_answer_is_a_visible_panel_with_highlighted_code(page: NotebookPage) -> None:
    """The answer sits in a shaded panel with an accent bar; its code block has coloured tokens."""
    page.screenshot("chat-answer-light", 1)
    cell = page.cell(1)
    panel = cell.locator(".gk-chat")
    assert panel.count() == 1 and panel.is_visible()
    look = panel.evaluate("e => [getComputedStyle(e).borderLeftWidth, getComputedStyle(e).backgroundColor]")
    assert look[0] == "3px" and look[1] not in ("rgba(0, 0, 0, 0)", "transparent")
    colours = cell.locator(".gk-chat pre span").evaluate_all("spans => spans.map(s => getComputedStyle(s).color)")
    assert len(set(colours)) >= 3  # keywords, strings, comments... in different colours


def test_an_answer_heading_is_smaller_than_the_notebook_title_size(page: NotebookPage) -> None:
    """The answer's `#` heading is a modest bold line (not an <h1> in the table of contents)."""
    cell = page.cell(1)
    assert cell.locator(".gk-chat h1, .gk-chat h2").count() == 0
    heading = cell.locator(".gk-chat .gk-heading").first
    size = float(heading.evaluate("e => parseFloat(getComputedStyle(e).fontSize)"))
    body = float(cell.locator(".gk-chat p:not(.gk-heading)").first.evaluate("e => parseFloat(getComputedStyle(e).fontSize)"))
    assert body < size <= 1.3 * body


def test_the_answer_shows_once_after_streaming(page: NotebookPage) -> None:
    """Once streamed, the cell shows one answer: the streaming parts left nothing visible behind."""
    cell = page.cell(1)
    assert cell.locator(".gk-live").count() == 0
    assert cell.locator(".jp-OutputArea-output").evaluate_all(
        "outs => outs.filter(o => o.getBoundingClientRect().height > 2).length"
    ) == 1
    assert cell.locator(".gk-chat").inner_text().count("Queues in Python") == 1


def test_the_footer_says_the_answer_is_scripted(page: NotebookPage) -> None:
    """The footer names the model and says the offline gateway scripted this answer."""
    footer = page.cell(1).locator(".gk-footer").inner_text()
    assert "chat-mini" in footer and "scripted" in footer


def test_an_error_is_short(page: NotebookPage) -> None:
    """A gateway error shows its name, message and parameter in a few lines, not library frames."""
    page.screenshot("error", 2)
    text = page.cell(2).locator(".jp-OutputArea").inner_text()
    assert "BadRequestError" in text and "parameter: width" in text and "%tb" in text
    assert "site-packages" not in text and len(text.strip().splitlines()) <= 6


def test_a_long_answer_streams_as_one_panel_of_parts(page: NotebookPage) -> None:
    """While streaming, finished parts are outputs of their own that join into one panel; at the end one output."""
    page.run(3)
    # Measured in the page, in the same instant the third part is seen: on a busy machine the stream can
    # end (and the parts merge into one output) between a wait in Python and a later measurement.
    measured = page.page.wait_for_function(
        """c => {
            const parts = [...c.querySelectorAll('.gk-chat.gk-live')].map(p => p.getBoundingClientRect());
            if (parts.length < 3) return null;
            return parts.slice(1).map((later, i) => later.top - parts[i].bottom);
        }""", arg=page.cell(3).element_handle(), timeout=180_000)
    gaps = measured.json_value()
    page.screenshot("chat-streaming-parts", 3)
    assert len(gaps) >= 2 and all(gap <= 4 for gap in gaps), gaps
    page.wait_done(3)
    page.page.wait_for_function("c => c.querySelectorAll('.gk-live').length === 0",  # the last update may render late
                                arg=page.cell(3).element_handle(), timeout=180_000)
    assert page.cell(3).locator(".gk-chat").inner_text().count("Paragraph 11:") == 1


def save_with_outputs(page: NotebookPage, path: Path, timeout: float = 180) -> None:
    """Ctrl+S until the file on disk holds the answer panel (a loaded machine may take a while to save)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        page.page.keyboard.press("Escape")
        page.page.keyboard.press("Control+s")
        for _ in range(20):
            if "gk-chat" in path.read_text(encoding="utf-8"):
                return
            time.sleep(0.25)
    raise AssertionError(f"JupyterLab did not save {path.name} with its outputs within {timeout:.0f} s")


def test_dark_theme_screenshot(page: NotebookPage, lab: NotebookFolder) -> None:
    """In JupyterLab Dark the panel and the code stay readable (screenshot to look at)."""
    page.page.evaluate("() => document.body.dataset.jpThemeLight = 'false'")
    save_with_outputs(page, lab.path / "chat.ipynb")
    settings = lab.server.settings_dir / "@jupyterlab" / "apputils-extension" / "themes.jupyterlab-settings"
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text(json.dumps({"theme": "JupyterLab Dark"}))
    try:  # the server is shared: the next test file opens its pages in the light theme again
        page.page.reload()
        page.page.wait_for_selector(".jp-Notebook .gk-chat", timeout=180_000)
        page.page.wait_for_function("() => document.body.dataset.jpThemeLight === 'false'", timeout=180_000)
        page.screenshot("chat-answer-dark", 1)
    finally:
        settings.write_text(json.dumps({"theme": "JupyterLab Light"}))
    assert page.cell(1).locator(".gk-chat pre span").count() > 0


def test_reopened_untrusted_keeps_the_look(page: NotebookPage, lab: NotebookFolder) -> None:
    """An unsigned copy (as nbclient or a download saves it) opens untrusted and still shows panel and colours."""
    import nbformat

    root = lab.path
    save_with_outputs(page, root / "chat.ipynb")
    nb = nbformat.read(str(root / "chat.ipynb"), as_version=4)
    nb.metadata["copied_by"] = "test"  # different content: JupyterLab's trust database has no signature for it
    untrusted = root / "chat-untrusted.ipynb"
    nbformat.write(nb, str(untrusted))  # nbformat.write does not sign
    page.page.goto(lab.server.notebook_url(lab.notebook_path(untrusted.name)))
    page.page.wait_for_selector(".jp-Notebook .gk-chat", timeout=180_000)
    page.screenshot("chat-answer-untrusted", 1)
    colours = page.cell(1).locator(".gk-chat pre span").evaluate_all("spans => spans.map(s => getComputedStyle(s).color)")
    assert len(set(colours)) >= 3
    shutil.copy(untrusted, ARTIFACTS / untrusted.name)
