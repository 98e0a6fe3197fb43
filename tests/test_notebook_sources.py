"""The stored demo notebooks are exactly what notebooks/build.py makes from notebooks/src/ (no kernel, fast).

nbval (``pytest notebooks``) compares a fresh run's outputs with the stored ones;
these checks catch what it cannot: a text source edited without rebuilding its
notebook (cells, tags, or outputs made from an older text), a notebook edited by
hand, and test markers left in teaching code instead of cell tags.
"""

from __future__ import annotations

import ast
import importlib.util
from pathlib import Path

import nbformat
import pytest

NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"
_spec = importlib.util.spec_from_file_location("notebook_build", NOTEBOOKS / "build.py")
build = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(build)  # type: ignore[union-attr]

SOURCES = build.sources()
REBUILD = "rebuild it: python notebooks/build.py {}"


def _cells(notebook: nbformat.NotebookNode) -> list[tuple[str, str, list[str]]]:
    return [(cell.cell_type, cell.source, list(cell.metadata.get("tags", []))) for cell in notebook.cells]


def test_every_stored_notebook_has_a_text_source() -> None:
    """Each notebooks/*.ipynb is built from a notebooks/src/*.py and each source has its notebook."""
    stored = {path.stem for path in NOTEBOOKS.glob("*.ipynb")}
    assert SOURCES and stored == {source.stem for source in SOURCES}


@pytest.mark.parametrize("source", SOURCES, ids=lambda source: source.stem)
def test_stored_cells_match_the_text_source(source: Path) -> None:
    """The stored notebook's cells (type, source, tags) are the ones its text source converts to."""
    stored = nbformat.read(build.notebook_path(source), as_version=4)
    assert _cells(stored) == _cells(build.cells_from(source)), REBUILD.format(source.stem)


@pytest.mark.parametrize("source", SOURCES, ids=lambda source: source.stem)
def test_stored_outputs_come_from_the_current_source(source: Path) -> None:
    """The notebook was executed from the text as it is now (the SHA-256 stamped by the build matches)."""
    stored = nbformat.read(build.notebook_path(source), as_version=4)
    stamp = stored.metadata.get(build.STAMP, {}).get("source_sha256")
    assert stamp == build.source_digest(source), REBUILD.format(source.stem)


@pytest.mark.parametrize("source", SOURCES, ids=lambda source: source.stem)
def test_every_code_cell_was_executed(source: Path) -> None:
    """Every stored code cell has an execution count (the build ran the whole notebook)."""
    stored = nbformat.read(build.notebook_path(source), as_version=4)
    unrun = [cell.id for cell in stored.cells if cell.cell_type == "code" and cell.execution_count is None]
    assert not unrun, f"cells {unrun} were never run; " + REBUILD.format(source.stem)


@pytest.mark.parametrize("source", SOURCES, ids=lambda source: source.stem)
def test_test_markers_are_cell_tags_not_comments(source: Path) -> None:
    """No ``# NBVAL_...`` comment in teaching code: nbval's markers live in cell tags."""
    assert "NBVAL_" not in source.read_text()


@pytest.mark.parametrize("source", SOURCES, ids=lambda source: source.stem)
def test_dollar_amounts_in_markdown_are_not_read_as_maths(source: Path) -> None:
    """Two ``$`` in one stretch of Markdown make JupyterLab's MathJax set the text between them as a formula:
    "at $0.03 each ... bo's $0.05" showed as run-together italic letters. JupyterLab 4.6 ignores a ``\\$``
    escape (seen in Chromium); a code span between them does end the stretch. Reword (cents) or use code."""
    import re

    for cell in build.cells_from(source).cells:
        if cell.cell_type != "markdown":
            continue
        for stretch in re.split(r"`[^`]*`", cell.source):  # code spans keep their dollars and split the text
            assert stretch.count("$") < 2, f"{source.name}: two $ in one stretch of {cell.source[:80]!r}"


@pytest.mark.parametrize("source", SOURCES, ids=lambda source: source.stem)
def test_stored_notebook_exports_as_a_python_script(source: Path) -> None:
    """File > Save and Export As > Executable Script (nbconvert --to script) gives a .py file of
    Python, not a .txt: the stored language_info names the extension and the exporter."""
    from nbconvert import ScriptExporter

    stored = nbformat.read(build.notebook_path(source), as_version=4)
    script, resources = ScriptExporter().from_notebook_node(stored)
    assert resources["output_extension"] == ".py", REBUILD.format(source.stem)
    # Python once magics become calls (top-level await is the notebooks' own idiom)
    compile(script, f"{source.stem}.py", "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
