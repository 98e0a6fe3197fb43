"""The JupyterLite site (``jupyterlite/build.py``) in Debian's Chromium: gatewaykit's Python runs in the page.

One REPL (one Pyodide kernel) for the file: an offline gateway and a classroom on loopback that allow the
site's origin (CORS), and a gateway that does not. Every test checks that no request of the page or its
workers left 127.0.0.1. Screenshot: test-artifacts/browser/jupyterlite-streamed-answer.png.
"""

from __future__ import annotations

import json
import shutil
from typing import Any, Iterator

import pytest
from lite_site import CHROMIUM_ARGS, REPO, LiteNotebook, LiteRepl, StaticSite, site_folder

import gatewaykit as gk

pytestmark = [pytest.mark.browser, pytest.mark.slow]

ARTIFACTS = REPO / "test-artifacts" / "browser"
STREAM = '''chunks = []
stream = await {client}.chat.completions.create(model="chat-mini", stream=True,
    messages=[{{"role": "user", "content": "Tell me a story about a fox in the snow"}}])
async for chunk in stream:
    chunks.append((time.monotonic(), "".join(c.delta.content or "" for c in chunk.choices)))
print(json.dumps({{"n": len(chunks), "spread": chunks[-1][0] - chunks[0][0], "text": "".join(t for _, t in chunks)}}))'''
IMAGE = '''picture = await {client}.images.generate(model="image-aspect", prompt="a lighthouse at dawn")
print(json.dumps({{"n": len(picture.data), "png": (await picture.data[0].content_async())[:4].hex()
                  if hasattr(picture.data[0], "content_async") else picture.data[0].b64_json[:8]}}))'''
SYNC = '''answer = {client}.chat.completions.create(model="chat-mini", messages=[{{"role": "user", "content": "hi"}}])
print(json.dumps({{"text": answer.choices[0].message.content, "cost": answer.usage.cost.total_cost}}))'''


@pytest.fixture(scope="module")
def site() -> Iterator[StaticSite]:
    served = StaticSite(site_folder())
    yield served
    served.stop()


@pytest.fixture(scope="module")
def gateway(site: StaticSite) -> Iterator[Any]:
    with gk.emulator.start(time_scale=0.3, cors_origins=[site.origin]) as emulator:
        yield emulator


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    chromium = shutil.which("chromium")
    assert chromium, "Debian's chromium is needed: apt-get install chromium (.ci/run does this)"
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS)
        yield launched
        launched.close()


@pytest.fixture(scope="module")
def repl(browser: Any, site: StaticSite) -> Iterator[LiteRepl]:
    page = LiteRepl(browser, site.origin)
    print(f"cold start (page opened to first cell's answer): {page.cold_start:.1f} s")
    page.run("import json\nimport gatewaykit as gk")
    yield page
    page.close()


def _json(output: str) -> Any:
    return json.loads(output.strip().splitlines()[-1])


def test_gatewaykit_runs_in_pyodide(repl: LiteRepl) -> None:
    """gatewaykit imports in the page's Python (Pyodide), with neither pandas nor Pillow there."""
    output = repl.run("import importlib.util as u\nprint(sys.platform, gk.__version__, "
                      "[u.find_spec(n) is None for n in ('pandas', 'PIL', 'numpy')])")
    assert output.strip() == f"emscripten {gk.__version__} [True, True, True]"
    assert repl.outside == []


def test_a_streamed_chat_arrives_in_pieces_through_fetch(repl: LiteRepl, gateway: Any) -> None:
    """gk.AsyncClient streams a chat from the offline gateway through the browser's fetch, chunk by chunk."""
    repl.run(f'client = gk.AsyncClient(base_url="{gateway.base_url}", api_key="{gateway.api_key}")')
    result = _json(repl.run(STREAM.format(client="client")))
    assert result["n"] >= 5 and "fox in the snow" in result["text"]
    assert result["spread"] > 0.1  # read as they came, not all at the end
    assert repl.outside == []


def test_an_image_is_made_in_the_page(repl: LiteRepl, gateway: Any) -> None:
    """gk.AsyncClient makes an image, and the page shows it (no Pillow in Pyodide)."""
    repl.run(f'client = gk.AsyncClient(base_url="{gateway.base_url}", api_key="{gateway.api_key}")')
    output = repl.run('picture = await client.images.generate(model="image-aspect", prompt="a lighthouse")\n'
                      'picture')
    assert "image-aspect" in output and "1 image" in output
    image = repl.cell(repl.ran).locator("img").first
    image.wait_for(timeout=30_000)
    assert repl.page.evaluate("img => img.complete && img.naturalWidth > 0", image.element_handle())
    assert repl.outside == []


def test_the_sync_client_answers_in_the_page(repl: LiteRepl, gateway: Any) -> None:
    """gk.Client (blocking) answers a chat in the page's worker through a synchronous XMLHttpRequest."""
    repl.run(f'blocking = gk.Client(base_url="{gateway.base_url}", api_key="{gateway.api_key}")')
    result = _json(repl.run(SYNC.format(client="blocking")))
    assert result["text"] and result["cost"] > 0
    assert repl.outside == []


def test_video_and_music_jobs_end_with_their_content(repl: LiteRepl, gateway: Any) -> None:
    """A video job (gk.AsyncClient) and a song (gk.Client, its progress card polled in the cell) give their media."""
    repl.run(f'client = gk.AsyncClient(base_url="{gateway.base_url}", api_key="{gateway.api_key}")\n'
             f'blocking = gk.Client(base_url="{gateway.base_url}", api_key="{gateway.api_key}")')
    video = _json(repl.run('clip = await (await client.videos.create(model="video-range", prompt="a kite")).wait()\n'
                           'print(json.dumps([clip.status, (await clip.content())[4:8].decode()]))'))
    assert video == ["completed", "ftyp"]
    song = _json(repl.run('song = blocking.music.create(model="music-song", prompt="a song", '
                          'lyrics_prompt="[Verse]\\nfoxes in the snow").wait()\n'
                          'print(json.dumps([song.status, len(song.content())]))'))
    assert song[0] == "completed" and song[1] > 10_000
    assert repl.outside == []

