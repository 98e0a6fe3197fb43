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


CLASS_OF_400 = '''import httpx, gatewaykit as gk
roster = [{"student": f"s{i:03d}", "cap_usd": 0.09 if i == 123 else None} for i in range(400)]
room = gk.classroom.start(upstream="offline", roster=roster, cap=0.06, offline={"time_scale": 0})
keys = dict(zip(room.keys.student, room.keys.key))
def send(student, path, body):
    return httpx.post(room.base_url + path, json=body, headers={"Authorization": "Bearer " + keys[student]}).status_code
image = ("/v1/images/generations", {"model": "image-aspect", "prompt": "a fox"})
chat = ("/v1/chat/completions", {"model": "chat-mini", "messages": [{"role": "user", "content": "hi"}], "max_tokens": 20})
sent = []
for i in range(1, 41):  # s004, s008 ... s040 spend their whole cap; s123 spends most of all
    sent += [send(f"s{i:03d}", *(image if i % 4 in (0, 1) else chat)) for _ in range(2 if i % 4 == 0 else 1)]
sent += [send("s123", *image) for _ in range(3)] + [send("s008", *image)]
print(sorted(set(sent)), sent.count(402))'''


def test_the_dashboard_of_400_students_keeps_its_controls_in_view_and_sorts_and_filters(
        jupyter_testbed: JupyterTestbed) -> None:
    """400 students: the kill switch and the class totals show without scrolling; rows sort by spend and by what
    is left; the near-cap filter leaves the 11 students who used 80% of their cap."""
    from jupyter_browser import expect

    folder = jupyter_testbed.folder("lab", "classroom-400")
    folder.write_notebook("class400.ipynb", [CLASS_OF_400, "room.dashboard(refresh_seconds=30)"])
    with jupyter_testbed.open_notebook(folder, "class400.ipynb", ARTIFACTS, height=900) as notebook:
        notebook.run_and_wait(0)
        assert notebook.output_text(0).strip().endswith("[200, 402] 1")  # after the line start() prints
        notebook.run_and_wait(1)
        dashboard = notebook.cell(1)
        head = dashboard.locator(".gk-classroom")
        head.wait_for(timeout=60_000)
        dashboard.scroll_into_view_if_needed()
        pause = dashboard.locator("button", has_text="Pause class")
        for control in (pause, dashboard.locator("select"), dashboard.locator("input[type=checkbox]"),
                        head.locator(".gk-at-cap"), head.locator(".gk-top-spenders")):
            expect(control).to_be_in_viewport()
        box = dashboard.bounding_box()
        assert box is not None and box["height"] < 900, box  # the 400 rows scroll inside the dashboard
        text = head.inner_text()
        assert "400 students" in text and "11 at their cap" in text and "1 request refused by a cap" in text
        assert "Top spenders: s123 $0.09, s004 $0.06" in text
        rows = dashboard.locator("tr.gk-student")
        assert rows.count() == 400 and rows.first.inner_text().startswith("s000")
        dashboard.locator("select").select_option(label="spend, most first")
        expect(rows.first).to_contain_text("s123")
        expect(rows.nth(1)).to_contain_text("s004")
        notebook.screenshot("classroom-dashboard-400-by-spend", cell=1)
        dashboard.locator("select").select_option(label="remaining, least first")
        expect(rows.first).to_contain_text("s004")
        expect(rows.last).to_contain_text("$0.06 left")
        dashboard.locator("input[type=checkbox]").check()
        expect(dashboard.locator(".gk-shown")).to_contain_text("showing 11 of 400")
        assert rows.count() == 11 and "s123" in dashboard.locator(".gk-students").inner_text()
        notebook.screenshot("classroom-dashboard-400", cell=1)
