"""The quickstart in JupyterLab 4 + headless Chromium for a student of a class that leaves video out: the first
cell says the class, the student and what is left; the video cell says the class does not allow it. Screenshots:
test-artifacts/browser/quickstart-in-class.png and
quickstart-in-class-video.png."""

from __future__ import annotations

from pathlib import Path
from typing import Iterator

import nbformat
import pytest
from jupyter_testbed import JupyterTestbed

import gatewaykit as gk

pytestmark = [pytest.mark.browser, pytest.mark.slow]

REPO = Path(__file__).resolve().parents[2]
ARTIFACTS = REPO / "test-artifacts" / "browser"


@pytest.fixture
def room() -> Iterator[gk.Classroom]:
    room = gk.classroom.start(upstream="offline", roster=["ana"], cap=2.0, models=["chat-mini", "image-pixels"],
                              db=":memory:", offline={"time_scale": 0}, announce=False)
    yield room
    room.stop()


def test_the_quickstart_in_a_class_says_where_the_student_is(jupyter_testbed: JupyterTestbed,
                                                              room: gk.Classroom) -> None:
    """Run in a class: the first cell shows the class line; the video cell says the class does not allow video."""
    notebook = nbformat.read(REPO / "notebooks" / "00-quickstart.ipynb", as_version=4)
    video = next(i for i, cell in enumerate(notebook.cells) if 'pick("video"' in cell.source)
    folder = jupyter_testbed.folder("lab", "quickstart-in-class",
                                    env={"SVC_BASE_URL": room.base_url, "SVC_API_KEY": room.keys.key[0]})
    folder.adopt("quickstart.ipynb", notebook)
    with jupyter_testbed.open_notebook(folder, "quickstart.ipynb", ARTIFACTS, height=1000) as page:
        page.run_and_wait(1)
        assert "you are ana; $2.00 left of your $2.00 class budget" in page.output_text(1)
        page.run_and_wait(4)  # the catalog: the class's two models
        page.run_and_wait(video)
        assert "Your class does not allow video models" in page.output_text(video)
        page.cell(1).scroll_into_view_if_needed()
        page.screenshot("quickstart-in-class")
        page.screenshot("quickstart-in-class-video", cell=video)
