"""The quickstart as a student of a class runs it: a real classroom (its own offline gateway) whose models leave
out video and music, the notebook executed in a real kernel (nbclient) with only SVC_BASE_URL and SVC_API_KEY."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Iterator

import nbformat
import pytest

import gatewaykit as gk

REPO = Path(__file__).resolve().parents[2]
QUICKSTART = REPO / "notebooks" / "00-quickstart.ipynb"


def _text(cell: Any) -> str:
    """Every plain-text output of a cell, joined."""
    parts = []
    for output in cell.get("outputs", []):
        parts.append(output.get("text", "") if output.get("output_type") == "stream"
                     else output.get("data", {}).get("text/plain", ""))
    return "\n".join(parts)


@pytest.fixture(scope="module")
def run_in_class(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Any, Any]]:
    """(the executed quickstart, the class): student ana, chat-mini and image-pixels only."""
    from nbclient import NotebookClient

    folder = tmp_path_factory.mktemp("quickstart-in-class")
    room = gk.classroom.start(upstream="offline", roster=["ana"], cap=2.0, models=["chat-mini", "image-pixels"],
                              db=":memory:", offline={"time_scale": 0}, announce=False)
    try:
        notebook = nbformat.read(QUICKSTART, as_version=4)
        env = {name: value for name, value in os.environ.items() if name != "JUPYTERHUB_API_TOKEN"}
        env.update(SVC_BASE_URL=room.base_url, SVC_API_KEY=room.keys.key[0], GATEWAYKIT_LEDGER_PATH="memory",
                   GATEWAYKIT_CACHE_PATH=str(folder / "cache"), GATEWAYKIT_OFFLINE_TIME_SCALE="0")
        NotebookClient(notebook, timeout=180, kernel_name="python3",
                       resources={"metadata": {"path": str(folder)}}).execute(env=env)
        yield notebook, room
    finally:
        room.stop()


def test_the_first_cell_says_which_class_who_and_what_is_left(run_in_class: tuple[Any, Any]) -> None:
    """The first code cell's output names the class's address, the student and what is left of their cap."""
    notebook, room = run_in_class
    first = next(cell for cell in notebook.cells if cell.cell_type == "code")
    text = _text(first)
    assert f"Class at {room.base_url}: you are ana; $2.00 left of your $2.00 class budget" in text, text
    assert "No API key was found" not in text and "offline" not in text.lower()


def test_run_all_reaches_the_end_and_says_the_class_leaves_video_and_music_out(
        run_in_class: tuple[Any, Any]) -> None:
    """The video and music cells say the class does not allow them; every cell ran, to the ledger's total."""
    notebook, _ = run_in_class
    code = [cell for cell in notebook.cells if cell.cell_type == "code"]
    assert all(cell.execution_count for cell in code)  # nbclient stops at a cell that raises: all of them ran
    assert not [out for cell in code for out in cell.outputs if out.output_type == "error"]
    everything = "\n".join(_text(cell) for cell in code)
    assert "Your class does not allow video models (it allows: chat-mini, image-pixels)" in everything
    assert "Your class does not allow music models (it allows: chat-mini, image-pixels)" in everything
    assert "spent so far: $" in _text(code[-1])


def test_the_stored_notebooks_name_no_gateway_before_they_run() -> None:
    """Every demo notebook's stored outputs say the gateway is chosen when the cell runs, never "No API key"."""
    for path in sorted((REPO / "notebooks").glob("[0-9][0-9]-*.ipynb")):
        stored = path.read_text(encoding="utf-8")
        assert "No API key was found" not in stored, path.name
        if path.name != "11-classroom.ipynb":  # it starts a class of its own: no offline banner there
            assert "The gateway is chosen when this cell runs" in stored, path.name
