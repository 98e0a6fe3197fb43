"""``client.evaluate`` in a real kernel: the grid fills while the cells run and a saved notebook keeps it static, once.

The offline gateway runs at time scale 1, so image cells take a second or so:
the grid is on screen (cells waiting or running) before any has finished. The
tests read every IOPub message as a front end does, and wait for conditions.
"""

from __future__ import annotations

import re
from typing import Any, Iterator

import pytest
from kernel_runner import html_outputs, run_notebook
from live_kernel import LiveKernel

pytestmark = pytest.mark.slow

_CELL = re.compile(r'class="gk-eval-cell" data-model="([^"]*)" data-case="([^"]*)" data-state="([^"]*)"')
CASES = "['a fox in snow', 'a lighthouse at dusk']"


@pytest.fixture(scope="module")
def gateway() -> Iterator[Any]:
    from gatewaykit import emulator

    with emulator.start(time_scale=1) as running:
        yield running


def states(html: str) -> list[str]:
    return [state for _, _, state in _CELL.findall(html)]


def test_the_grid_fills_live_and_ends_static_once(gateway: Any) -> None:
    """First the grid with no cell done, then the image cells finishing, then the final grid shown once."""
    live = LiveKernel()
    try:
        live.run(f"import gatewaykit as gk\nclient = gk.Client(base_url={gateway.base_url!r}, api_key={gateway.api_key!r})")
        msg_id = live.run(f"ev = client.evaluate({CASES}, models=['image-pixels', 'image-aspect'],"
                          " scorers=[lambda output, case: len(output.data) == 1])")
        assert not live.of(msg_id, "error"), live.of(msg_id, "error")
        shown = [m["content"]["data"].get("text/html", "") for m in live.of(msg_id, "display_data", "update_display_data")
                 if "gk-evaluation" in m["content"]["data"].get("text/html", "")]
        assert "done" not in states(shown[0]) and len(states(shown[0])) == 4
        assert set(states(shown[-1])) == {"done"} and "gk-eval-summary" in shown[-1] and "<img" in shown[-1]
        assert len(live.html_of(msg_id)) == 1
    finally:
        live.close()


def test_a_saved_notebook_keeps_the_final_grid_once(gateway: Any) -> None:
    """nbclient (what nbconvert runs) saves the static grid once for `client.evaluate(...)` as the last line."""
    nb = run_notebook([
        f"import gatewaykit as gk\nclient = gk.Client(base_url={gateway.base_url!r}, api_key={gateway.api_key!r})",
        "client.evaluate(['What is SSE?', 'Name a river'], models=['chat-mini', 'chat-vision'])",
    ])  # fmt: skip
    saved = [html for html in html_outputs(nb.cells[1]) if "gk-evaluation" in html]
    assert len(saved) == 1, saved
    assert set(states(saved[0])) == {"done"} and "gk-eval-summary" in saved[0]


def test_chat_cells_stream_their_text_while_they_run(gateway: Any) -> None:
    """Some update shows a chat cell still running with part of its answer; the last shows every cell done."""
    live = LiveKernel()
    try:
        live.run(f"import gatewaykit as gk\nclient = gk.Client(base_url={gateway.base_url!r}, api_key={gateway.api_key!r})")
        msg_id = live.run("ev = client.evaluate(['Explain server-sent events'], models=['chat-vision', 'chat-reasoner'])")
        assert not live.of(msg_id, "error"), live.of(msg_id, "error")
        shown = [m["content"]["data"].get("text/html", "") for m in live.of(msg_id, "display_data", "update_display_data")
                 if "gk-evaluation" in m["content"]["data"].get("text/html", "")]
        running_text = re.compile(r'data-state="running"[^>]*><div class="gk-eval-text"[^>]*>[^<]+')
        assert any(running_text.search(html) for html in shown), [states(html) for html in shown]
        assert set(states(shown[-1])) == {"done"}
    finally:
        live.close()
