"""The notebook layer in Jupyter Notebook 7 + headless Chromium (Playwright).

One notebook runs against an offline gateway started here (time scale 0.3):
a streamed chat answer, an image, and a music job waited for with
``job.wait()``. Screenshots go to ``test-artifacts/browser/notebook7-*.png``.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any, Iterator

import httpx
import pytest
from jupyter_browser import NotebookPage, expect
from jupyter_testbed import JupyterTestbed

pytestmark = [
    pytest.mark.browser,
    pytest.mark.slow,
]

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "browser"

CELLS = {
    "setup": "import gatewaykit as gk\nclient = gk.Client(base_url={base_url!r}, api_key={api_key!r})",
    "chat": "client.chat.ask('Explain event loops with a comparison table and python code', model='chat-mini')",
    "image": "client.images.generate(model='image-pixels', prompt='a red fox in snow', width=256, height=256)",
    "music": "song = client.music.create(model='music-song', prompt='folk, guitar',"
             " lyrics_prompt='[Verse]\\nsmall lights on the water\\n[Chorus]\\nhome again')\n"
             "song.wait()",
    "lastline": "clip = client.videos.create(model='video-tiers', prompt='a lighthouse at night', duration=4,"
                " resolution='480p')\nclip",
    "blocking": "slow_client = gk.Client(base_url={slow_url!r}, api_key={slow_key!r})\n"
                "long = slow_client.videos.create(model='video-range', prompt='a long sunset', duration=12)\n"
                "long.wait()",
}  # fmt: skip
ORDER = list(CELLS)


@pytest.fixture(scope="module")
def slow() -> Iterator[Any]:
    """A second offline gateway whose jobs take long enough to be cancelled by hand."""
    from gatewaykit import emulator as gateway

    with gateway.start(time_scale=4) as running:
        yield running


def index(name: str) -> int:
    return ORDER.index(name)


@pytest.fixture(scope="module")
def page(jupyter_testbed: JupyterTestbed, slow: Any) -> Iterator[NotebookPage]:
    from gatewaykit import emulator as gateway

    folder = jupyter_testbed.folder("notebook", "notebook7")
    with gateway.start(time_scale=0.3) as running:
        cells = [cell.format(base_url=running.base_url, api_key=running.api_key, slow_url=slow.base_url,
                             slow_key=slow.api_key) for cell in CELLS.values()]
        folder.write_notebook("demo.ipynb", cells)
        with jupyter_testbed.open_notebook(folder, "demo.ipynb", ARTIFACTS) as notebook:
            assert notebook.page.locator("#jp-top-panel, .jp-NotebookPanel").count() >= 1
            notebook.run_and_wait(index("setup"))
            yield notebook


def answer_text(page: NotebookPage) -> str:
    """The answer's text (while streaming it spans several outputs, one per finished part)."""
    return "".join(page.cell(index("chat")).locator(".gk-answer").all_inner_texts())


def test_is_notebook_7(page: NotebookPage) -> None:
    """The page is Notebook 7's single-document notebook view, not JupyterLab."""
    assert f"/notebooks/{page.path}" in page.page.url and page.path.endswith("/demo.ipynb")
    assert page.page.locator(".jp-LabShell").count() == 0


GROWTH_RECORDER = """(index) => {
    // Each length the answer's text takes, recorded in the page as the DOM changes: on a busy
    // machine Playwright's own polling can miss updates the front end did show.
    const cell = document.querySelectorAll('.jp-Notebook .jp-Cell')[index];
    window.gkLengths = [];
    const record = () => {
        const length = [...cell.querySelectorAll('.gk-answer')].map(n => n.innerText).join('').length;
        if (length !== window.gkLengths[window.gkLengths.length - 1]) window.gkLengths.push(length);
    };
    new MutationObserver(record).observe(cell, {subtree: true, childList: true, characterData: true});
}"""


