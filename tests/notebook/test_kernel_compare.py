"""``client.compare`` in a real kernel: the grid shows at once and each column fills while the others run.

The offline gateway runs at time scale 1 here, so answers stream over a few
seconds: chat-vision's short answer ends well before chat-reasoner, which
thinks first. The tests read every IOPub message as a front end does (display
updates applied by id), and wait for conditions, never for fixed times.
"""

from __future__ import annotations

import re
from typing import Any, Iterator

import pytest
from kernel_runner import html_outputs, run_notebook
from live_kernel import LiveKernel

pytestmark = pytest.mark.slow

_COLUMN = re.compile(r'class="gk-compare-column" data-model="([^"]*)" data-state="([^"]*)"')
PROMPT = "Explain server-sent events"


@pytest.fixture(scope="module")
def gateway() -> Iterator[Any]:
    from gatewaykit import emulator

    with emulator.start(time_scale=1) as running:
        yield running


@pytest.fixture(scope="module")
def kernel(gateway: Any) -> Iterator[LiveKernel]:
    live = LiveKernel()
    try:
        live.run(f"import gatewaykit as gk\nclient = gk.Client(base_url={gateway.base_url!r}, api_key={gateway.api_key!r})")
        yield live
    finally:
        live.close()


def grids(kernel: LiveKernel, msg_id: str) -> list[str]:
    """Every state of the cell's comparison grid, in the order the front end received them."""
    return [m["content"]["data"].get("text/html", "") for m in kernel.of(msg_id, "display_data", "update_display_data")
            if "gk-comparison" in m["content"]["data"].get("text/html", "")]


def states(html: str) -> dict[str, str]:
    return dict(_COLUMN.findall(html))


@pytest.fixture(scope="module")
def fast_and_slow(kernel: LiveKernel) -> tuple[str, list[str]]:
    """One comparison of a fast and a slow chat model, run to its end: its msg_id and its grid's states."""
    msg_id = kernel.run(f"result = client.compare({PROMPT!r}, models=['chat-vision', 'chat-reasoner'])")
    assert not kernel.of(msg_id, "error"), kernel.of(msg_id, "error")
    return msg_id, grids(kernel, msg_id)


def test_the_grid_shows_every_model_before_any_has_answered(fast_and_slow: tuple[str, list[str]]) -> None:
    """The first display is the grid with one column per model, none of them finished."""
    _, shown = fast_and_slow
    first = states(shown[0])
    assert list(first) == ["chat-vision", "chat-reasoner"]
    assert set(first.values()) <= {"waiting", "running"}, first


def test_a_chat_column_streams_its_answer_while_it_runs(fast_and_slow: tuple[str, list[str]]) -> None:
    """Some update shows chat-vision still running with part of its answer in the live chat view."""
    _, shown = fast_and_slow
    streaming = [html for html in shown if states(html).get("chat-vision") == "running" and '<div class="gk-answer"><' in
                 html.split('data-model="chat-vision"')[1].split('data-model="chat-reasoner"')[0]]
    assert streaming, "no update showed chat-vision's answer while it was still running"


def test_the_fast_column_is_final_while_the_slow_one_still_runs(fast_and_slow: tuple[str, list[str]]) -> None:
    """An update shows chat-vision done (latency, tokens, cost) while chat-reasoner is still running."""
    _, shown = fast_and_slow
    both = [html for html in shown if states(html) == {"chat-vision": "done", "chat-reasoner": "running"}]
    assert both, f"no update with chat-vision done and chat-reasoner running: {[states(h) for h in shown]}"
    fast = both[0].split('data-model="chat-vision"')[1].split('data-model="chat-reasoner"')[0]
    assert "tokens" in fast and "$" in fast


def test_the_grid_ends_as_the_static_comparison_shown_once(kernel: LiveKernel, fast_and_slow: tuple[str, list[str]]) -> None:
    """The last state is the Comparison's own grid with its marks; `result` in the same cell adds no second grid."""
    msg_id, shown = fast_and_slow
    assert set(states(shown[-1]).values()) == {"done"}
    assert "fastest" in shown[-1] and "cheapest" in shown[-1] and "in all:" in shown[-1]
    assert len(kernel.html_of(msg_id)) == 1


def test_a_failing_column_shows_its_error_and_the_other_its_image(kernel: LiveKernel) -> None:
    """A width only one image model rejects: that column shows the error, the other its picture."""
    msg_id = kernel.run("broken = client.compare('a red balloon', models=['image-pixels', 'image-aspect'],"
                        " width=99999, height=64)")
    last = grids(kernel, msg_id)[-1]
    assert states(last) == {"image-pixels": "failed", "image-aspect": "done"}
    failed, fine = last.split('data-model="image-aspect"')
    assert "<img" not in failed.split('data-model="image-pixels"')[1] and "<img" in fine


def test_a_music_column_shows_its_job_card_then_the_player(kernel: LiveKernel) -> None:
    """While the song is made its column shows the job's progress card; it ends as an audio player."""
    msg_id = kernel.run("song = client.compare('upbeat synth pop', models=['music-song'],"
                        " lyrics_prompt='[Verse]\\nla la\\n[Chorus]\\noh')")
    shown = grids(kernel, msg_id)
    assert any(states(html) == {"music-song": "running"} and 'class="gk-job"' in html for html in shown), \
        [states(html) for html in shown]
    assert states(shown[-1]) == {"music-song": "done"} and "<audio" in shown[-1]


def test_the_async_client_fills_the_grid_live_too(kernel: LiveKernel, gateway: Any) -> None:
    """`await aclient.compare(...)`: the grid shows while the tasks run and ends static, once."""
    kernel.run(f"aclient = gk.AsyncClient(base_url={gateway.base_url!r}, api_key={gateway.api_key!r})")
    msg_id = kernel.run(f"answers = await aclient.compare({PROMPT!r}, models=['chat-vision', 'chat-reasoner'])")
    shown = grids(kernel, msg_id)
    assert any("running" in states(html).values() for html in shown), [states(html) for html in shown]
    assert set(states(shown[-1]).values()) == {"done"} and len(kernel.html_of(msg_id)) == 1


def test_a_saved_notebook_keeps_the_final_grid_once(gateway: Any) -> None:
    """nbclient (what nbconvert runs) saves the static grid, once, for `client.compare(...)` as the last line."""
    nb = run_notebook([
        f"import gatewaykit as gk\nclient = gk.Client(base_url={gateway.base_url!r}, api_key={gateway.api_key!r})",
        f"client.compare({PROMPT!r}, models=['chat-mini', 'chat-vision'])",
    ])  # fmt: skip
    saved = [html for html in html_outputs(nb.cells[1]) if "gk-comparison" in html]
    assert len(saved) == 1, saved
    assert set(states(saved[0]).values()) == {"done"} and "fastest" in saved[0]
