"""Jobs and batches in a real kernel, read message by message as a front end reads them.

A displayed job updates its output after its cell ended (nbclient would drop
those updates), a blocking ``job.wait()`` handles a Cancel click and an
interrupt, and ``client.map`` sends a throttled live view ending in a summary.
The offline gateway runs here at time scale 0.5 so jobs take a few seconds; the
tests that must act while a job runs (interrupt, Cancel) use a second gateway at
time scale 5, so the job is still running however slowly a busy machine gets there.
Such a job takes about twenty seconds; what a test checks of its end (it completes,
its card becomes the player) is checked by the module's last test, for all of them
at once: the slow gateway runs their jobs side by side, so the twenty seconds pass
once (``ends_to_check``). Every wait is for a condition, and says what it waited
for when it gives up.
"""

from __future__ import annotations

import time
from typing import Any, Callable, Iterator

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
def slow_gateway() -> Iterator[Any]:
    """Jobs here take about twenty seconds: long enough to be interrupted or cancelled while they run."""
    from gatewaykit import emulator

    with emulator.start(time_scale=5) as running:
        yield running


@pytest.fixture(scope="module")
def ends_to_check() -> list[tuple[str, Callable[[], None]]]:
    """(what, check) of slow jobs' ends, run by the module's last test (see the module's docstring)."""
    return []


@pytest.fixture(scope="module")
def kernel(gateway: Any, slow_gateway: Any) -> Iterator[LiveKernel]:
    live = LiveKernel()
    try:
        live.run(f"import gatewaykit as gk\nclient = gk.Client(base_url={gateway.base_url!r}, api_key={gateway.api_key!r})\n"
                 f"slow_client = gk.Client(base_url={slow_gateway.base_url!r}, api_key={slow_gateway.api_key!r})")
        yield live
    finally:
        live.close()


def job_status(gateway: Any, job_id: str) -> str:
    answer = httpx.get(f"{gateway.base_url}/v1/videos/{job_id}", headers={"Authorization": f"Bearer {gateway.api_key}"},
                       timeout=60)
    return answer.json()["status"]


def wait_for_status(gateway: Any, job_id: str, wanted: Any, seconds: float = 180) -> str:
    """The job's status once ``wanted(status)``; AssertionError naming the last status after ``seconds``."""
    deadline = time.monotonic() + seconds
    while not wanted(status := job_status(gateway, job_id)):
        assert time.monotonic() < deadline, f"waited {seconds:g} s for job {job_id}; it is still {status}"
        time.sleep(0.1)
    return status


def interrupt_once_waiting(kernel: LiveKernel, msg_id: str) -> None:
    """Interrupt the kernel once the cell's card shows and has been updated (its wait is under way)."""
    kernel.wait_for(lambda: bool(kernel.html_of(msg_id)), "the job's card")
    kernel.wait_for(lambda: kernel.updates_of(msg_id) >= 1, "a first update of the job's card")
    kernel.manager.interrupt_kernel()
    kernel.wait_for(lambda: kernel.idle(msg_id), "the interrupted cell to end")


def finished_html(kernel: LiveKernel, msg_id: str, marker: str, timeout: float = 180) -> str:
    kernel.wait_for(lambda: any(marker in html for html in kernel.html_of(msg_id)),
                    f"{marker} in the cell's output; it shows {kernel.html_of(msg_id)[-1:]!r}", timeout)
    html = kernel.html_of(msg_id)
    assert html and marker in html[0], html
    return html[0]


def test_job_as_last_line_is_live_and_becomes_a_video_player(kernel: LiveKernel) -> None:
    """`job` as a cell's last line returns at once, then its output updates in place into a <video> player."""
    msg_id = kernel.run("job = client.videos.create(model='video-range', prompt='the tide', duration=2)\njob")
    first = [m["content"]["data"]["text/html"] for m in kernel.of(msg_id, "display_data") if "text/html" in m["content"]["data"]]
    assert len(first) == 1 and "Running in the background" in first[0] and "<video" not in first[0]
    html = finished_html(kernel, msg_id, "<video")
    assert 'data-status="completed"' in html and "Running in the background" not in html
    assert len(kernel.of(msg_id, "update_display_data")) >= 2