def test_streamed_answer_grows_then_is_complete(page: NotebookPage) -> None:
    """While streaming, the answer's text grows over several updates; the end state is the static answer."""
    page.page.evaluate(GROWTH_RECORDER, index("chat"))
    page.run(index("chat"))
    deadline, samples = time.monotonic() + 180, 0
    while not page.prompt(index("chat"))[1:-2].strip().isdigit():
        assert time.monotonic() < deadline, "waited 180 s for the chat cell to finish"
        samples += 1
        if samples == 8:
            page.screenshot("notebook7-01-chat-streaming", index("chat"))
        time.sleep(0.1)
    page.screenshot("notebook7-02-chat-final", index("chat"))
    lengths = page.page.evaluate("window.gkLengths")
    growth = [b for a, b in zip(lengths, lengths[1:]) if b > a]
    assert len(growth) >= 5, f"the answer grew in {len(growth)} steps (lengths seen in the page: {lengths})"
    cell = page.cell(index("chat"))
    assert cell.locator(".gk-live").count() == 0 and cell.locator(".gk-chat").count() == 1
    assert cell.locator(".gk-answer table").count() == 1 and cell.locator(".gk-answer pre code").count() >= 1
    assert len(answer_text(page)) >= max(lengths)
    output = page.output_text(index("chat"))
    assert "chat-mini" in output and "$" in output and "streaming…" not in output


def test_image_has_loaded_pixels(page: NotebookPage) -> None:
    """The generated image is decoded by the browser (naturalWidth > 0)."""
    page.run_and_wait(index("image"))
    image = page.cell(index("image")).locator(".gk-images img")
    assert image.count() == 1
    image.scroll_into_view_if_needed()
    page.page.wait_for_function("i => i.complete && i.naturalWidth > 0", arg=image.element_handle(), timeout=180_000)
    page.screenshot("notebook7-03-image", index("image"))


def test_job_wait_ends_as_a_playable_audio_player(page: NotebookPage) -> None:
    """job.wait() shows progress while it blocks and ends as one <audio> player the browser can play."""
    page.run(index("music"))
    page.page.wait_for_selector(".gk-job", timeout=180_000)
    page.screenshot("notebook7-04-music-progress", index("music"))
    page.wait_done(index("music"))
    audio = page.cell(index("music")).locator("audio.gk-audio")
    assert audio.count() == 1
    audio.scroll_into_view_if_needed()
    page.page.wait_for_function("a => a.readyState >= 1 && a.duration > 0", arg=audio.element_handle(), timeout=180_000)
    page.screenshot("notebook7-05-music-player", index("music"))


def test_job_as_last_line_becomes_a_playable_player(page: NotebookPage) -> None:
    """`clip` as a cell's last line shows live progress that turns into a video the browser can play."""
    page.run_and_wait(index("lastline"))
    cell = page.cell(index("lastline"))
    cell.locator(".gk-job").first.wait_for(timeout=180_000)
    page.screenshot("notebook7-06-last-line-progress", index("lastline"))
    cell.locator(".gk-job[data-status='completed'] video.gk-video").wait_for(timeout=180_000)
    video = cell.locator("video.gk-video")
    assert video.count() == 1
    video.scroll_into_view_if_needed()
    page.page.wait_for_function("v => v.readyState >= 1 && v.duration > 0", arg=video.element_handle(), timeout=180_000)
    page.screenshot("notebook7-07-last-line-player", index("lastline"))


def test_cancel_during_a_blocking_wait_cancels_the_job(page: NotebookPage, slow: Any) -> None:
    """Cancel clicked while job.wait() blocks the kernel ends the wait and cancels the job while it runs."""
    page.run(index("blocking"))
    cell = page.cell(index("blocking"))
    button = cell.locator("button.gk-cancel")
    button.wait_for(timeout=180_000)
    job_id = cell.locator(".gk-job").first.get_attribute("data-job-id")
    time.sleep(1.0)
    page.screenshot("notebook7-08-blocking-wait-cancel-button", index("blocking"))
    button.click()
    page.wait_done(index("blocking"))
    cell.locator(".gk-job[data-status='cancelled']").wait_for(timeout=180_000)
    page.screenshot("notebook7-09-blocking-wait-cancelled", index("blocking"))
    answer = httpx.get(f"{slow.base_url}/v1/videos/{job_id}", headers={"Authorization": f"Bearer {slow.api_key}"})
    assert answer.json()["status"] == "cancelled"
    expect(cell.locator("button.gk-cancel")).to_have_count(0, timeout=60_000)  # gone just after the final card
