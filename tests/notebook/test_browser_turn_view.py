"""A conversation's tool loop in JupyterLab 4 + headless Chromium: steps while they run, then the answer.

A sync and an async session each call two Python tools (the slower one sleeps,
so the "running…" state is on screen long enough to see). Screenshots go to
``test-artifacts/browser/`` (``tool-loop-*.png``).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any, Iterator

import pytest
from jupyter_browser import NotebookPage
from jupyter_testbed import JupyterTestbed

pytestmark = [pytest.mark.browser, pytest.mark.slow]

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "browser"

SETUP = '''import time
import gatewaykit as gk
client = gk.Client(base_url={base_url!r}, api_key={api_key!r})
aclient = gk.AsyncClient(base_url={base_url!r}, api_key={api_key!r})
CITIES = {{"Lisbon": {{"country": "Portugal", "population": 545_000}},
          "Oslo": {{"country": "Norway", "note": "<img src=x onerror=\\"window.__pwned = 1\\">"}}}}

def city_facts(city: str) -> dict:
    """Look up facts about a city: its country and population."""
    time.sleep(2)
    return {{"city": city, **CITIES.get(city, {{}})}}

def fahrenheit_to_celsius(fahrenheit: float) -> float:
    """Convert a temperature from Fahrenheit to Celsius."""
    return round((fahrenheit - 32) * 5 / 9, 1)
'''
CELLS = [
    SETUP,
    "guide = client.chat.session(model='chat-mini', tools=[city_facts, fahrenheit_to_celsius])\n"
    "reply = guide('Look up the facts about Lisbon, and convert 77 degrees Fahrenheit to Celsius.')",
    "aguide = aclient.chat.session(model='chat-mini', tools=[city_facts, fahrenheit_to_celsius])\n"
    "areply = await aguide('Look up the facts about Oslo, and convert 14 degrees Fahrenheit to Celsius.')",
]
SYNC, ASYNC = 1, 2


@pytest.fixture(scope="module")
def page(jupyter_testbed: JupyterTestbed) -> Iterator[NotebookPage]:
    from gatewaykit import emulator as gateway

    folder = jupyter_testbed.folder("lab", "turns")
    with gateway.start(time_scale=0.6) as running:
        folder.write_notebook("turns.ipynb", [cell.format(base_url=running.base_url, api_key=running.api_key)
                                              if "{base_url" in cell else cell for cell in CELLS])  # fmt: skip
        with jupyter_testbed.open_notebook(folder, "turns.ipynb", ARTIFACTS) as notebook:
            notebook.run_and_wait(0)
            yield notebook


def watch_running_step(page: NotebookPage, cell: int, name: str) -> bool:
    """Run the cell and screenshot it while a tool block says running; whether that state was seen."""
    page.run(cell)
    steps = page.cell(cell).locator(".gk-tool-step[data-status='running…']")
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if steps.count():
            page.screenshot(f"tool-loop-{name}-running", cell)
            return True
        time.sleep(0.05)
    return False


@pytest.mark.parametrize("cell, name, city, celsius", [(SYNC, "sync", "Lisbon", "25.0"), (ASYNC, "async", "Oslo", "-10.0")])
def test_tool_loop_renders_steps_then_the_answer(page: NotebookPage, cell: int, name: str, city: str, celsius: str) -> None:
    """While a tool runs its block says running; at the end two collapsible results and one answer that uses them."""
    assert watch_running_step(page, cell, name)
    page.wait_done(cell)
    output = page.cell(cell)
    blocks = output.locator("details.gk-tool-step")
    assert blocks.count() == 2 and output.locator(".gk-tool-step[data-status='ok']").count() == 2
    for index in range(2):
        blocks.nth(index).locator("summary").click()
    page.screenshot(f"tool-loop-{name}-final", cell)
    text = page.output_text(cell)
    assert f'"city": "{city}"' in text and celsius in text and "running…" not in text
    answers = output.locator(".gk-chat:not(.gk-turn-step) .gk-answer")
    assert answers.count() == 1 and celsius in answers.inner_text() and city in answers.inner_text()
    assert output.locator(".gk-live").count() == 0


def test_tool_results_stay_inert(page: NotebookPage) -> None:
    """Markup in a tool result (an <img onerror>) is shown as text and never runs."""
    text = page.output_text(ASYNC)
    assert "<img src=x onerror" in text
    assert page.page.evaluate("window.__pwned === undefined")
    assert page.cell(ASYNC).locator(".jp-OutputArea img").count() == 0
