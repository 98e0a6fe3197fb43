"""The API key never lands in saved notebooks, their HTML exports or the ledger's files.

Every notebook in notebooks/ (and a synthetic one exercising chat, image, job,
error and ledger displays) runs in a real kernel with a known key in
SVC_API_KEY and SVC_BASE_URL pointing at a test gateway whose account holds
that key; the executed notebook is saved, converted to HTML, and every file
written is scanned for the key and for its unique suffix.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterator

import nbformat
import pytest
from reliability_gateways import one_account

import gatewaykit as gk

KNOWN_KEY = "sk-bf-hygiene-Zq7XkP2vLw9RtY4mNc8"
SUFFIX = KNOWN_KEY[-12:]
NOTEBOOKS = sorted((Path(__file__).resolve().parents[2] / "notebooks").glob("*.ipynb"))

SYNTHETIC_CELLS = [
    "import gatewaykit as gk\nclient = gk.Client()\nledger = client.ledger\nclient",
    "client.models.list()",
    "answer = client.chat.completions.create(model='chat-mini', messages=[{'role': 'user', 'content': 'hi'}])\n"
    "answer",
    "client.chat.ask('Tell me a short story', model='chat-mini')",
    "client.images.generate(model='image-pixels', prompt='a key under a mat', width=256, height=256)",
    "job = client.music.create(model='music-song', prompt='folk', lyrics_prompt='[Verse]\\nno keys here\\n')\n"
    "job.wait(timeout=60)\njob",
    "try:\n    client.chat.completions.create(model='nope', messages=[], validate=False)\n"
    "except gk.GatewayError as error:\n    caught = error\ncaught",
    "try:\n    gk.Client(base_url='http://127.0.0.1:9', max_retries=0).models.list()\n"
    "except gk.GatewayError as error:\n    offline_error = error\noffline_error",
    "import os\nsaved = gk.Ledger(path='ledger.jsonl')\n"
    "with gk.Client(ledger=saved) as c:\n"
    "    c.chat.completions.create(model='chat-mini', messages=[{'role': 'user', 'content': 'cost?'}])\n"
    "saved.to_csv('ledger.csv')\nsaved",
    "ledger.summary()",
    "%load_ext gatewaykit",
    "%%chat\nWhat is a lighthouse?",
]


@pytest.fixture(scope="module")
def hygiene_gateway() -> Iterator[Any]:
    with gk.emulator.start(accounts=one_account("hygiene", KNOWN_KEY, balance=1000.0), time_scale=0) as running:
        yield running


@pytest.fixture
def known_key_env(hygiene_gateway: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """Kernels started now inherit the known key and the test gateway's URL."""
    monkeypatch.setenv("SVC_API_KEY", KNOWN_KEY)
    monkeypatch.setenv("SVC_BASE_URL", hygiene_gateway.base_url)
    monkeypatch.setenv("GATEWAYKIT_OFFLINE_TIME_SCALE", "0")


def _execute_and_export(notebook: Any, workdir: Path, name: str) -> list[str]:
    """Run ``notebook`` in ``workdir``, save it and its HTML there; the errors of failed cells."""
    from nbclient import NotebookClient
    from nbconvert import HTMLExporter

    NotebookClient(notebook, timeout=180, kernel_name="python3", allow_errors=True,
                   resources={"metadata": {"path": str(workdir)}}).execute()
    nbformat.write(notebook, workdir / f"{name}.executed.ipynb")
    html, _ = HTMLExporter().from_notebook_node(notebook)
    (workdir / f"{name}.html").write_text(html, encoding="utf-8")
    return [output.get("ename", "") + ": " + output.get("evalue", "")
            for cell in notebook.cells if cell.cell_type == "code"
            for output in cell.get("outputs", []) if output.get("output_type") == "error"]


def _files_with_the_key(directory: Path) -> list[str]:
    found = []
    for path in directory.rglob("*"):
        if path.is_file():
            data = path.read_bytes()
            if KNOWN_KEY.encode() in data or SUFFIX.encode() in data:
                found.append(path.name)
    return found


def test_synthetic_notebook_outputs_and_exports_never_hold_the_key(known_key_env, tmp_path):
    """Chat, stream, image, job, errors, ledger (JSONL, CSV, display) and magics: no key in any file."""
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(src) for src in SYNTHETIC_CELLS])
    errors = _execute_and_export(notebook, tmp_path, "synthetic")
    assert errors == []
    assert (tmp_path / "ledger.jsonl").stat().st_size > 0 and (tmp_path / "ledger.csv").exists()
    assert "synthetic.html" in {p.name for p in tmp_path.iterdir()}
    assert _files_with_the_key(tmp_path) == []


@pytest.mark.slow
@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_demo_notebook_outputs_and_exports_never_hold_the_key(known_key_env, tmp_path, path):
    """Each demo notebook, run with the known key, saved and exported to HTML: no key in any file."""
    import shutil

    for media in ("media",):
        if (path.parent / media).is_dir():
            shutil.copytree(path.parent / media, tmp_path / media)
    notebook = nbformat.read(path, as_version=4)
    _execute_and_export(notebook, tmp_path, path.stem)
    assert _files_with_the_key(tmp_path) == []
