"""notebooks/09-playground.ipynb in JupyterLab 4 + headless Chromium: the form is used as a person would.

The notebook is opened with its stored outputs cleared; its ``gk.Client()`` finds ``SVC_API_KEY`` and
``SVC_BASE_URL`` (in its kernel's environment, from its folder's kernelspec) pointing at an offline gateway started here (time scale 0.6,
so the video job shows progress for a few seconds). Tests run in order on one
page; screenshots go to ``test-artifacts/browser/playground-*.png``.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Iterator

import nbformat
import pytest
from jupyter_browser import NotebookPage, expect
from jupyter_testbed import JupyterTestbed

pytestmark = [pytest.mark.browser, pytest.mark.slow]

REPO = Path(__file__).resolve().parents[2]
ARTIFACTS = REPO / "test-artifacts" / "browser"
SETUP, PLAYGROUND = 1, 2  # code cells of 09-playground.ipynb (0 and 3 are Markdown; its notes for whoever runs it are comments)


@pytest.fixture(scope="module")
def page(jupyter_testbed: JupyterTestbed) -> Iterator[NotebookPage]:
    from gatewaykit import emulator as gateway

    notebook = nbformat.read(str(REPO / "notebooks" / "09-playground.ipynb"), as_version=4)
    for cell in notebook.cells:  # as a fresh notebook: the sources as stored, no outputs yet
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    with gateway.start(time_scale=0.6) as running:
        # The kernel's environment has these (its folder's kernelspec), as a reader's shell would.
        folder = jupyter_testbed.folder("lab", "playground", env={"SVC_BASE_URL": running.base_url,
                                                                  "SVC_API_KEY": running.api_key})
        folder.adopt("09-playground.ipynb", notebook)
        with jupyter_testbed.open_notebook(folder, "09-playground.ipynb", ARTIFACTS, height=1800) as page:
            page.run_and_wait(SETUP)  # (a "Select Kernel" dialog on a busy machine is answered by the page)
            page.run_and_wait(PLAYGROUND)
            page.page.wait_for_selector(".gk-playground .gk-playground-run", timeout=180_000)
            yield page


def form(page: NotebookPage) -> Any:
    return page.cell(PLAYGROUND).locator(".gk-playground")


def shot(page: NotebookPage, name: str) -> None:
    page.screenshot(f"playground-{name}", PLAYGROUND)


def choose(page: NotebookPage, kind: str, model: str, prompt: str) -> None:
    """Click the kind, pick the model, type the prompt (the form is rebuilt in between)."""
    form(page).locator(".widget-toggle-buttons button", has_text=kind).click()
    form(page).locator(".widget-dropdown select").first.select_option(model)
    box = form(page).locator(f".gk-form-{model} .gk-field-prompt textarea")  # the form rebuilt for this model
    box.wait_for()
    box.fill(prompt)


def cost_text(page: NotebookPage) -> str:
    return form(page).locator(".gk-playground-cost").inner_text()


def test_image_appears_at_the_chosen_width_and_the_cost_updates(page: NotebookPage) -> None:
    """Pick image-pixels, set width 512, Run: the image decodes 512 px wide; the cost line counts the run."""
    choose(page, "image", "image-pixels", "a red fox in snow")
    expect(form(page).locator(".gk-playground-count").first).to_have_text("17 / 10,000", timeout=180_000)
    before = cost_text(page)
    readout = form(page).locator(".gk-field-width .widget-readout")
    readout.click()
    page.page.keyboard.press("Control+A")
    page.page.keyboard.type("512")
    page.page.keyboard.press("Enter")
    page.page.wait_for_function("el => el.textContent.trim() === '512'", arg=readout.element_handle())
    shot(page, "01-image-form")
    form(page).locator(".gk-playground-run").click()
    image = form(page).locator(".gk-playground-result .gk-images img")
    image.wait_for(timeout=180_000)
    page.page.wait_for_function("i => i.complete && i.naturalWidth > 0", arg=image.element_handle(), timeout=180_000)
    assert image.evaluate("i => [i.naturalWidth, i.naturalHeight]") == [512, 1024]
    page.page.wait_for_function("b => !b.disabled", arg=form(page).locator(".gk-playground-run").element_handle())
    after = cost_text(page)
    assert "(0 runs)" in before and "(1 run)" in after
    assert re.search(r"\$0\.00\d+", after), after
    shot(page, "02-image-result")


def test_invalid_lyrics_are_shown_next_to_the_form(page: NotebookPage) -> None:
    """A song whose lyrics are too short shows the client's check under the form; Run sends nothing."""
    choose(page, "music", "music-song", "folk, guitar")
    form(page).locator(".gk-field-lyrics_prompt textarea").fill("la la")
    message = form(page).locator(".gk-playground-message .gk-error")
    expect(message).to_contain_text("lyrics_prompt must be 10 to 3000 characters (got 5)", timeout=180_000)
    shot(page, "03-invalid-lyrics")


