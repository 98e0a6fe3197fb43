"""The notebook layer in a real browser: JupyterLab 4 + headless Chromium (Playwright).

One notebook runs against an offline gateway started here (time scale 0.6,
so streaming and jobs take visible time). Tests run in order on one page;
screenshots go to ``test-artifacts/browser/``.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any, Iterator

import httpx
import pytest
from jupyter_browser import NotebookPage, expect
from jupyter_testbed import JupyterTestbed, NotebookFolder

pytestmark = [
    pytest.mark.browser,
    pytest.mark.slow,
]

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "browser"

HOSTILE_TOOL_RESULT = (
    "<script>window.__pwned = 'script'</script> "
    "<img src=x onerror=\"window.__pwned = 'img'\"> "
    "[click me](javascript:window.__pwned='link')"
)

CELLS = {
    "setup": "import gatewaykit as gk\nfrom gatewaykit.notebook import show_progress, wait_with_progress, render_stream\n"
             "client = gk.Client(base_url={base_url!r}, api_key={api_key!r})",
    "chat": "client.chat.ask('Explain event loops with a comparison table and python code', model='chat-mini')",
    "hostile": (
        "tools = [{{'type': 'function', 'function': {{'name': 'fetch_page', 'description': 'fetch a page',"
        " 'parameters': {{'type': 'object', 'properties': {{}}}}}}}}]\n"
        "messages = [{{'role': 'user', 'content': 'What does the page say?'}},\n"
        "    {{'role': 'assistant', 'content': None, 'tool_calls': [{{'id': 'call_1', 'type': 'function',"
        " 'function': {{'name': 'fetch_page', 'arguments': '{{}}'}}}}]}},\n"
        "    {{'role': 'tool', 'tool_call_id': 'call_1', 'content': {hostile!r}}}]\n"
        "render_stream(client.chat.completions.create(model='chat-mini', messages=messages, tools=tools, stream=True))"
    ),
    "images": "client.images.generate(model='image-pixels', prompt='a red fox in snow', n=2, width=256, height=256)",
    "video": "job = client.videos.create(model='video-tiers', prompt='waves at dusk', duration=4, resolution='480p')\n"
             "progress = show_progress(job)",
    "next": "print('next cell ran while the job ran:', job.status)",
    "music": "song = client.music.create(model='music-song', prompt='folk, guitar',"
             " lyrics_prompt='[Verse]\\nsmall lights on the water\\n[Chorus]\\nhome again')\n"
             "wait_with_progress(song);",
    "cancel": "slow = gk.Client(base_url={slow_url!r}, api_key={slow_key!r}).videos.create(\n"
              "    model='video-range', prompt='a very slow sunrise', duration=12)\n"  # slow: still running when clicked
              "show_progress(slow);",
    "lastline": "clip = client.videos.create(model='video-tiers', prompt='a lighthouse at night', duration=4,"
                " resolution='480p')\nclip",
    "blocking": "slow_client = gk.Client(base_url={slow_url!r}, api_key={slow_key!r})\n"
                "long = slow_client.videos.create(model='video-range', prompt='a long sunset', duration=12)\n"
                "long.wait()",
    "interrupt": "patient = gk.Client(base_url={slow_url!r}, api_key={slow_key!r}).videos.create(\n"
                 "    model='video-range', prompt='a patient tide', duration=12)\n"
                 "patient.wait()",
    "after_interrupt": "print('the cell after the stop ran')",
    "batch": "import time\n"
             "def slow_square(n):\n    time.sleep(0.4)\n    if n == 7:\n        raise ValueError('seven')\n    return n * n\n"
             "squares = client.map(slow_square, range(12), concurrency=2)",
}
ORDER = list(CELLS)


def index(name: str) -> int:
    return ORDER.index(name)


@pytest.fixture(scope="module")
def lab(jupyter_testbed: JupyterTestbed) -> Iterator[tuple[NotebookFolder, Any]]:
    from gatewaykit import emulator as gateway

    folder = jupyter_testbed.folder("lab", "demo")
    with gateway.start(time_scale=0.6) as running, gateway.start(time_scale=4) as slow:
        cells = [
            template.format(base_url=running.base_url, api_key=running.api_key, hostile=HOSTILE_TOOL_RESULT,
                            slow_url=slow.base_url, slow_key=slow.api_key)
            for template in CELLS.values()
        ]
        folder.write_notebook("demo.ipynb", cells)
        yield folder, slow


@pytest.fixture(scope="module")
def page(lab: tuple[NotebookFolder, Any], jupyter_testbed: JupyterTestbed) -> Iterator[NotebookPage]:
    folder, _ = lab
    with jupyter_testbed.open_notebook(folder, "demo.ipynb", ARTIFACTS) as notebook:
        notebook.run_and_wait(index("setup"))
        yield notebook


def shot(page: NotebookPage, name: str, cell: str | None = None) -> None:
    page.screenshot(name, index(cell) if cell else None)


def answer_text(page: NotebookPage, cell: str) -> str:
    """The answer's text (while streaming it spans several outputs, one per finished part)."""
    answers = page.cell(index(cell)).locator(".gk-answer")
    return "".join(answers.all_inner_texts())


