"""Jobs and batches in a real kernel, read message by message as a front end reads them.

A displayed job updates its output after its cell ended (nbclient would drop
those updates), a blocking ``job.wait()`` handles a Cancel click and an
interrupt, and ``client.map`` sends a throttled live view ending in a summary.
The offline gateway runs here at time scale 0.5 so jobs take a few seconds.
"""

from __future__ import annotations

import time
from typing import Any, Iterator

import httpx
import pytest
from live_kernel import LiveKernel

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def gateway() -> Iterator[Any]:
    from gatewaykit import emulator

    with emulator.start(time_scale=0.5) as running:
        yield running


@pytest.fixture(scope="module")
def kernel(gateway: Any) -> Iterator[LiveKernel]:
    live = LiveKernel()
    try:
        live.run(f"import gatewaykit as gk\nclient = gk.Client(base_url={gateway.base_url!r}, api_key={gateway.api_key!r})")
        yield live
    finally:
        live.close()


def job_status(gateway: Any, job_id: str) -> str:
    answer = httpx.get(f"{gateway.base_url}/v1/videos/{job_id}", headers={"Authorization": f"Bearer {gateway.api_key}"})
    return answer.json()["status"]


def finished_html(kernel: LiveKernel, msg_id: str, marker: str, timeout: float = 40) -> str:
    kernel.pump(timeout, until=lambda: any(marker in html for html in kernel.html_of(msg_id)))
    html = kernel.html_of(msg_id)
    assert html and marker in html[0], html
    return html[0]


def test_job_as_last_line_is_live_and_becomes_a_video_player(kernel: LiveKernel) -> None:
    """`job` as a cell's last line returns at once, then its output updates in place into a <video> player."""
    msg_id = kernel.run("job = client.videos.create(model='video-range', prompt='the tide', duration=2)\njob", timeout=15)
    first = [m["content"]["data"]["text/html"] for m in kernel.of(msg_id, "display_data") if "text/html" in m["content"]["data"]]
    assert len(first) == 1 and "Running in the background" in first[0] and "<video" not in first[0]
    html = finished_html(kernel, msg_id, "<video")
    assert 'data-status="completed"' in html and "Running in the background" not in html
    assert len(kernel.of(msg_id, "update_display_data")) >= 2


def test_music_job_as_last_line_becomes_an_audio_player(kernel: LiveKernel) -> None:
    """A music job as the last line ends, live, as an <audio> player."""
    msg_id = kernel.run("song = client.music.create(model='music-song', prompt='folk',"
                        " lyrics_prompt='[Verse]\\nla la\\n[Chorus]\\noh')\nsong", timeout=15)
    assert 'data-status="completed"' in finished_html(kernel, msg_id, "<audio")


def test_redisplaying_a_finished_job_shows_the_player(kernel: LiveKernel) -> None:
    """Displaying the (now finished) job again in a later cell shows its player, not 'queued'."""
    kernel.run("job.wait(timeout=60);")
    msg_id = kernel.run("job")
    html = kernel.html_of(msg_id)
    assert len(html) == 1 and "<video" in html[0] and 'data-status="completed"' in html[0]


def test_redisplaying_a_running_job_shows_its_state_now(kernel: LiveKernel) -> None:
    """A job created earlier and displayed later shows its current status, not the one it was created with."""
    kernel.run("later = client.videos.create(model='video-range', prompt='clouds', duration=4)")
    time.sleep(1.5)
    msg_id = kernel.run("later", timeout=15)
    first = [m["content"]["data"]["text/html"] for m in kernel.of(msg_id, "display_data") if "text/html" in m["content"]["data"]]
    assert 'data-status="queued"' not in first[0]
    finished_html(kernel, msg_id, "<video")


def test_interrupting_a_wait_leaves_a_note_and_one_line(kernel: LiveKernel, gateway: Any) -> None:
    """The stop button during job.wait(): one quiet line, the resume call once (on the card), the job goes on."""
    kernel.run("slow = client.videos.create(model='video-range', prompt='a slow sunrise', duration=12)")
    msg_id = kernel.execute("slow.wait()")
    kernel.pump(10, until=lambda: bool(kernel.html_of(msg_id)))
    kernel.pump(1.0)
    kernel.manager.interrupt_kernel()
    kernel.pump(15, until=lambda: kernel.idle(msg_id))
    errors = kernel.of(msg_id, "error")
    assert len(errors) == 1 and errors[0]["content"]["ename"] == "WaitInterrupted"
    traceback = errors[0]["content"]["traceback"]
    assert len(traceback) == 1 and "card above" in traceback[0] and "retrieve(" not in traceback[0]
    html = kernel.html_of(msg_id)[0]
    assert "Stopped waiting" in html and ".wait()" in html and "gk-progress" not in html
    check = kernel.run("print(client.videos.retrieve(slow.id).wait(timeout=60).status, slow.id)")
    status, job_id = kernel.text(check).split()
    assert status == "completed" and job_status(gateway, job_id) == "completed"


