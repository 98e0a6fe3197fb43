"""Widget clicks during a blocking ``job.wait()`` are handled exactly once, whichever path brings them.

On ipykernel 7 a front end may send a widget's messages through a kernel
subshell (JupyterLab 4.4+ does, one subshell per comm target); the kernel
handles those in the subshell's thread while the cell blocks. Otherwise they
reach the main shell, where the wait's own widget-event pump handles them.
These tests click Cancel through each path, and through both at once, in a
real kernel, and count the ``job.cancel()`` calls. A job only shown (no wait)
keeps its Cancel working through the subshell while another cell runs.
"""

from __future__ import annotations

from typing import Any, Iterator

import pytest
from live_kernel import LiveKernel

pytestmark = pytest.mark.slow

WAIT = """
cancel_calls = []
doomed = client.videos.create(model='video-range', prompt='never mind', duration=12)
real_cancel = doomed.cancel
def counted_cancel():
    cancel_calls.append(1)
    return real_cancel()
object.__setattr__(doomed, "cancel", counted_cancel)
doomed.wait()
"""


@pytest.fixture(scope="module")
def gateway() -> Iterator[Any]:
    from gatewaykit import emulator

    with emulator.start(time_scale=4) as running:
        yield running


@pytest.fixture
def kernel(gateway: Any) -> Iterator[LiveKernel]:
    live = LiveKernel()
    try:
        live.run(f"import gatewaykit as gk\nclient = gk.Client(base_url={gateway.base_url!r}, api_key={gateway.api_key!r})")
        yield live
    finally:
        live.close()


def start_wait(kernel: LiveKernel) -> tuple[str, str]:
    """Run the blocking wait; its msg_id and its Cancel button's model id."""
    known = set(kernel.button_ids())
    msg_id = kernel.execute(WAIT)
    kernel.pump(30, until=lambda: bool(set(kernel.button_ids()) - known))
    (button,) = sorted(set(kernel.button_ids()) - known)
    kernel.pump(0.5)
    return msg_id, button


def finish(kernel: LiveKernel, msg_id: str) -> tuple[str, int]:
    """Wait for the cell's end; the job's status and how often cancel() ran."""
    kernel.pump(30, until=lambda: kernel.idle(msg_id))
    assert kernel.idle(msg_id)
    check = kernel.run("print(doomed.status, len(cancel_calls))")
    status, calls = kernel.text(check).split()
    return status, int(calls)


def test_a_click_through_a_subshell_cancels_once(kernel: LiveKernel) -> None:
    """A Cancel click sent through a kernel subshell ends the wait with one cancel()."""
    subshell = kernel.create_subshell()
    msg_id, button = start_wait(kernel)
    kernel.click(button, subshell_id=subshell)
    assert finish(kernel, msg_id) == ("cancelled", 1)


def test_a_click_through_the_main_shell_cancels_once(kernel: LiveKernel) -> None:
    """A Cancel click on the main shell (no subshell) is handled by the wait's own pump, once."""
    msg_id, button = start_wait(kernel)
    kernel.click(button)
    assert finish(kernel, msg_id) == ("cancelled", 1)


def test_clicks_on_both_paths_cancel_once(kernel: LiveKernel) -> None:
    """Two clicks at once, one per path, still cancel the job once."""
    subshell = kernel.create_subshell()
    msg_id, button = start_wait(kernel)
    kernel.click(button, subshell_id=subshell)
    kernel.click(button)
    assert finish(kernel, msg_id) == ("cancelled", 1)


def described(kernel: LiveKernel, model_id: str, description: str) -> bool:
    """Whether the kernel has set the widget's description to ``description``."""
    return any(m["msg_type"] == "comm_msg" and m["content"]["comm_id"] == model_id
               and m["content"]["data"].get("state", {}).get("description") == description
               for m in kernel.messages)  # fmt: skip


def test_a_shown_jobs_cancel_works_while_another_cell_runs(kernel: LiveKernel) -> None:
    """A job shown live, not waited for: its Cancel clicked through the subshell while the next cell sleeps is
    handled during the sleep. (ipykernel 7.3+ sends a comm's messages to the shell that last published on it,
    the main shell for a widget built in a cell, unless gatewaykit routes its widgets by the front end's choice.)"""
    subshell = kernel.create_subshell()
    known = set(kernel.button_ids())
    kernel.run("shown = client.videos.create(model='video-range', prompt='keep working', duration=12)\nshown")
    (button,) = sorted(set(kernel.button_ids()) - known)
    busy = kernel.execute("import time\ntime.sleep(30)")
    kernel.pump(0.5)
    kernel.click(button, subshell_id=subshell)
    kernel.pump(15, until=lambda: described(kernel, button, "Cancelled"))
    assert described(kernel, button, "Cancelled"), "the click waited for the busy cell"
    assert not kernel.idle(busy)


def test_building_a_client_opens_one_widget_comm(kernel: LiveKernel) -> None:
    """On ipykernel 7 the first client opens one widget comm (a Layout) at once; a second client opens none."""
    layouts = [m for m in kernel.messages if m["msg_type"] == "comm_open"
               and m["content"]["data"].get("state", {}).get("_model_name") == "LayoutModel"]  # fmt: skip
    assert len(layouts) == 1
    kernel.run("second = gk.Client(base_url=client.base_url, api_key='sk-bf-offline-demo-0000000000000000')")
    again = [m for m in kernel.messages if m["msg_type"] == "comm_open"]
    assert len(again) == 1