def test_streamed_answer_grows_then_stays_complete(page: NotebookPage) -> None:
    """While streaming, the answer's text grows over several updates; the end state is the static answer."""
    page.run(index("chat"))
    lengths = []
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        lengths.append(len(answer_text(page, "chat")))
        if len(lengths) == 10:
            shot(page, "01-chat-streaming", "chat")
        if page.prompt(index("chat"))[1:-2].strip().isdigit():
            break
        time.sleep(0.1)
    shot(page, "02-chat-final", "chat")
    growth = [b for a, b in zip(lengths, lengths[1:]) if b > a]
    assert len(growth) >= 5, lengths
    output = page.output_text(index("chat"))
    assert "chat-mini" in output and "$" in output and "streaming…" not in output
    assert page.cell(index("chat")).locator(".gk-live").count() == 0
    assert page.cell(index("chat")).locator(".gk-answer table").count() == 1


def test_hostile_model_output_does_not_execute(page: NotebookPage) -> None:
    """<script>, <img onerror> and javascript: links in model output stay inert text."""
    page.run_and_wait(index("hostile"))
    shot(page, "03-hostile", "hostile")
    cell = page.cell(index("hostile"))
    assert "<script>window.__pwned" in cell.locator(".gk-answer").inner_text()
    assert page.page.evaluate("window.__pwned === undefined")
    assert cell.locator(".jp-OutputArea img, .jp-OutputArea script").count() == 0
    assert cell.locator(".jp-OutputArea a[href^='javascript']").count() == 0


def test_images_have_loaded_pixels(page: NotebookPage) -> None:
    """Both generated images are decoded by the browser (naturalWidth > 0)."""
    page.run_and_wait(index("images"))
    images = page.cell(index("images")).locator(".gk-images img")
    assert images.count() == 2
    images.first.scroll_into_view_if_needed()
    page.page.wait_for_function(
        "els => els.every(i => i.complete && i.naturalWidth > 0)", arg=images.element_handles(), timeout=180_000
    )
    shot(page, "04-images", "images")


def test_job_progress_does_not_block_the_next_cell(page: NotebookPage) -> None:
    """The next cell runs while the job is still running; the progress then ends as a playable video."""
    page.run_and_wait(index("video"))
    page.run_and_wait(index("next"))
    assert "next cell ran while the job ran: queued" in page.output_text(index("next")) or (
        "in_progress" in page.output_text(index("next"))
    )
    shot(page, "05-video-progress", "video")
    page.page.wait_for_selector(".gk-job[data-status='completed'] video.gk-video", timeout=180_000)
    video = page.cell(index("video")).locator("video.gk-video")
    video.scroll_into_view_if_needed()
    page.page.wait_for_function("v => v.readyState >= 1 && v.duration > 0", arg=video.element_handle(), timeout=180_000)
    shot(page, "06-video-player", "video")


