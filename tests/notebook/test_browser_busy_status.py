"""A kernel that waits looks busy: JupyterLab's and Notebook 7's status stays Busy through a ``job.wait()``.

The wait's Cancel button is the kernel's first widget. JupyterLab 4.4+ opens a
kernel subshell per comm target when the first comm of a target appears
(``create_subshell_request`` on the control channel), and the control
channel's ``busy``/``idle`` status reached the status bar: "Idle" while the
cell was still ``[*]``. The client opens its widget comm target while the
cell that builds it runs (:func:`gatewaykit.notebook.cell_output.kernel.open_widget_subshell`),
so no subshell is created during a wait. Each test samples the notebook's
execution indicator and the status bar every 0.1 s during the wait.
Screenshots go to ``test-artifacts/browser/busy-*.png``.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any, Iterator, Literal

import pytest
from jupyter_browser import NotebookPage
from jupyter_testbed import JupyterTestbed

pytestmark = [pytest.mark.browser, pytest.mark.slow]

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "browser"

SETUP = "import gatewaykit as gk\nclient = gk.Client(base_url={base_url!r}, api_key={api_key!r})"
WAIT = "job = client.videos.create(model='video-range', prompt='a long sunset', duration=8)\njob.wait()"


@pytest.fixture(scope="module")
def slow_gateway() -> Iterator[Any]:
    """Jobs that take several seconds, so the wait can be watched."""
    from gatewaykit import emulator

    with emulator.start(time_scale=1.5) as running:
        yield running


def kernel_status(page: NotebookPage) -> str:
    """``busy``/``idle`` as the page shows it: JupyterLab's status bar ("Python 3 (ipykernel) | Idle"), else
    Notebook 7's execution indicator."""
    bar = page.page.locator("#jp-main-statusbar")
    if bar.count():
        text = bar.inner_text()
        return "idle" if "| Idle" in text else "busy" if "| Busy" in text else text
    return page.page.locator(".jp-Notebook-ExecutionIndicator").first.get_attribute("data-status") or ""


def status_during_wait(page: NotebookPage, name: str) -> list[str]:
    """Run the wait cell; every sample of the kernel status taken while its Cancel button shows (the wait runs)."""
    page.run(1)
    samples: list[str] = []
    shot = False
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        prompt = page.prompt(1)
        if prompt[1:-2].strip().isdigit():
            break
        if "*" in prompt and page.page.locator(".gk-cancel").count():
            samples.append(kernel_status(page))
            if not shot and len(samples) > 20:
                page.screenshot(f"busy-{name}-during-wait")
                shot = True
        time.sleep(0.1)
    return samples


@pytest.mark.parametrize("app", ["lab", "notebook"])
def test_the_status_stays_busy_while_a_first_widget_wait_runs(
    app: Literal["lab", "notebook"], slow_gateway: Any, jupyter_testbed: JupyterTestbed
) -> None:
    """Through a job.wait() whose Cancel button is the kernel's first widget, the status never reads idle."""
    folder = jupyter_testbed.folder(app, "busy-status")
    setup = SETUP.format(base_url=slow_gateway.base_url, api_key=slow_gateway.api_key)
    folder.write_notebook("busy.ipynb", [setup, WAIT])
    with jupyter_testbed.open_notebook(folder, "busy.ipynb", ARTIFACTS) as page:  # a fresh kernel: no widget yet
        page.run_and_wait(0, timeout=60)
        page.wait_kernel_idle()
        samples = status_during_wait(page, app)
        page.wait_done(1, timeout=120)
    assert len(samples) > 30, samples
    # The kernel reports idle a moment before the front end shows the cell's number, so the last sample or
    # two may read idle as the wait ends (seen on a loaded machine); idle any earlier is the bug.
    for _ in range(2):
        if samples[-1] == "idle":
            samples.pop()
    assert set(samples) == {"busy"}, f"{samples.count('idle')} of {len(samples)} samples read idle during the wait"