def test_a_streamed_answer_renders_live(repl: LiteRepl, gateway: Any) -> None:
    """chat.ask() renders the streamed answer as Markdown in the page (screenshot kept)."""
    repl.run(f'client = gk.AsyncClient(base_url="{gateway.base_url}", api_key="{gateway.api_key}")')
    output = repl.run('answer = await client.chat.ask("Tell me a story about a fox", model="chat-mini")')
    assert "Tell me a story about a fox" in output and "chat-mini" in output
    repl.screenshot(ARTIFACTS / "jupyterlite-streamed-answer.png")
    assert repl.outside == []


def test_a_class_serves_a_student_in_the_page(repl: LiteRepl, site: StaticSite) -> None:
    """Through a classroom that allows the site's origin, a student's key streams, makes an image and chats."""
    with gk.classroom.start(upstream="offline", roster=["ana"], cap=1.0, cors_origins=[site.origin],
                            offline={"time_scale": 0.3}) as room:
        key = dict(zip(room.keys.student, room.keys.key))["ana"]
        repl.run(f'student = gk.AsyncClient(base_url="{room.base_url}", api_key="{key}")\n'
                 f'blocking_student = gk.Client(base_url="{room.base_url}", api_key="{key}")')
        streamed = _json(repl.run(STREAM.format(client="student")))
        assert streamed["n"] >= 5 and "fox in the snow" in streamed["text"]
        output = repl.run('await student.images.generate(model="image-aspect", prompt="a kite")')
        assert "1 image" in output
        assert _json(repl.run(SYNC.format(client="blocking_student")))["text"]
        spent = {row["student"]: row["spent_usd"] for row in room.report().to_dict("records")}
        assert spent["ana"] > 0
    assert repl.outside == []


def test_a_gateway_that_does_not_allow_the_site_is_a_clear_error(repl: LiteRepl) -> None:
    """A gateway with no CORS origin: the browser refuses the answer, and the error says to add --cors-origin."""
    with gk.emulator.start(time_scale=0) as closed:
        output = repl.run(f'closed = gk.AsyncClient(base_url="{closed.base_url}", api_key="{closed.api_key}", '
                          f'max_retries=0)\ntry:\n    await closed.models.list()\nexcept gk.APIConnectionError as e:\n'
                          f'    print(type(e).__name__, e)')
    assert output.startswith("APIConnectionError") and "--cors-origin" in output
    assert repl.outside == []


def test_the_chat_box_widget_answers_in_the_notebook_app(browser: Any, site: StaticSite, gateway: Any) -> None:
    """gk.chat_ui renders as ipywidgets in JupyterLite's Notebook app, and Send answers in it (no thread there)."""
    notebook = LiteNotebook(browser, site.origin)
    try:
        output = notebook.run_first(f'import gatewaykit as gk\nclient = gk.Client(base_url="{gateway.base_url}", '
                                    f'api_key="{gateway.api_key}")\ngk.chat_ui(client=client, model="chat-mini")')
        output.locator("textarea").first.fill("Tell me about foxes")
        output.locator("button", has_text="Send").click()
        output.locator(".widget-html, .widget-htmlmath", has_text="offline gateway").first.wait_for(timeout=60_000)
        assert "Traceback" not in output.inner_text() and "Error" not in output.inner_text()
        notebook.page.screenshot(path=str(ARTIFACTS / "jupyterlite-chat-box.png"))
    finally:
        notebook.close()
    assert notebook.outside == []



def test_compare_map_and_evaluate_run_in_the_page_without_threads(repl: LiteRepl, gateway: Any) -> None:
    """Pyodide cannot start a thread: gk.Client's compare, map and evaluate run their calls one by one in the cell
    (their live views repaint as each ends), gk.AsyncClient's as tasks; every result and cost is there."""
    repl.run(f'client = gk.AsyncClient(base_url="{gateway.base_url}", api_key="{gateway.api_key}")\n'
             f'blocking = gk.Client(base_url="{gateway.base_url}", api_key="{gateway.api_key}")')
    models = '["chat-mini", "chat-vision"]'
    checks = {
        "compare": f'c = blocking.compare("hi", models={models})\n'
                   'print(json.dumps([[e.model, e.error is None, e.total_cost > 0] for e in c.entries]))',
        "async compare": f'c = await client.compare("hi", models={models})\n'
                         'print(json.dumps([[e.model, e.error is None, e.total_cost > 0] for e in c.entries]))',
        "map": 'r = blocking.map(lambda x: blocking.chat.completions.create(model="chat-mini", messages=[{"role": '
               '"user", "content": x}]), ["a", "b", "c"])\nprint(json.dumps([r.ok, len(r.values)]))',
        "evaluate": f'e = blocking.evaluate(["a", "b"], models={models})\n'
                    'print(json.dumps([[c.ok, c.total_cost > 0] for c in e.cells]))',
    }
    results = {name: _json(repl.run(code)) for name, code in checks.items()}
    assert results["compare"] == results["async compare"] == [["chat-mini", True, True], ["chat-vision", True, True]]
    assert results["map"] == [True, 3]
    assert results["evaluate"] == [[True, True]] * 4
    assert "can't start new thread" not in repl.page.content()
    unavailable = repl.run("gk.playground(blocking)")
    assert "JupyterLite" in unavailable and "client.chat.ask" in unavailable
    assert repl.outside == []