def test_wait_with_progress_ends_as_audio_player(page: NotebookPage) -> None:
    """A blocking wait shows progress and ends with a playable <audio> player."""
    page.run_and_wait(index("music"))
    audio = page.cell(index("music")).locator("audio.gk-audio")
    audio.scroll_into_view_if_needed()
    page.page.wait_for_function("a => a.readyState >= 1 && a.duration > 0", arg=audio.element_handle(), timeout=180_000)
    shot(page, "07-audio-player", "music")


def test_cancel_button_cancels_the_job(page: NotebookPage) -> None:
    """Clicking the Cancel button cancels the running video job."""
    page.run_and_wait(index("cancel"))
    button = page.cell(index("cancel")).locator("button.gk-cancel")
    button.wait_for(timeout=180_000)
    shot(page, "08-cancel-button", "cancel")
    button.click()
    page.page.wait_for_selector(".gk-job[data-status='cancelled']", timeout=180_000)
    shot(page, "09-cancelled", "cancel")
    expect(page.cell(index("cancel")).locator("button.gk-cancel")).to_have_count(0, timeout=60_000)  # gone just after the final card


def test_job_as_last_line_becomes_a_playable_player(page: NotebookPage) -> None:
    """`clip` as a cell's last line shows live progress that turns into a video the browser can play."""
    page.run_and_wait(index("lastline"))
    cell = page.cell(index("lastline"))
    cell.locator(".gk-job").first.wait_for(timeout=180_000)
    shot(page, "11-last-line-progress", "lastline")
    cell.locator(".gk-job[data-status='completed'] video.gk-video").wait_for(timeout=180_000)
    video = cell.locator("video.gk-video")
    assert video.count() == 1
    video.scroll_into_view_if_needed()
    page.page.wait_for_function("v => v.readyState >= 1 && v.duration > 0", arg=video.element_handle(), timeout=180_000)
    shot(page, "12-last-line-player", "lastline")


def test_cancel_during_a_blocking_wait_cancels_the_job(page: NotebookPage, lab: tuple[NotebookFolder, Any]) -> None:
    """Cancel clicked while job.wait() blocks the kernel ends the wait and cancels the job while it runs."""
    _, slow = lab
    page.run(index("blocking"))
    cell = page.cell(index("blocking"))
    button = cell.locator("button.gk-cancel")
    button.wait_for(timeout=180_000)
    job_id = cell.locator(".gk-job").first.get_attribute("data-job-id")
    time.sleep(1.0)
    shot(page, "13-blocking-wait-cancel-button", "blocking")
    button.click()
    page.wait_done(index("blocking"))
    cell.locator(".gk-job[data-status='cancelled']").wait_for(timeout=180_000)
    shot(page, "14-blocking-wait-cancelled", "blocking")
    answer = httpx.get(f"{slow.base_url}/v1/videos/{job_id}", headers={"Authorization": f"Bearer {slow.api_key}"})
    assert answer.json()["status"] == "cancelled"
    expect(cell.locator("button.gk-cancel")).to_have_count(0, timeout=60_000)  # gone just after the final card


ERROR_OUTPUT = (  # how JupyterLab marks an error output (drawn on its pale red error background)
    '.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stderr"], '
    '.jp-RenderedText[data-mime-type="application/vnd.jupyter.stderr"], .jp-OutputArea-executeResult.jp-mod-error'
)