def test_music_job_as_last_line_becomes_an_audio_player(kernel: LiveKernel) -> None:
    """A music job as the last line ends, live, as an <audio> player."""
    msg_id = kernel.run("song = client.music.create(model='music-song', prompt='folk',"
                        " lyrics_prompt='[Verse]\\nla la\\n[Chorus]\\noh')\nsong")
    assert 'data-status="completed"' in finished_html(kernel, msg_id, "<audio")


def test_redisplaying_a_finished_job_shows_the_player(kernel: LiveKernel) -> None:
    """Displaying the (now finished) job again in a later cell shows its player, not 'queued'."""
    kernel.run("job.wait(timeout=180);")
    msg_id = kernel.run("job")
    html = kernel.html_of(msg_id)
    assert len(html) == 1 and "<video" in html[0] and 'data-status="completed"' in html[0]


def test_redisplaying_a_running_job_shows_its_state_now(
        kernel: LiveKernel, slow_gateway: Any, ends_to_check: list[Any]) -> None:
    """A job created earlier and displayed later shows its current status, not the one it was created with."""
    created = kernel.run("later = slow_client.videos.create(model='video-range', prompt='clouds', duration=2)\n"
                         "print(later.id)")
    wait_for_status(slow_gateway, kernel.text(created).strip(), lambda status: status != "queued")
    msg_id = kernel.run("later")
    first = [m["content"]["data"]["text/html"] for m in kernel.of(msg_id, "display_data") if "text/html" in m["content"]["data"]]
    assert 'data-status="queued"' not in first[0]
    ends_to_check.append(("the redisplayed running job's card ends as its player",
                          lambda: finished_html(kernel, msg_id, "<video")))


def quiet_lines(kernel: LiveKernel, msg_id: str) -> list[str]:
    """The plain text of the cell's quiet-stop lines (one dim line of ordinary output each)."""
    shown = [m["content"]["data"] for m in kernel.of(msg_id, "display_data")]
    return [data["text/plain"] for data in shown if "gk-quiet-stop" in data.get("text/html", "")]


def test_interrupting_a_wait_ends_the_cell_with_one_dim_line_not_an_error(
        kernel: LiveKernel, slow_gateway: Any, ends_to_check: list[Any]) -> None:
    """The stop button during job.wait() is a choice, not a failure: no error output (JupyterLab draws those on its
    pale red background) but one dim line saying the job keeps running and how to pick it up (once in the cell);
    the cell still fails, so a queued cell (Run All) does not run; %tb shows the traceback; the job goes on."""
    kernel.run("slow = slow_client.videos.create(model='video-range', prompt='a slow sunrise', duration=2)")
    msg_id = kernel.execute("slow.wait()")
    queued = kernel.execute("print('the next cell ran')")  # Run All: already queued behind the waiting cell
    interrupt_once_waiting(kernel, msg_id)
    kernel.wait_for(lambda: kernel.idle(queued), "the queued cell to be aborted")
    assert kernel.of(msg_id, "error") == []
    (line,) = quiet_lines(kernel, msg_id)
    assert line.startswith("Stopped waiting for video job video_") and "keeps running on the gateway" in line
    assert "Run All stops here" in line and line.endswith(".wait()") and "client.videos.retrieve('video_" in line
    html = "".join(kernel.html_of(msg_id))
    assert html.count("client.videos.retrieve(") == 1  # the card says it stopped; the line how to resume
    assert html.count("keeps running") == 1 and html.count("Stopped waiting") == 1  # said once, on the line
    card = kernel.html_of(msg_id)[0]
    assert "This card no longer updates." in card and "gk-progress" not in card
    assert "the next cell ran" not in kernel.text(queued)  # the kernel aborted it: the stopped cell failed
    full = "\n".join("\n".join(m["content"]["traceback"]) for m in kernel.of(kernel.run("%tb"), "error"))
    assert "WaitInterrupted" in full and "job_wait.py" in full  # %tb still shows every frame
    job_id = kernel.text(kernel.run("print(slow.id)")).strip()
    assert job_status(slow_gateway, job_id) in ("queued", "in_progress")  # not cancelled by the interrupt

    def completes() -> None:  # the job goes on: picked up again as the dim line says, it completes
        check = kernel.run(f"print(slow_client.videos.retrieve({job_id!r}).wait(timeout=180).status)")
        said = kernel.text(check).strip() or [(m["content"]["ename"], m["content"]["evalue"]) for m in kernel.of(check, "error")]
        assert said == "completed" and job_status(slow_gateway, job_id) == "completed"

    ends_to_check.append(("the job whose wait was interrupted completes", completes))


