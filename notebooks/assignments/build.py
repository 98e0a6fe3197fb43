"""Write the sample assignment's notebooks from ``media_lab.py``: ``python notebooks/assignments/build.py``.

- ``otter/media-lab.ipynb``: otter-grader's master notebook (``# ASSIGNMENT CONFIG``, ``# BEGIN QUESTION``,
  ``# BEGIN SOLUTION``, ``# BEGIN TESTS`` cells), for ``otter assign``;
- ``nbgrader/source/media-lab/media-lab.ipynb``: nbgrader's source notebook (solution and autograded test
  cells by their ``nbgrader`` metadata), for ``nbgrader generate_assignment``.

No outputs are stored: the tools run the notebooks themselves. ``--check`` fails when a written notebook
differs from what this script writes (the grading tests run it).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import nbformat

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))

from media_lab import INTRO, NAME, QUESTIONS, SETUP  # noqa: E402

OTTER_CONFIG = """# ASSIGNMENT CONFIG
name: media-lab
init_cell: true
check_all_cell: false
export_cell: false
run_tests: false
generate: true
tests:
  files: false"""


def _raw(text: str) -> nbformat.NotebookNode:
    return nbformat.v4.new_raw_cell(text)


def otter_master() -> nbformat.NotebookNode:
    cells = [_raw(OTTER_CONFIG), nbformat.v4.new_markdown_cell(INTRO), nbformat.v4.new_code_cell(SETUP)]
    for name, points, prompt, solution, _student, tests in QUESTIONS:
        cells.append(_raw(f"# BEGIN QUESTION\nname: {name}\npoints: {points}"))
        cells.append(nbformat.v4.new_markdown_cell(prompt))
        cells.append(_raw("# BEGIN SOLUTION"))
        cells.append(nbformat.v4.new_code_cell(f"# BEGIN SOLUTION\n{solution}\n# END SOLUTION"))
        cells.append(_raw("# END SOLUTION"))
        cells.append(_raw("# BEGIN TESTS"))
        cells.extend(nbformat.v4.new_code_cell(test) for test in tests)
        cells.append(_raw("# END TESTS"))
        cells.append(_raw("# END QUESTION"))
    return _notebook(cells)


def _nbgrader(cell: nbformat.NotebookNode, grade_id: str, **flags: object) -> nbformat.NotebookNode:
    cell.metadata["nbgrader"] = {"grade_id": grade_id, "schema_version": 3, "locked": False, "solution": False,
                                 "grade": False, "task": False, **flags}
    return cell


def nbgrader_source() -> nbformat.NotebookNode:
    cells = [nbformat.v4.new_markdown_cell(INTRO),
             _nbgrader(nbformat.v4.new_code_cell(SETUP), "setup", locked=True)]
    for name, points, prompt, solution, _student, tests in QUESTIONS:
        cells.append(_nbgrader(nbformat.v4.new_markdown_cell(prompt), f"{name}-prompt", locked=True))
        cells.append(_nbgrader(nbformat.v4.new_code_cell(f"### BEGIN SOLUTION\n{solution}\n### END SOLUTION"),
                               name, solution=True))
        share = points / len(tests)
        for number, test in enumerate(tests, 1):
            cells.append(_nbgrader(nbformat.v4.new_code_cell(test), f"{name}-test-{number}", grade=True,
                                   locked=True, points=share))
    return _notebook(cells)


def _notebook(cells: list) -> nbformat.NotebookNode:
    notebook = nbformat.v4.new_notebook(cells=cells)
    notebook.metadata = {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"},
                         "language_info": {"name": "python"}}
    for number, cell in enumerate(notebook.cells):
        cell.id = f"{NAME}-{number}"  # stable ids: a rebuild changes nothing
    return notebook


def written() -> dict[Path, str]:
    """Each notebook's path and its text as this script writes it."""
    return {HERE / "otter" / f"{NAME}.ipynb": nbformat.writes(otter_master()) + "\n",
            HERE / "nbgrader" / "source" / NAME / f"{NAME}.ipynb": nbformat.writes(nbgrader_source()) + "\n"}


def main(argv: list[str]) -> int:
    stale = []
    for path, text in written().items():
        if "--check" in argv:
            if not path.exists() or path.read_text() != text:
                stale.append(str(path))
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    if stale:
        print(json.dumps({"stale, run python notebooks/assignments/build.py": stale}))
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
