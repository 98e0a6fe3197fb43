"""Issue 31's visual items in JupyterLab 4 + headless Chromium: what the page draws, not what the kernel sent.

* the chat box's budget reads "$0.0… of $0.05" as text (no MathJax element eats the amounts);
* a fresh playground shows a quiet hint, no error card;
* Cancel on the confirmation card ends the cell with one quiet line, no red error name.

Screenshots: ``test-artifacts/browser-notices/*.png``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterator

import pytest
from conditions import wait_for
from jupyter_browser import JupyterServer, NotebookPage, open_notebook, write_notebook

pytestmark = [pytest.mark.browser, pytest.mark.slow]

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "browser-notices"
BIG_VIDEO = "model=VIDEO, prompt=\"an expensive epic\", duration=8, resolution=\"1080p\""  # notebook 05's call
CELLS = [
    "import gatewaykit as gk\n"
    "client = gk.Client(base_url={base_url!r}, api_key={api_key!r}, ledger=gk.Ledger(path=None, budget=0.05))\n"
    "guarded = gk.Client(base_url={base_url!r}, api_key={api_key!r}, confirm_over=0.10, ledger=gk.Ledger(path=None))\n"
    "VIDEO = 'video-tiers'",
    "ui = gk.chat_ui(client, model='chat-mini')\nui.send('Name three rivers')\nui",
    "gk.playground(client)",
    f"guarded.videos.create({BIG_VIDEO})",
]
CHAT, PLAYGROUND, CONFIRM = 1, 2, 3


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[NotebookPage]:
    from gatewaykit import emulator as gateway

    root = tmp_path_factory.mktemp("notices") / "work"
    root.mkdir()
    with gateway.start(time_scale=0) as running:
        cells = [cell.replace("{base_url!r}", repr(running.base_url)).replace("{api_key!r}", repr(running.api_key))
                 for cell in CELLS]  # fmt: skip
        write_notebook(root / "notices.ipynb", cells)
        server = JupyterServer(root, app="lab")
        try:
            with open_notebook(server, "notices.ipynb", ARTIFACTS) as page:
                page.run_and_wait(0, timeout=90)
                yield page
        finally:
            server.stop()


def test_the_budget_label_reads_as_money_not_maths(lab: NotebookPage) -> None:
    """The amounts are on the page as text; MathJax left the box alone."""
    lab.run_and_wait(CHAT, timeout=90)
    box = lab.cell(CHAT).locator(".gk-chat-box")
    box.wait_for(timeout=60_000)
    wait_for(lambda: "of $0.05" in box.inner_text(), "the budget label")
    lab.screenshot("chat-box-budget", CHAT)
    assert box.locator("mjx-container, .MathJax").count() == 0


def test_a_fresh_playground_shows_a_hint_not_an_error(lab: NotebookPage) -> None:
    """Nothing typed yet: 'Write a prompt, then press Run.' in muted text, no error card."""
    lab.run_and_wait(PLAYGROUND, timeout=90)
    message = lab.cell(PLAYGROUND).locator(".gk-playground-message")
    message.wait_for(timeout=60_000)
    wait_for(lambda: "Write a prompt" in message.inner_text(), "the hint")
    lab.screenshot("playground-fresh", PLAYGROUND)
    assert "Error" not in message.inner_text() and "400" not in message.inner_text()


def test_cancel_on_the_card_is_one_quiet_line(lab: NotebookPage) -> None:
    """Cancel: the card's 'nothing was sent' and a dim line; the error's name is not shown."""
    lab.run(CONFIRM)
    cancel = lab.cell(CONFIRM).locator("button.gk-confirm-no")
    cancel.wait_for(timeout=30_000)
    lab.screenshot("confirm-card", CONFIRM)  # notebooks/media/confirm-card.png (notebook 05) is this picture
    cancel.click()
    lab.wait_done(CONFIRM, timeout=30)
    output = lab.output_text(CONFIRM)
    lab.screenshot("confirm-cancelled", CONFIRM)
    assert "nothing was sent" in output and "ConfirmationRequiredError" not in output