def test_video_shows_progress_then_a_playable_player(page: NotebookPage) -> None:
    """Pick video-tiers at 480p, Run: a progress card while Run is disabled, then a video that loads."""
    choose(page, "video", "video-tiers", "waves at dusk")
    quote = form(page).locator(".gk-playground-quote")
    form(page).locator(".gk-field-resolution select").select_option("1080p")
    expect(quote).to_contain_text("≈ $1.00 est.", timeout=10_000)  # the quote beside Run follows the form
    form(page).locator(".gk-field-resolution select").select_option("480p")
    expect(quote).to_contain_text("≈ $0.20 est.", timeout=10_000)
    shot(page, "04-video-quote")
    form(page).locator(".gk-playground-run").click()
    # One moment in the page where the card is running, Run is disabled and Cancel is shown;
    # checked in one evaluation so a fast job finishing in between cannot make it flaky.
    page.page.wait_for_function(
        """f => {
            const card = f.querySelector(".gk-playground-result .gk-job");
            const cancel = f.querySelector(".gk-playground-cancel");
            const run = f.querySelector(".gk-playground-run");
            return card && ["queued", "in_progress"].includes(card.dataset.status)
                && run.disabled && cancel.offsetParent !== null;
        }""", arg=form(page).element_handle(), timeout=180_000)
    shot(page, "04-video-progress-card")
    video = form(page).locator(".gk-playground-result .gk-job[data-status='completed'] video.gk-video")
    video.wait_for(timeout=180_000)
    video.scroll_into_view_if_needed()
    page.page.wait_for_function("v => v.readyState >= 1 && v.duration > 0", arg=video.element_handle(), timeout=180_000)
    page.page.wait_for_function("b => !b.disabled", arg=form(page).locator(".gk-playground-run").element_handle())
    expect(form(page).locator(".gk-playground-cost")).to_contain_text("≈ $0.20 est.", timeout=10_000)
    assert "(2 runs)" in cost_text(page) and "does not report" not in cost_text(page)
    shot(page, "05-video-player")


def test_cancel_button_cancels_the_running_video(page: NotebookPage) -> None:
    """During a long video run, the Cancel button next to Run cancels the job; the card says cancelled."""
    choose(page, "video", "video-range", "a very slow sunrise")
    form(page).locator(".gk-field-duration .widget-readout").click()
    page.page.keyboard.press("Control+A")
    page.page.keyboard.type("12")
    page.page.keyboard.press("Enter")
    form(page).locator(".gk-playground-run").click()
    cancel = form(page).locator(".gk-playground-cancel")
    cancel.wait_for(state="visible", timeout=180_000)
    cancel.click()
    form(page).locator(".gk-playground-result .gk-job[data-status='cancelled']").wait_for(timeout=180_000)
    expect(cancel).to_be_hidden(timeout=180_000)
    expect(form(page).locator(".gk-playground-cost")).to_contain_text("(3 runs)", timeout=180_000)
    shot(page, "06-video-cancelled")


def test_chat_answer_streams_into_the_result(page: NotebookPage) -> None:
    """A chat run shows the answer growing while it streams, then the static answer with its cost footer."""
    choose(page, "chat", "chat-mini", "Explain event loops with a comparison table and python code")
    form(page).locator(".gk-playground-run").click()
    answer = form(page).locator(".gk-playground-result .gk-answer")
    answer.first.wait_for(timeout=180_000)
    expect(form(page).locator(".gk-playground-result")).to_contain_text("streaming…", timeout=180_000)
    shot(page, "07-chat-streaming")
    expect(form(page).locator(".gk-playground-result")).not_to_contain_text("streaming…", timeout=180_000)
    assert form(page).locator(".gk-playground-result .gk-answer table").count() == 1
    expect(form(page).locator(".gk-playground-cost")).to_contain_text("(4 runs)", timeout=180_000)
    shot(page, "08-chat-final")
