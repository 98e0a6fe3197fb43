"""Build the demo notebooks from their text sources and store the outputs of one run.

    python notebooks/build.py                 # every notebooks/src/*.py -> notebooks/*.ipynb, executed
    python notebooks/build.py 03-video        # only the ones named
    python notebooks/build.py --no-execute    # cells only (outputs dropped; `pytest notebooks` then fails)

The text files in ``notebooks/src/`` (Jupytext ``py:percent``) are what people
edit and review; the ``.ipynb`` files are built from them, never edited by hand.
A new notebook is one new ``notebooks/src/NN-name.py`` and this command. Cells
whose output changes from run to run (live streams, progress, timings) carry
the tag ``nbval-ignore-output`` (``# %% tags=["nbval-ignore-output"]``) and are
followed by a cell that asserts on the result. IPython magics are written
commented in the text (``# %pip install ...``), as Jupytext does; the notebook
gets them back as magics.

Outputs come from the offline gateway (no key, ``GATEWAYKIT_OFFLINE_TIME_SCALE``
0.05), so GitHub shows them and nbval (``pytest notebooks``) compares a fresh
run with them through ``sanitize.cfg``; the offline banner is stored as the line
saying the gateway is chosen when the cell runs (a reader has set no key yet). Each notebook's metadata records the
SHA-256 of the text it was executed from; ``tests/test_notebook_sources.py``
fails when a source changed after its notebook was built.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import sys
from pathlib import Path

import jupytext
import nbformat

HERE = Path(__file__).resolve().parent
SOURCES = HERE / "src"
KERNELSPEC = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
# What a Python kernel reports, minus its version (stored notebooks stay the same from machine to
# machine); nbconvert needs file_extension and nbconvert_exporter for "Save as script" to give a .py.
LANGUAGE_INFO = {"name": "python", "file_extension": ".py", "mimetype": "text/x-python",
                 "codemirror_mode": {"name": "ipython", "version": 3}, "pygments_lexer": "ipython3",
                 "nbconvert_exporter": "python"}
STAMP = "gatewaykit"  # notebook metadata key: {"source_sha256": ...}


def sources() -> list[Path]:
    """Every notebook's text source, in notebook order."""
    return sorted(SOURCES.glob("[0-9][0-9]-*.py"))


def notebook_path(source: Path) -> Path:
    return HERE / f"{source.stem}.ipynb"


def source_digest(source: Path) -> str:
    return hashlib.sha256(source.read_bytes()).hexdigest()


def cells_from(source: Path) -> nbformat.NotebookNode:
    """The notebook a text source describes (no outputs), with stable cell ids for small diffs."""
    notebook = jupytext.read(source, fmt="py:percent")
    notebook.metadata = {"kernelspec": dict(KERNELSPEC), "language_info": dict(LANGUAGE_INFO),
                         STAMP: {"source": f"src/{source.name}", "source_sha256": source_digest(source)}}
    for index, cell in enumerate(notebook.cells):
        cell["id"] = f"{source.stem[:2]}-{index:02d}"
        cell.metadata = {"tags": cell.metadata["tags"]} if cell.metadata.get("tags") else {}
    return notebook


def execute(notebook: nbformat.NotebookNode) -> None:
    from nbclient import NotebookClient

    NotebookClient(notebook, timeout=300, kernel_name="python3", record_timing=False,
                   resources={"metadata": {"path": str(HERE)}}).execute()
    notebook.metadata.pop("widgets", None)
    notebook.metadata["language_info"] = dict(LANGUAGE_INFO)
    drop_widget_views(notebook)
    store_gateway_choice(notebook)


def store_gateway_choice(notebook: nbformat.NotebookNode) -> None:
    """The offline banner a build shows becomes the line saying the gateway is chosen when the cell runs: a
    reader who has not run the notebook was not told "No API key was found" (sanitize.cfg maps both to one
    token, so nbval still checks that this output is the gateway notice)."""
    from gatewaykit.notebook.displays.banner import gateway_chosen_at_run

    for cell in notebook.cells:
        for output in cell.get("outputs", []):
            if "gk-offline-banner" in output.get("data", {}).get("text/html", ""):
                output["data"] = gateway_chosen_at_run()


def drop_widget_views(notebook: nbformat.NotebookNode) -> None:
    """Keep a widget output's static fallback only: no widget state is saved, so a stored widget
    view would show as "model not found" in a reopened notebook."""
    for cell in notebook.cells:
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            if WIDGET_VIEW in data and len(data) > 1:
                del data[WIDGET_VIEW]


def offline_environment() -> None:
    """Outputs are always made on the offline gateway, at the speed the tests use."""
    for variable in ("SVC_API_KEY", "SVC_BASE_URL"):
        os.environ.pop(variable, None)
    os.environ.setdefault("GATEWAYKIT_OFFLINE_TIME_SCALE", "0.05")
    os.environ["GATEWAYKIT_LEDGER_PATH"] = "memory"  # stored outputs never show the builder's own ledger


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-execute", action="store_true", help="write the cells without running them")
    parser.add_argument("names", nargs="*", help="notebooks to build, e.g. 03-video (default: all)")
    args = parser.parse_args(argv)
    chosen = [source for source in sources()
              if not args.names or any(source.stem.startswith(name.removesuffix(".ipynb")) for name in args.names)]
    if not chosen:
        parser.error(f"no source in {SOURCES} matches {args.names}")
    offline_environment()
    for source in chosen:
        notebook = cells_from(source)
        if not args.no_execute:
            execute(notebook)
        nbformat.validate(notebook)
        target = notebook_path(source)
        nbformat.write(notebook, target)
        print(f"wrote {target.name} ({target.stat().st_size // 1024} KB)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
