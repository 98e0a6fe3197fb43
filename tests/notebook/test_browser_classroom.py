"""The classroom dashboard in JupyterLab 4 + headless Chromium: bars per student against the cap (names
escaped), and its Pause button pausing the class. Screenshots: test-artifacts/browser/classroom-*.png.

The room (its own offline gateway) is started in the notebook's kernel, so the kernel needs no environment
beyond its folder's kernelspec (its own ledger and cache) on the shared testbed."""

from __future__ import annotations

from pathlib import Path

import pytest
from jupyter_testbed import JupyterTestbed

pytestmark = [pytest.mark.browser, pytest.mark.slow]

REPO = Path(__file__).resolve().parents[2]
ARTIFACTS = REPO / "test-artifacts" / "browser"

SETUP = '''import httpx, gatewaykit as gk
room = gk.classroom.start(upstream="offline", roster=["ana", "bo", "<i>cy</i>"], cap=0.06, offline={"time_scale": 0})
keys = dict(zip(room.keys.student, room.keys.key))
def send(student, path, body):
    return httpx.post(room.base_url + path, json=body, headers={"Authorization": "Bearer " + keys[student]}).status_code
print([send("bo", "/v1/images/generations", {"model": "image-aspect", "prompt": "a fox"}) for _ in range(3)],
      send("ana", "/v1/chat/completions", {"model": "chat-mini", "messages": [{"role": "user", "content": "hi"}]}),
      send("<i>cy</i>", "/v1/images/generations", {"model": "image-gpt", "prompt": "a kite", "quality": "low"}))'''


def test_the_dashboard_shows_the_class_and_pauses_it(jupyter_testbed: JupyterTestbed) -> None:
    folder = jupyter_testbed.folder("lab", "classroom")
    folder.write_notebook("classroom.ipynb", [SETUP, "room.dashboard(refresh_seconds=0.5)",
                                              "print('paused' if room.status()['paused'] else 'open')"])
    with jupyter_testbed.open_notebook(folder, "classroom.ipynb", ARTIFACTS, height=900) as notebook:
        notebook.run_and_wait(0)
        assert "[200, 200, 402] 200 200" in notebook.output_text(0)
        notebook.run_and_wait(1)
        view = notebook.cell(1).locator(".gk-classroom")
        view.wait_for(timeout=60_000)
        text = view.inner_text()
        assert "Open" in text and "3 students" in text
        assert "$0.06 of $0.06" in text and "cap reached" in text and "<i>cy</i>" in text
        notebook.screenshot("classroom-dashboard", cell=1)
        resume = notebook.cell(1).locator("button", has_text="Resume")
        assert resume.is_disabled()  # an open class has nothing to resume
        notebook.cell(1).locator("input[placeholder^='reason']").fill("quiz time")
        notebook.cell(1).locator("button", has_text="Pause class").click()
        notebook.cell(1).locator(".gk-classroom", has_text="Paused: quiz time").wait_for(timeout=60_000)
        notebook.page.wait_for_function("button => !button.disabled", arg=resume.element_handle(), timeout=60_000)
        notebook.screenshot("classroom-dashboard-paused", cell=1)
        notebook.run_and_wait(2)
        assert notebook.output_text(2).strip() == "paused"
        resume.click()
        notebook.cell(1).locator(".gk-classroom", has_text="Open").wait_for(timeout=60_000)
        notebook.run_and_wait(2)
        assert notebook.output_text(2).strip() == "open"