def test_interrupting_join_stops_waiting_not_the_view(kernel: LiveKernel) -> None:
    """progress.join() interrupted: one line, and the background view still ends as the player."""
    kernel.run("from gatewaykit.notebook import show_progress\n"
               "joined = client.videos.create(model='video-range', prompt='a slow tide', duration=12)")
    msg_id = kernel.execute("progress = show_progress(joined)\nprogress.join()")
    kernel.pump(10, until=lambda: bool(kernel.html_of(msg_id)))
    kernel.pump(1.0)
    kernel.manager.interrupt_kernel()
    kernel.pump(15, until=lambda: kernel.idle(msg_id))
    errors = kernel.of(msg_id, "error")
    assert len(errors) == 1 and len(errors[0]["content"]["traceback"]) == 1
    finished_html(kernel, msg_id, "<video")


def test_cancel_click_during_a_blocking_wait_cancels_the_job(kernel: LiveKernel, gateway: Any) -> None:
    """A Cancel click while job.wait() blocks is handled at once: the wait ends and the gateway has cancelled it."""
    msg_id = kernel.execute("doomed = client.videos.create(model='video-range', prompt='never mind', duration=12)\n"
                            "doomed.wait()")
    known = set(kernel.button_ids())
    kernel.pump(15, until=lambda: bool(set(kernel.button_ids()) - known))
    buttons = sorted(set(kernel.button_ids()) - known)
    assert len(buttons) == 1
    kernel.pump(0.5)
    clicked = time.monotonic()
    kernel.click(buttons[0])
    kernel.pump(10, until=lambda: kernel.idle(msg_id))
    assert kernel.idle(msg_id) and time.monotonic() - clicked < 5
    assert 'data-status="cancelled"' in kernel.html_of(msg_id)[0]
    check = kernel.run("print(doomed.id)")
    assert job_status(gateway, kernel.text(check).strip()) == "cancelled"


def test_cells_sent_during_a_blocking_wait_run_after_it(kernel: LiveKernel) -> None:
    """A cell queued while job.wait() blocks (and pumps widget events) runs after it, in order."""
    waiting = kernel.execute("queued_job = client.music.create(model='music-song', prompt='calm',"
                             " lyrics_prompt='[Verse]\\nhm\\n[Chorus]\\nah')\nqueued_job.wait(); print('waited')")
    kernel.pump(1.0)
    after = kernel.execute("print('after', queued_job.status)")
    kernel.pump(40, until=lambda: kernel.idle(after))
    assert kernel.text(waiting).strip() == "waited" and kernel.text(after).strip() == "after completed"
    order = [m["parent_header"].get("msg_id") for m in kernel.messages if m["msg_type"] == "execute_input"]
    assert order.index(waiting) < order.index(after)


def test_batch_shows_throttled_live_progress_then_a_summary(kernel: LiveKernel) -> None:
    """client.map in a kernel: one live output updated at most ~10 times/s, ending in a static summary."""
    code = ("import time\n"
            "def slow(i):\n    time.sleep(0.3)\n    if i == 5:\n        raise ValueError('five')\n    return i\n"
            "started = time.monotonic(); results = client.map(slow, range(16), concurrency=2)\n"
            "print(round(time.monotonic() - started, 2))")
    msg_id = kernel.run(code)
    elapsed = float(kernel.text(msg_id))
    shown = kernel.of(msg_id, "display_data")
    updates = kernel.of(msg_id, "update_display_data")
    assert len(shown) == 1 and "gk-batch" in shown[0]["content"]["data"]["text/html"]
    assert 1 <= len(updates) <= elapsed * 10 + 2
    final = updates[-1]["content"]["data"]["text/plain"]
    assert "16 of 16 done" in final and "1 failed" in final and "left" not in final


def test_quick_batch_shows_only_its_summary(kernel: LiveKernel) -> None:
    """A batch that ends at once shows one static summary, no live view."""
    msg_id = kernel.run("client.batch([lambda: 1, lambda: 2, lambda: 3]);")
    outputs = kernel.of(msg_id, "display_data", "update_display_data")
    assert len(outputs) == 1 and outputs[0]["msg_type"] == "display_data"
    assert outputs[0]["content"]["data"]["text/plain"] == "✓ 3 requests: 3 of 3 done"


def test_headless_run_keeps_a_first_view_of_a_displayed_job() -> None:
    """nbclient (as nbconvert) keeps the first view of `job`: it says the job runs in the background and how to block."""
    from kernel_runner import html_outputs, run_notebook

    executed = run_notebook([
        "import gatewaykit as gk\ngateway = gk.emulator.start(time_scale=1)\n"
        "client = gk.Client(base_url=gateway.base_url, api_key=gateway.api_key)\n"
        "job = client.videos.create(model='video-range', prompt='a slow sunrise', duration=12)\njob",
        "job.cancel(); gateway.stop()",
    ])
    html = html_outputs(executed.cells[0])
    assert len(html) == 1 and "<video" not in html[0]
    assert "Running in the background" in html[0] and "job.wait()" in html[0]