def test_interrupting_join_stops_waiting_not_the_view(kernel: LiveKernel, ends_to_check: list[Any]) -> None:
    """progress.join() interrupted: one dim line (no error output) saying the card keeps following; the background
    view still ends as the player."""
    kernel.run("from gatewaykit.notebook import show_progress\n"
               "joined = slow_client.videos.create(model='video-range', prompt='a slow tide', duration=2)")
    msg_id = kernel.execute("progress = show_progress(joined)\nprogress.join()")
    interrupt_once_waiting(kernel, msg_id)
    assert kernel.of(msg_id, "error") == []
    (line,) = quiet_lines(kernel, msg_id)
    assert "the card above keeps following it" in line and ".wait()" in line
    following = kernel.text(kernel.run("print(progress.done or progress.thread.is_alive())")).strip()
    assert following == "True", "the view stopped following the job when join() was interrupted"
    ends_to_check.append(("the joined job's card, still followed, ends as its player",
                          lambda: finished_html(kernel, msg_id, "<video")))


def test_cancel_click_during_a_blocking_wait_cancels_the_job(kernel: LiveKernel, slow_gateway: Any) -> None:
    """A Cancel click while job.wait() blocks is handled while it blocks: the wait ends, the job is cancelled."""
    msg_id = kernel.execute("doomed = slow_client.videos.create(model='video-range', prompt='never mind', duration=2)\n"
                            "doomed.wait()")
    known = set(kernel.button_ids())
    kernel.wait_for(lambda: bool(set(kernel.button_ids()) - known), "the job card's Cancel button")
    buttons = sorted(set(kernel.button_ids()) - known)
    assert len(buttons) == 1
    kernel.wait_for(lambda: kernel.updates_of(msg_id) >= 1, "a first update of the job's card (the wait is polling)")
    kernel.click(buttons[0])
    kernel.wait_for(lambda: kernel.idle(msg_id), "the wait to end after the Cancel click")
    assert 'data-status="cancelled"' in kernel.html_of(msg_id)[0]  # a job this slow was still running
    check = kernel.run("print(doomed.id)")
    assert job_status(slow_gateway, kernel.text(check).strip()) == "cancelled"


def test_cells_sent_during_a_blocking_wait_run_after_it(kernel: LiveKernel) -> None:
    """A cell queued while job.wait() blocks (and pumps widget events) runs after it, in order."""
    waiting = kernel.execute("queued_job = client.music.create(model='music-song', prompt='calm',"
                             " lyrics_prompt='[Verse]\\nhm\\n[Chorus]\\nah')\nqueued_job.wait(); print('waited')")
    kernel.wait_for(lambda: bool(kernel.html_of(waiting)), "the music job's card (the wait has begun)")
    after = kernel.execute("print('after', queued_job.status)")
    kernel.wait_for(lambda: kernel.idle(after), "the queued cell to run")
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


def test_the_slow_jobs_end_as_the_tests_above_expect(ends_to_check: list[tuple[str, Callable[[], None]]]) -> None:
    """Last in the module: the ends of the slow jobs the tests above started, checked together (their jobs ran
    side by side on the slow gateway meanwhile)."""
    if not ends_to_check:
        pytest.skip("no test above started a slow job (run alone, or they failed first)")
    failed = []
    for what, check in ends_to_check:
        try:
            check()
        except AssertionError as error:
            failed.append(f"{what}: {error}")
    assert not failed, "\n".join(failed)
