"""A video job's Cancel buttons in JupyterLab 4 + headless Chromium, when the job ends at once or runs on.

A job that failed as its buttons were drawn had them replaced while JupyterLab's widget manager was
still building their views: the browser logged "Could not add child view to box" and two TypeErrors
(notebook 07's failing video). Now the buttons show only once the job has run a moment, and stay a
moment. In the browser tests' shared JupyterLab and Chromium (``jupyter_testbed``).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conditions import wait_for
from jupyter_testbed import JupyterTestbed

pytestmark = [pytest.mark.browser, pytest.mark.slow]

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "browser-job-buttons"
# Notes whether a Cancel button was ever on the page (its class may be set after its node is attached).
WATCH_BUTTONS = """() => {
    window.gkCancelSeen = false;
    const look = () => { if (document.querySelector('.gk-cancel')) window.gkCancelSeen = true; };
    new MutationObserver(look).observe(document.body, {childList: true, subtree: true, attributes: true,
                                                       attributeFilter: ['class']});
}"""
CELLS = [
    "import gatewaykit as gk\n"
    "lab = gk.emulator.start(time_scale=0)\n"
    "practice = gk.Client(api_key=lab.api_key, base_url=lab.base_url)",
    "doomed = practice.videos.create(model='video-range', prompt='a storm', duration=2,\n"
    "                                extra_headers={'X-Emulator-Fault': 'job-fail'})\n"
    "try:\n    doomed.wait(timeout=60)\nexcept gk.JobFailedError as error:\n    print('failed:', error.message)",
    "slow = gk.emulator.start(time_scale=1)\n"
    "steady = gk.Client(api_key=slow.api_key, base_url=slow.base_url)\n"
    "running = steady.videos.create(model='video-range', prompt='waves', duration=2)\n"
    "running.wait(timeout=120)\nrunning.status",
]
FAILING, RUNNING = 1, 2


def test_a_job_that_fails_at_once_leaves_no_widget_error_and_a_running_one_gets_its_button(
    jupyter_testbed: JupyterTestbed,
) -> None:
    folder = jupyter_testbed.folder("lab", "job-buttons")
    folder.write_notebook("buttons.ipynb", CELLS)
    with jupyter_testbed.open_notebook(folder, "buttons.ipynb", ARTIFACTS, height=1800) as notebook:
        page = notebook.page
        errors: list[str] = []
        page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.evaluate(WATCH_BUTTONS)
        notebook.run_and_wait(0)
        notebook.run_and_wait(FAILING, timeout=120)
        assert "failed:" in notebook.output_text(FAILING)
        assert page.evaluate("window.gkCancelSeen") is False  # never drawn, so never torn down mid-build
        assert _widget_errors(errors) == []
        notebook.run(RUNNING)
        button = notebook.cell(RUNNING).locator(".gk-cancel")
        button.first.wait_for(timeout=60_000)  # a job that runs on gets its button
        notebook.screenshot("running-job-with-its-button", RUNNING)
        notebook.wait_done(RUNNING, timeout=180)
        wait_for(lambda: notebook.cell(RUNNING).locator(".gk-cancel").count() == 0, "the button to go")
        assert "completed" in notebook.output_text(RUNNING)
        assert page.evaluate("window.gkCancelSeen") is True
    assert _widget_errors(errors) == []


def _widget_errors(errors: list[str]) -> list[str]:
    """The console errors the widget manager logged (what a failing job's torn-down buttons caused)."""
    return [text for text in errors if "widget" in text.lower() or "child view" in text
            or "processLuminoMessage" in text]  # fmt: skip
