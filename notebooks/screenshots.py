"""Regenerate the README's screenshots (``notebooks/media/*.png``) from a real run in JupyterLab.

    PYTHONPATH=src python notebooks/screenshots.py            # writes notebooks/media/*.png
    PYTHONPATH=src python notebooks/screenshots.py --out /tmp/shots

An offline gateway (time scale 1, so a video job takes a few visible seconds, and one
scripted chat answer with a heading, a table and code) and JupyterLab (the browser tests'
server: 127.0.0.1, its own settings, no network) run here; Debian's chromium runs a small
notebook cell by cell, like a reader pressing Shift+Enter. Each picture is one cell (or its
output), trimmed of the white margin on its right and below, saved as an optimised PNG.
"""

from __future__ import annotations

import argparse
import io
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests" / "notebook"))  # the browser tests' Jupyter server and page driver

from jupyter_browser import JupyterServer, NotebookPage, open_notebook, write_notebook  # noqa: E402

QUEUE_ANSWER = """### Queues in Python

A queue hands work from producers to consumers, **first in, first out**.

| kind | blocks? | module |
|---|---|---|
| `queue.Queue` | yes | queue |
| `asyncio.Queue` | awaits | asyncio |

```python
import queue

jobs = queue.Queue()
for n in range(3):
    jobs.put(f"job {n}")  # producers add work
print(jobs.get())
```

That is all a first queue needs."""

TOOLS = '''CITIES = {"Lisbon": {"country": "Portugal", "population": 545_000, "elevation_m": 2}}


def city_facts(city: str) -> dict:
    """Look up facts about a city: its country, population and elevation."""
    return {"city": city, **CITIES.get(city, {"note": "not in the table"})}


def fahrenheit_to_celsius(fahrenheit: float) -> float:
    """Convert a temperature from Fahrenheit to Celsius."""
    return round((fahrenheit - 32) * 5 / 9, 1)


guide = client.chat.session(model="chat-mini", tools=[city_facts, fahrenheit_to_celsius])'''

CELLS = [
    "import gatewaykit as gk\nclient = gk.Client(base_url={base_url!r}, api_key={api_key!r})",
    "client.chat.ask('Show me a queue', model='chat-mini')",
    "client.images.generate(model='image-pixels', prompt='a lighthouse at dusk', width=768, height=432)",
    "from gatewaykit.notebook import show_progress\n"
    "job = client.videos.create(model=\"video-tiers\", prompt=\"a paper plane over a city\",\n"
    "                           duration=8, resolution=\"480p\")\n"
    "progress = show_progress(job)",
    TOOLS,
    'reply = guide("Look up the facts about Lisbon, and convert 77 degrees Fahrenheit to Celsius.")',
]
# A frame a second in: played (muted) to there and paused, so the player has its data (no loading spinner).
SHOW_FRAME = """async v => {
  v.muted = true;
  await v.play();
  await new Promise(done => { const at = () => v.currentTime >= 1 ? done() : requestAnimationFrame(at); at(); });
  v.pause();
  v.muted = false;
  await new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)));
}"""
# The blue bar JupyterLab draws beside the selected cell says which cell has focus; a picture has none.
NO_SELECTION_BAR = ".jp-Collapser, .jp-Collapser-child { visibility: hidden !important; }"
SETUP, CHAT, IMAGE, VIDEO, TOOL_DEFS, TOOL_LOOP = range(len(CELLS))


def save_trimmed(png: bytes, path: Path, margin: int = 6) -> None:
    """Save ``png`` without the white margin on its right and below, as an optimised PNG."""
    from PIL import Image, ImageChops

    image = Image.open(io.BytesIO(png)).convert("RGB")
    image = image.crop((0, 0, image.width, image.height - 1))  # its last row is the next cell's top border
    box = ImageChops.difference(image, Image.new("RGB", image.size, "white")).getbbox()
    if box is not None:
        image = image.crop((0, 0, min(image.width, box[2] + margin), min(image.height, box[3] + margin)))
    image.save(path, optimize=True)
    print(f"{path} {image.width}x{image.height} {path.stat().st_size // 1024} KB")


def wait_for(condition: Any, what: str, timeout: float = 180) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.05)
    raise TimeoutError(f"waited {timeout:g} s for {what}")


def progress_fraction(page: NotebookPage) -> float:
    fill = page.cell(VIDEO).locator(".gk-progress-fill")
    if not fill.count():
        return 0.0
    track = "e => e.getBoundingClientRect().width / e.parentElement.getBoundingClientRect().width"
    return float(fill.first.evaluate(track))


def take(page: NotebookPage, out: Path) -> None:
    def shot(locator: Any, name: str) -> None:
        page.page.keyboard.press("Escape")  # command mode: no editor outline on the cell Shift+Enter moved to
        page.page.evaluate("document.activeElement && document.activeElement.blur()")  # no focus ring either
        locator.scroll_into_view_if_needed()
        save_trimmed(locator.screenshot(), out / name)

    page.page.add_style_tag(content=NO_SELECTION_BAR)
    page.run_and_wait(SETUP)
    page.run_and_wait(CHAT)
    shot(page.cell(CHAT), "chat-answer.png")
    page.run_and_wait(IMAGE)
    page.cell(IMAGE).locator(".gk-images img").first.wait_for()
    shot(page.cell(IMAGE).locator(".jp-Cell-outputWrapper"), "image.png")

    page.run(VIDEO)
    wait_for(lambda: 0.35 <= progress_fraction(page) <= 0.8, "the video job's progress bar between 35 % and 80 %")
    shot(page.cell(VIDEO), "progress.png")
    player = page.cell(VIDEO).locator("video.gk-video")
    player.wait_for(timeout=180_000)
    player.evaluate(SHOW_FRAME)
    shot(page.cell(VIDEO).locator(".jp-Cell-outputWrapper"), "player.png")

    page.run_and_wait(TOOL_DEFS)
    page.run_and_wait(TOOL_LOOP)
    steps = page.cell(TOOL_LOOP).locator("details.gk-tool-step")
    steps.first.wait_for()
    for index in range(steps.count()):
        steps.nth(index).locator("summary").click()
    shot(page.cell(TOOL_LOOP), "tool-loop.png")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=HERE / "media", help="where the PNG files go")
    out = parser.parse_args().out
    out.mkdir(parents=True, exist_ok=True)
    from gatewaykit import emulator as gateway

    script = {"answers": [{"match": "Show me a queue", "content": QUEUE_ANSWER}]}
    with tempfile.TemporaryDirectory() as scratch, gateway.start(time_scale=1, script=script) as running:
        root = Path(scratch) / "work"
        root.mkdir()
        cells = [CELLS[SETUP].format(base_url=running.base_url, api_key=running.api_key), *CELLS[1:]]
        write_notebook(root / "screenshots.ipynb", cells)
        server = JupyterServer(root, app="lab")
        try:
            with open_notebook(server, "screenshots.ipynb", Path(scratch) / "artifacts", height=2400) as page:
                take(page, out)
        finally:
            server.stop()


if __name__ == "__main__":
    main()
