"""Client(confirm_over=) in JupyterLab 4 + headless Chromium: the confirmation card clicked for real.

The cell blocks while the card waits; the click reaches the kernel through the
widget-event pump (as Cancel does during ``job.wait()``). Cancel sends nothing
(no job on the gateway, no ledger row), and an uncaught Cancel ends the cell with one
dim line, no error box, while Run All still stops; Confirm sends the request. Screenshots
go to ``test-artifacts/browser/confirm-*.png``.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any, Iterator

import httpx
import pytest
from jupyter_browser import NotebookPage
from jupyter_testbed import JupyterTestbed

pytestmark = [pytest.mark.browser, pytest.mark.slow]

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "browser"
ADMIN = "confirm-admin-token"
BIG_VIDEO = "model='video-tiers', prompt='a city at night', duration=8, resolution='1080p'"
CELLS = [
    "import gatewaykit as gk\n"
    "client = gk.Client(base_url={base_url!r}, api_key={api_key!r}, confirm_over=0.50, ledger=gk.Ledger(path=None))",
    "try:\n"
    f"    client.videos.create({BIG_VIDEO})\n"
    "except gk.ConfirmationRequiredError as error:\n"
    "    print('not sent; cancelled =', error.cancelled)\n"
    "print('ledger rows:', len(client.ledger))",
    f"job = client.videos.create({BIG_VIDEO})\n"
    "print('sent', job.id, 'ledger rows:', len(client.ledger))",
    "aclient = gk.AsyncClient(base_url={base_url!r}, api_key={api_key!r}, confirm_over=0.50,"
    " ledger=gk.Ledger(path=None))\n"
    f"ajob = await aclient.videos.create({BIG_VIDEO})\n"
    "print('async sent', ajob.id, 'ledger rows:', len(aclient.ledger))",
    f"client.videos.create({BIG_VIDEO})",
    "print('the cell after the cancel ran')",
]
CANCEL, CONFIRM, ASYNC, UNCAUGHT, AFTER = 1, 2, 3, 4, 5
ERROR_OUTPUT = (  # how JupyterLab marks an error output (drawn on its pale red error background)
    '.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stderr"], '
    '.jp-RenderedText[data-mime-type="application/vnd.jupyter.stderr"], .jp-OutputArea-executeResult.jp-mod-error'
)


@pytest.fixture(scope="module")
def lab(jupyter_testbed: JupyterTestbed) -> Iterator[tuple[NotebookPage, Any]]:
    from gatewaykit import emulator as gateway

    folder = jupyter_testbed.folder("lab", "confirm")
    with gateway.start(time_scale=0, admin_token=ADMIN) as running:
        cells = [cell.replace("{base_url!r}", repr(running.base_url)).replace("{api_key!r}", repr(running.api_key))
                 for cell in CELLS]  # fmt: skip
        folder.write_notebook("confirm.ipynb", cells)
        with jupyter_testbed.open_notebook(folder, "confirm.ipynb", ARTIFACTS) as page:
            page.run_and_wait(0, timeout=60)
            yield page, running


def _jobs_started(gateway: Any) -> float:
    """USD the demo account has spent plus held: a created job shows up once it completes."""
    answer = httpx.get(f"{gateway.base_url}/_emulator/accounts", headers={"Authorization": f"Bearer {ADMIN}"})
    return sum(account["spent_usd"] for account in answer.json()["accounts"])


def test_cancel_on_the_card_sends_nothing(lab: tuple[NotebookPage, Any]) -> None:
    """The card shows the quote; Cancel ends the blocked cell with nothing sent and nothing recorded."""
    page, gateway = lab
    page.run(CANCEL)
    cell = page.cell(CANCEL)
    cancel = cell.locator("button.gk-confirm-no")
    cancel.wait_for(timeout=30_000)
    assert "$2.00" in cell.locator(".gk-confirm").inner_text()
    page.screenshot("confirm-01-card", CANCEL)
    cancel.click()
    page.wait_done(CANCEL, timeout=30)
    page.screenshot("confirm-02-cancelled", CANCEL)
    output = page.output_text(CANCEL)
    assert "not sent; cancelled = True" in output and "ledger rows: 0" in output
    assert "Cancelled:" in output and cell.locator("button.gk-confirm-no").count() == 0
    assert _jobs_started(gateway) == 0


def test_confirm_on_the_card_sends(lab: tuple[NotebookPage, Any]) -> None:
    """Confirm lets the blocked call go on: the job is created on the gateway and recorded."""
    page, gateway = lab
    page.run(CONFIRM)
    cell = page.cell(CONFIRM)
    confirm = cell.locator("button.gk-confirm-yes")
    confirm.wait_for(timeout=30_000)
    confirm.click()
    page.wait_done(CONFIRM, timeout=30)
    page.screenshot("confirm-03-confirmed", CONFIRM)
    output = page.output_text(CONFIRM)
    assert "sent video_" in output and "ledger rows: 1" in output and "Confirmed:" in output
    job_id = output.split("sent ", 1)[1].split()[0]
    answer = httpx.get(f"{gateway.base_url}/v1/videos/{job_id}", headers={"Authorization": f"Bearer {gateway.api_key}"})
    assert answer.status_code == 200


def test_confirm_works_for_an_async_client_awaited_in_a_cell(lab: tuple[NotebookPage, Any]) -> None:
    """An AsyncClient awaited in the cell asks with the same card; Confirm sends."""
    page, _ = lab
    page.run(ASYNC)
    cell = page.cell(ASYNC)
    confirm = cell.locator("button.gk-confirm-yes")
    confirm.wait_for(timeout=30_000)
    confirm.click()
    page.wait_done(ASYNC, timeout=30)
    output = page.output_text(ASYNC)
    assert "async sent video_" in output and "ledger rows: 1" in output


def test_an_uncaught_cancel_ends_the_cell_with_one_dim_line_and_no_error_box(lab: tuple[NotebookPage, Any]) -> None:
    """Cancel is a choice: no output on JupyterLab's error background, one dim line; the queued cell after it
    (as in Run All) does not run."""
    page, _ = lab
    page.run(UNCAUGHT)
    page.run(AFTER)  # queued behind the blocked cell, as Run All queues every cell
    cell = page.cell(UNCAUGHT)
    cancel = cell.locator("button.gk-confirm-no")
    cancel.wait_for(timeout=30_000)
    cancel.click()
    page.wait_done(UNCAUGHT, timeout=30)
    deadline = time.monotonic() + 30
    while page.prompt(AFTER).startswith("[*]"):  # the kernel aborts it: its prompt leaves [*] without running
        assert time.monotonic() < deadline, f"the queued cell is still {page.prompt(AFTER)!r}"
        time.sleep(0.05)
    page.screenshot("confirm-04-uncaught-cancel", UNCAUGHT)
    page.screenshot("confirm-05-run-all-stopped", AFTER)
    assert cell.locator(".gk-quiet-stop").count() == 1 and "nothing was sent" in page.output_text(UNCAUGHT)
    assert cell.locator(ERROR_OUTPUT).count() == 0, "the Cancel is drawn as an error"
    assert "ConfirmationRequiredError" not in page.output_text(UNCAUGHT)
    assert "the cell after the cancel ran" not in page.output_text(AFTER)