def test_interrupting_a_wait_ends_the_cell_with_one_dim_line(page: NotebookPage, lab: tuple[NotebookFolder, Any]) -> None:
    """The stop button during job.wait() is a choice, not a failure: the card says the wait stopped, one dim line
    says the job keeps running and how to pick it up, nothing on the error background; Run All stops there."""
    server = lab[0].server
    page.run(index("interrupt"))
    page.run(index("after_interrupt"))  # queued behind the waiting cell, as Run All queues every cell
    cell = page.cell(index("interrupt"))
    cell.locator("button.gk-cancel").wait_for(timeout=180_000)
    time.sleep(1.0)  # the card has painted a few times: a stop mid-wait, as a user's
    kernel_id = page.kernel_id()  # this notebook's (the server is shared with other test files)
    httpx.post(server.url(f"api/kernels/{kernel_id}/interrupt"))  # what the stop button sends
    page.wait_done(index("interrupt"))
    cell.locator(".gk-quiet-stop").wait_for(timeout=180_000)
    deadline = time.monotonic() + 60
    while page.prompt(index("after_interrupt")).startswith("[*]"):  # the kernel aborts it without running it
        assert time.monotonic() < deadline, f"the queued cell is still {page.prompt(index('after_interrupt'))!r}"
        time.sleep(0.05)
    shot(page, "15-interrupted-wait", "interrupt")
    shot(page, "15b-run-all-stopped", "after_interrupt")
    text = page.output_text(index("interrupt"))
    assert cell.locator(ERROR_OUTPUT).count() == 0, "the stop is drawn as an error"
    assert cell.locator(".gk-quiet-stop").count() == 1
    line = cell.locator(".gk-quiet-stop").inner_text()
    assert line.startswith("Stopped waiting for video job video_") and "keeps running on the gateway" in line
    assert text.count("client.videos.retrieve(") == 1 and "retrieve(" in line  # the resume call, once, on the line
    assert "This card no longer updates." in cell.locator(".gk-job").first.inner_text()
    assert text.count("keeps running on the gateway") == 1  # said once, on the quiet line
    assert "KeyboardInterrupt" not in text and "WaitInterrupted" not in text and "Traceback" not in text
    expect(cell.locator("button.gk-cancel")).to_have_count(0, timeout=60_000)  # gone just after the final card
    assert "the cell after the stop ran" not in page.output_text(index("after_interrupt"))


def test_batch_shows_live_progress_then_a_summary(page: NotebookPage) -> None:
    """client.map shows a live bar with done/total while it runs and ends as a one-line summary."""
    page.run(index("batch"))
    cell = page.cell(index("batch"))
    cell.locator(".gk-batch").first.wait_for(timeout=180_000)
    live = cell.locator(".gk-batch").first.inner_text()
    shot(page, "16-batch-live", "batch")
    page.wait_done(index("batch"))
    cell.locator(".gk-batch-done").wait_for(timeout=180_000)
    shot(page, "17-batch-summary", "batch")
    assert " of 12 done" in live
    assert cell.locator(".gk-batch-done").inner_text() == "⚠ 12 requests: 12 of 12 done · 1 failed"


def test_saved_notebook_reopens_with_complete_outputs(page: NotebookPage) -> None:
    """After save and reload, the answer is complete and the players play without a kernel round trip."""
    before = answer_text(page, "chat")
    page.page.keyboard.press("Escape")
    page.page.keyboard.press("Control+s")
    page.page.wait_for_function("() => !document.querySelector('.jp-mod-dirty')", timeout=180_000)
    time.sleep(0.5)
    page.page.reload()
    page.page.wait_for_selector(".jp-Notebook .gk-chat", timeout=180_000)
    assert answer_text(page, "chat") == before
    assert page.page.evaluate("window.__pwned === undefined")
    video = page.cell(index("video")).locator("video.gk-video")
    video.scroll_into_view_if_needed()
    page.page.wait_for_function("v => v.readyState >= 1 && v.duration > 0", arg=video.element_handle(), timeout=180_000)
    audio = page.cell(index("music")).locator("audio.gk-audio")
    page.page.wait_for_function("a => a.readyState >= 1 && a.duration > 0", arg=audio.element_handle(), timeout=180_000)
    shot(page, "10-reopened")
