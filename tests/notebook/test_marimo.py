"""marimo: the quickstart exports with its answer, image and players; ask() streams into its cell live.

Each test runs marimo itself (``marimo export html``) in a subprocess on the
offline gateway; the export's outputs are HTML strings inside its JSON, so the
test reads them after undoing the JSON escapes.
"""

from __future__ import annotations

import mimetypes
import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

import gatewaykit as gk

pytest.importorskip("marimo")

ROOT = Path(__file__).resolve().parents[2]
SRC = str(Path(gk.__file__).resolve().parents[1])
QUICKSTART = ROOT / "notebooks" / "marimo" / "quickstart.py"


def export(notebook: Path, target: Path, **env: str) -> str:
    """``marimo export html`` of ``notebook`` on the offline gateway (its own ledger); the page, JSON escapes undone."""
    ledger = str(target.with_suffix(".ledger.sqlite"))
    environment = {**os.environ, "PYTHONPATH": SRC, "GATEWAYKIT_OFFLINE_TIME_SCALE": "0", "GATEWAYKIT_LEDGER_PATH": ledger, **env}
    for name in ("SVC_API_KEY", "SVC_BASE_URL", "PYTEST_CURRENT_TEST"):
        environment.pop(name, None)
    done = subprocess.run(
        [sys.executable, "-m", "marimo", "export", "html", str(notebook), "-o", str(target)],
        capture_output=True, text=True, timeout=280, env=environment, check=False,
    )  # fmt: skip
    assert target.exists(), done.stdout + done.stderr
    return decoded(target.read_text())


def decoded(page: str) -> str:
    return page.replace("\\u003C", "<").replace("\\u003E", ">").replace("\\u003c", "<").replace("\\u003e", ">").replace('\\"', '"')


@pytest.fixture(scope="module")
def quickstart(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    target = tmp_path_factory.mktemp("marimo") / "quickstart.html"
    return target, export(QUICKSTART, target)


@pytest.mark.slow
def test_the_quickstart_export_has_the_answer_image_and_players(quickstart: tuple[Path, str]) -> None:
    """The exported quickstart holds the answer panel, the image, the video and audio players."""
    _, page = quickstart
    assert 'class="gk-answer' in page
    assert re.search(r'<img[^>]+src="data:image/(png|jpeg|webp);base64,', page)
    assert re.search(r'<video class="gk-video"[^>]+src="data:video/mp4;base64,', page)
    assert re.search(r'<audio[^>]+src="data:audio/mpeg;base64,', page)


@pytest.mark.slow
def test_the_quickstart_export_has_the_session_error_card_and_ledger(quickstart: tuple[Path, str]) -> None:
    """The tool-loop session, the error card and the ledger render as in JupyterLab, not as reprs."""
    _, page = quickstart
    assert "fahrenheit_to_celsius(fahrenheit=77)" in page and "ModelNotFoundError" in page
    assert "gk-ledger" in page and "ChatCompletion(" not in page and "ModelList(" not in page


STREAM_PROBE = '''
import marimo
app = marimo.App()


@app.cell
def _():
    import marimo as mo
    import gatewaykit as gk

    shown = []
    real_append, real_replace = mo.output.append, mo.output.replace_at_index
    mo.output.append = lambda value: (shown.append(value.text), real_append(value))[1]
    mo.output.replace_at_index = lambda value, idx: (shown.append(value.text), real_replace(value, idx))[1]
    client = gk.Client(offline=True)
    shown.clear()
    answer = client.chat.ask("Write a long answer about streams", model="chat-mini")
    mo.output.append, mo.output.replace_at_index = real_append, real_replace
    sizes = [len(text) for text in shown]
    mo.md(f"DISPLAY={type(client.display).__name__} UPDATES={len(shown)} GROWING={sizes[:-1] == sorted(sizes[:-1])} "
          f"FINAL={'streaming' in shown[1] and 'streaming' not in shown[-1] and ' out tokens' in shown[-1]}")
    return


if __name__ == "__main__":
    app.run()
'''


def test_ask_streams_live_into_its_marimo_cell(tmp_path: Path) -> None:
    """In a marimo cell ask() rewrites its output item as text arrives and ends with the whole answer."""
    notebook = tmp_path / "stream_probe.py"
    notebook.write_text(textwrap.dedent(STREAM_PROBE))
    page = export(notebook, tmp_path / "stream_probe.html", GATEWAYKIT_OFFLINE_TIME_SCALE="1")
    found = re.search(r"DISPLAY=(\w+) UPDATES=(\d+) GROWING=(\w+) FINAL=(\w+)", page)
    assert found, page[-2000:]
    assert found.group(1) == "MarimoDisplay" and int(found.group(2)) >= 3
    assert found.group(3) == "True" and found.group(4) == "True"


def test_a_marimo_sink_outside_marimo_shows_nothing_and_never_raises() -> None:
    """MarimoSink used where no marimo cell runs is silent."""
    from gatewaykit.notebook.displays.marimo_display import MarimoSink

    sink = MarimoSink()
    sink.show({"text/html": "<b>x</b>"})
    sink.update({"text/plain": "y"})


@pytest.mark.browser
@pytest.mark.slow
def test_the_exported_quickstart_renders_in_chromium(quickstart: tuple[Path, str], tmp_path: Path) -> None:
    """Opened in Chromium (marimo's assets served from the installed package), the page shows answer, image, players."""
    import marimo
    from playwright.sync_api import sync_playwright

    html, _ = quickstart
    static = Path(marimo.__file__).parent / "_static"

    def serve(route: Any) -> None:
        name = re.search(r"/dist/([^?]*)", route.request.url)
        path = static / name.group(1) if name else None
        if path is None or not path.is_file():
            route.abort()
            return
        kind = mimetypes.guess_type(str(path))[0] or "application/octet-stream"
        route.fulfill(path=str(path), headers={"Access-Control-Allow-Origin": "*", "Content-Type": kind})

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=shutil.which("chromium"), args=["--no-sandbox", "--disable-background-networking"]
        )
        try:
            page = browser.new_page(viewport={"width": 1200, "height": 7000})
            page.route(re.compile(r"^https?://"), lambda route: route.abort())  # no network
            page.route("https://cdn.jsdelivr.net/**", serve)  # later routes win: marimo's assets, locally
            page.goto(html.as_uri())
            page.wait_for_selector(".gk-answer", timeout=120_000)
            page.wait_for_selector("video.gk-video", timeout=60_000)
            assert page.locator("audio").count() >= 1 and page.locator("img").count() >= 1
            page.screenshot(path=str(tmp_path / "marimo-quickstart.png"), full_page=True)
        finally:
            browser.close()
