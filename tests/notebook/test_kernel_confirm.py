"""Client(confirm_over=) in a real kernel, read message by message: the card, its text fallback, a click.

The browser suite (test_browser_confirm.py) clicks the card in JupyterLab; here
the click is a comm message sent while the cell blocks, as a front end sends it.
"""

from __future__ import annotations

from typing import Any, Iterator

import pytest
from live_kernel import LiveKernel

pytestmark = pytest.mark.slow

BIG_VIDEO = "model='video-tiers', prompt='a city at night', duration=8, resolution='1080p'"


@pytest.fixture(scope="module")
def kernel(emulator: Any, keys: Any) -> Iterator[LiveKernel]:
    live = LiveKernel()
    try:
        live.run(
            "import gatewaykit as gk\n"
            f"client = gk.Client(base_url={emulator.base_url!r}, api_key={keys.acme!r}, confirm_over=0.5,"
            " ledger=gk.Ledger(path=None))"
        )
        yield live
    finally:
        live.close()


def _card_buttons(kernel: LiveKernel, known: set[str]) -> list[str]:
    kernel.pump(15, until=lambda: len(set(kernel.button_ids()) - known) >= 2)
    return [button for button in kernel.button_ids() if button not in known]  # Confirm, then Cancel


def test_cancel_click_while_the_cell_blocks_sends_nothing(kernel: LiveKernel) -> None:
    """The card shows with a text fallback naming confirm=True; a Cancel click ends the cell, nothing recorded."""
    known = set(kernel.button_ids())
    msg_id = kernel.execute(
        f"try:\n    client.videos.create({BIG_VIDEO})\nexcept gk.ConfirmationRequiredError as error:\n"
        "    print('cancelled', error.cancelled, len(client.ledger))"
    )
    confirm, cancel = _card_buttons(kernel, known)
    kernel.pump(10, until=lambda: bool(kernel.of(msg_id, "display_data")))
    shown = [m["content"]["data"] for m in kernel.of(msg_id, "display_data")]
    assert any("confirm=True" in data.get("text/plain", "") and "$2.00" in data["text/plain"] for data in shown)
    kernel.click(cancel)
    kernel.pump(15, until=lambda: kernel.idle(msg_id))
    assert "cancelled True 0" in kernel.text(msg_id)
    updates = [m["content"]["data"].get("text/html", "") for m in kernel.of(msg_id, "update_display_data")]
    assert any("nothing was sent" in html for html in updates)


def test_confirm_click_sends(kernel: LiveKernel) -> None:
    """A Confirm click lets the blocked call send: the job is created and recorded."""
    known = set(kernel.button_ids())
    msg_id = kernel.execute(f"job = client.videos.create({BIG_VIDEO})\nprint('sent', job.status, len(client.ledger))")
    confirm, _ = _card_buttons(kernel, known)
    kernel.click(confirm)
    kernel.pump(15, until=lambda: kernel.idle(msg_id))
    assert "sent queued 1" in kernel.text(msg_id)


def test_an_uncaught_cancel_ends_the_cell_with_one_quiet_line(kernel: LiveKernel) -> None:
    """Cancel is a choice, not a failure: the cell ends with one dim line of ordinary output and no error output
    (JupyterLab would draw it on its error background), yet Run All still stops: the queued cell never runs."""
    known = set(kernel.button_ids())
    msg_id = kernel.execute(f"client.videos.create({BIG_VIDEO})")
    queued = kernel.execute("print('the next cell ran')")  # Run All: already queued behind the blocked cell
    _, cancel = _card_buttons(kernel, known)
    kernel.click(cancel)
    kernel.pump(15, until=lambda: kernel.idle(msg_id) and kernel.idle(queued))
    assert kernel.of(msg_id, "error") == []  # no error output: no red or pale error box
    lines = [m["content"]["data"] for m in kernel.of(msg_id, "display_data")]
    assert any(data.get("text/plain") == "The cell stops here, and so does Run All." for data in lines)
    card = [m["content"]["data"].get("text/plain", "") for m in kernel.of(msg_id, "update_display_data")][-1]
    assert card.startswith("Cancelled: ") and card.endswith("; nothing was sent.")  # the card's last state says it
    plain = "\n".join(data.get("text/plain", "") for data in lines[1:])  # what the cell shows under the card
    assert "Cancelled" not in plain and "nothing was sent" not in plain, plain  # not said twice
    assert "gk-quiet-stop" in "".join(data.get("text/html", "") for data in lines)
    assert "the next cell ran" not in kernel.text(queued)  # the kernel aborted it: the cancelled cell failed
    full = "\n".join("\n".join(m["content"]["traceback"]) for m in kernel.of(kernel.run("%tb"), "error"))
    assert "ConfirmationRequiredError" in full and "confirmation.py" in full  # %tb still shows every frame


def test_confirmation_required_without_a_card_still_shows_its_error(kernel: LiveKernel) -> None:
    """Not a Cancel (a client with no one to ask): the usual short error, naming confirm=True."""
    msg_id = kernel.run(
        "quiet = gk.Client(base_url=client.base_url, api_key=client._settings.api_key, confirm_over=0.5,"
        " ledger=gk.Ledger(path=None), display=False)\n"
        f"quiet.videos.create({BIG_VIDEO})"
    )
    (error,) = [m["content"] for m in kernel.of(msg_id, "error")]
    assert error["ename"] == "ConfirmationRequiredError" and "confirm=True" in "\n".join(error["traceback"])
