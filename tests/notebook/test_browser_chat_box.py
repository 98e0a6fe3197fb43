"""The chat box in JupyterLab 4 and Notebook 7 + headless Chromium: type, Enter, Send, Shift+Enter, Stop.

Each test runs once per front end (the same notebook, the same page driver).
Screenshots (``test-artifacts/browser-chat-box/<lab|notebook>/*.png``): the box
after an answer, mid-stream, and after Stop.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any, Iterator

import pytest
from conditions import wait_for
from jupyter_browser import NotebookPage
from jupyter_testbed import JupyterTestbed

_wait_for = functools.partial(wait_for, timeout=90.0)  # this file's pace

pytestmark = [pytest.mark.browser, pytest.mark.slow]

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "browser-chat-box"
ANSWER = "# Queues\n\nA queue hands work from producers to consumers, **first in, first out**.\n"
# Long enough that Stop lands mid-stream on a busy machine.
LONG = "\n\n".join(f"Paragraph {n}: " + "words that stream in slowly " * 12 for n in range(40)) + "\n"
CELLS = [
    "import gatewaykit as gk\nclient = gk.Client(base_url={base_url!r}, api_key={api_key!r})",
    "ui = gk.chat_ui(client, model='chat-mini')\nui",
    "print(len(ui.session.turns), repr(ui.session.history[-1]['content'][:40]))",
    "import sys\nsys.modules['anywidget'] = None  # a kernel without anywidget (Colab): the Textarea fallback\n"
    "plain = gk.chat_ui(client, model='chat-mini')\nplain",
]


@pytest.fixture(scope="module", params=["lab", "notebook"])
def page(request: pytest.FixtureRequest, jupyter_testbed: JupyterTestbed) -> Iterator[NotebookPage]:
    from gatewaykit import emulator as gateway

    app = request.param
    folder = jupyter_testbed.folder(app, "chat-box")
    script = {"answers": [{"match": "queue", "content": ANSWER}, {"match": "long answer", "content": LONG}]}
    with gateway.start(time_scale=0.5, script=script) as running:
        cells = [source.format(base_url=running.base_url, api_key=running.api_key) for source in CELLS]
        folder.write_notebook("box.ipynb", cells)
        with jupyter_testbed.open_notebook(folder, "box.ipynb", ARTIFACTS / app) as notebook:
            if app == "notebook":  # Notebook 7's own page, not JupyterLab's shell
                assert f"/notebooks/{folder.notebook_path('box.ipynb')}" in notebook.page.url
                assert notebook.page.locator(".jp-LabShell").count() == 0
            notebook.run_and_wait(0, timeout=90)
            notebook.run_and_wait(1, timeout=90)
            notebook.page.wait_for_selector("textarea.gk-chat-input", timeout=90_000)
            yield notebook


def _box(page: NotebookPage) -> Any:
    return page.cell(1).locator(".jp-OutputArea")


def test_enter_sends_and_the_answer_appears_in_the_transcript(page: NotebookPage) -> None:
    """Typing and pressing Enter sends the message; the answer renders as Markdown in the box."""
    area = page.page.locator("textarea.gk-chat-input")
    area.click()
    page.page.keyboard.type("Show me a queue")
    page.page.keyboard.press("Enter")
    _wait_for(lambda: "first in, first out" in _box(page).inner_text(), "the answer in the transcript")
    assert _box(page).locator(".gk-chat-answer strong").first.inner_text() == "first in, first out"
    assert area.input_value() == ""
    assert "conversation $" in _box(page).inner_text()  # the running cost under the picker
    page.screenshot("answered", cell=1)


def test_shift_enter_is_a_new_line_not_a_send(page: NotebookPage) -> None:
    """Shift+Enter adds a line to the message; the Enter after it sends both lines as one message."""
    area = page.page.locator("textarea.gk-chat-input")
    before = _box(page).locator(".gk-chat-user").count()
    area.click()
    page.page.keyboard.type("line one")
    page.page.keyboard.press("Shift+Enter")
    page.page.keyboard.type("line two")
    assert area.input_value() == "line one\nline two"
    page.page.keyboard.press("Enter")
    _wait_for(lambda: _box(page).locator(".gk-chat-user").count() > before and
              _box(page).get_by_role("button", name="Send").is_enabled(), "the two-line message's turn to end")
    users = _box(page).locator(".gk-chat-user")
    assert users.count() == before + 1
    assert users.last.inner_text() == "line one\nline two"


def test_send_then_stop_keeps_the_partial_answer(page: NotebookPage) -> None:
    """Clicking Send streams the answer; Stop mid-stream keeps what arrived, marked stopped."""
    area = page.page.locator("textarea.gk-chat-input")
    area.click()
    page.page.keyboard.type("A long answer please")
    _box(page).get_by_role("button", name="Send").click()
    _wait_for(lambda: "Paragraph 1:" in _box(page).inner_text(), "the long answer to start streaming")
    stop = _box(page).get_by_role("button", name="Stop")
    where = stop.bounding_box()
    _wait_for(lambda: "Paragraph 3:" in _box(page).inner_text(), "more of the answer")
    assert stop.bounding_box() == where, "Stop moved while the answer streamed (a click on it can be lost)"
    page.screenshot("mid-stream", cell=1)
    stop.click()
    _wait_for(lambda: "stopped" in _box(page).inner_text(), "the turn to be marked stopped")
    page.screenshot("stopped", cell=1)
    text = _box(page).inner_text()
    assert "Paragraph 39:" not in text
    page.run_and_wait(2, timeout=60)
    assert page.output_text(2).startswith("3 ")


def test_the_textarea_fallback_sends_all_that_was_typed_before_send(page: NotebookPage) -> None:
    """Without anywidget, a message typed and sent at once arrives whole (value updates are throttled)."""
    page.run_and_wait(3, timeout=90)
    box = page.cell(3).locator(".jp-OutputArea")
    area = box.locator(".widget-textarea textarea")
    area.wait_for(timeout=90_000)
    message = "A message typed quickly and sent at once, every word of it"
    area.click()
    page.page.keyboard.type(message)
    box.get_by_role("button", name="Send").click()
    _wait_for(lambda: box.locator(".gk-chat-user").count() == 1 and box.get_by_role("button", name="Send").is_enabled(),
              "the fallback box's turn to end")
    assert box.locator(".gk-chat-user").inner_text() == message
    assert area.input_value() == ""
