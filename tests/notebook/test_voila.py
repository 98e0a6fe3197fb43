"""Voilà serves notebooks as apps: the page is rendered from a kernel that built the widgets.

The browser tests use the playground app and a chat box (``gk.chat_ui``) in headless Chromium
(Debian's, through Playwright) and save ``test-artifacts/browser/voila-playground.png`` and
``voila-chat-box.png``.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable, Iterator

import httpx
import pytest
from jupyter_browser import CHROMIUM_ARGS, chromium_path, free_port, write_notebook

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[2]


@contextmanager
def voila(tmp_path: Path, time_scale: str = "0", notebook: str = "notebooks/09-playground.ipynb",
          cwd: Path = REPO) -> Iterator[str]:
    """``voila <notebook>`` on 127.0.0.1 (no key: the offline gateway); yields its URL once it answers."""
    port = free_port()
    env = {key: value for key, value in os.environ.items() if key not in ("SVC_API_KEY", "SVC_BASE_URL")}
    env.update(GATEWAYKIT_OFFLINE_TIME_SCALE=time_scale, JUPYTER_RUNTIME_DIR=str(tmp_path / "runtime"))
    command = [sys.executable, "-m", "voila", notebook, "--no-browser",
               f"--port={port}", "--Voila.ip=127.0.0.1"]  # fmt: skip
    log_path = tmp_path / "voila.log"
    with log_path.open("w") as log:
        server = subprocess.Popen(command, cwd=cwd, env=env, stdout=log, stderr=subprocess.STDOUT)
        try:
            deadline = time.monotonic() + 180
            while True:
                assert server.poll() is None, log_path.read_text()[-3000:]
                try:
                    httpx.get(f"http://127.0.0.1:{port}/api/status", timeout=5)
                    break
                except httpx.HTTPError:
                    assert time.monotonic() < deadline, "waited 180 s for voila to answer /api/status"
                    time.sleep(0.3)
            yield f"http://127.0.0.1:{port}/"
        finally:
            server.terminate()
            try:
                server.wait(60)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait(60)


@pytest.fixture(scope="module")
def playground_app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """One ``voila notebooks/09-playground.ipynb`` for the tests that load it (each load runs a fresh kernel)."""
    with voila(tmp_path_factory.mktemp("voila-playground")) as url:
        yield url


def test_voila_serves_the_playground(playground_app: str) -> None:
    """`voila notebooks/09-playground.ipynb` answers 200 with the playground's widget in the page."""
    page = httpx.get(playground_app, timeout=90)
    assert page.status_code == 200
    assert "application/vnd.jupyter.widget-view+json" in page.text  # the kernel ran gk.playground(client)
    assert "Traceback" not in page.text
    # Students of the app see no developer text: no env variables to set, no "voila ..." command.
    assert "gk-offline-banner" in page.text and "SVC_API_KEY" not in page.text and "voila notebooks" not in page.text


@pytest.mark.browser
def test_the_voila_app_runs_an_image(playground_app: str) -> None:
    """In the Voilà app, picking image, typing a prompt and pressing Run shows the decoded image and its cost."""
    from playwright.sync_api import expect, sync_playwright

    artifacts = REPO / "test-artifacts" / "browser"
    artifacts.mkdir(parents=True, exist_ok=True)
    url = playground_app
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1100, "height": 1400})
            page.goto(url, timeout=180_000)
            page.wait_for_selector(".gk-playground .gk-playground-run", timeout=180_000)
            page.locator(".gk-playground .widget-toggle-buttons button", has_text="image").click()
            page.locator(".gk-form-image-pixels .gk-field-prompt textarea").fill("a red fox in snow")
            page.locator(".gk-playground-run").click()
            image = page.locator(".gk-playground-result .gk-images img")
            image.wait_for(timeout=180_000)
            page.wait_for_function("i => i.complete && i.naturalWidth === 1024", arg=image.element_handle())
            expect(page.locator(".gk-playground-cost")).to_contain_text("(1 run)")
            page.screenshot(path=str(artifacts / "voila-playground.png"))
        finally:
            browser.close()


CHAT_ANSWER = "\n\n".join(f"Part {n}: a queue hands work on, **first in, first out**." for n in range(30)) + "\n"


@pytest.mark.browser
def test_the_chat_box_streams_an_answer_in_voila(tmp_path: Path) -> None:
    """In Voilà, a chat box's Enter and Send each start a turn (a worker thread) whose answer streams into the box."""
    from playwright.sync_api import expect, sync_playwright

    from gatewaykit import emulator as gateway

    artifacts = REPO / "test-artifacts" / "browser"
    artifacts.mkdir(parents=True, exist_ok=True)
    script = {"answers": [{"match": "queue", "content": CHAT_ANSWER}]}
    with gateway.start(time_scale=0.5, script=script) as running:
        write_notebook(tmp_path / "box.ipynb", [
            f"import gatewaykit as gk\nclient = gk.Client(base_url={running.base_url!r}, api_key={running.api_key!r})",
            "ui = gk.chat_ui(client, model='chat-mini')\nui",
        ])  # fmt: skip
        with voila(tmp_path, notebook="box.ipynb", cwd=tmp_path) as url, sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)
            try:
                page = browser.new_page(viewport={"width": 1100, "height": 1400})
                page.goto(url, timeout=180_000)
                area = page.locator(".gk-chat-box textarea.gk-chat-input")
                area.wait_for(timeout=180_000)
                box, send = page.locator(".gk-chat-box"), page.locator(".gk-chat-box button", has_text="Send")
                area.click()
                page.keyboard.type("What is a queue?")
                page.keyboard.press("Enter")
                seen = _partial_lengths(box, lambda: "Part 29:" in box.inner_text())
                assert len(seen) >= 3, f"the answer did not stream (lengths seen: {seen})"
                expect(send).to_be_enabled(timeout=90_000)
                area.click()
                page.keyboard.type("And a queue again?")
                send.click()
                expect(page.locator(".gk-chat-box .gk-chat-user")).to_have_count(2, timeout=90_000)
                page.wait_for_function(  # the second answer whole (Send comes back only after it)
                    "() => (document.querySelector('.gk-chat-box').innerText.match(/Part 29:/g) || []).length === 2",
                    timeout=90_000,
                )
                expect(send).to_be_enabled(timeout=90_000)
                expect(box).to_contain_text("conversation $", timeout=90_000)
                assert box.inner_text().count("Part 29:") == 2
                page.screenshot(path=str(artifacts / "voila-chat-box.png"))
            finally:
                browser.close()


def _partial_lengths(box: Any, done: Callable[[], bool], timeout: float = 90) -> set[int]:
    """The distinct lengths of the box's text while an answer streams, until ``done()``."""
    seen: set[int] = set()
    deadline = time.monotonic() + timeout
    while not done():
        assert time.monotonic() < deadline, f"gave up after {timeout:.0f} s waiting for the whole answer"
        seen.add(len(box.inner_text()))
        time.sleep(0.05)
    return seen
