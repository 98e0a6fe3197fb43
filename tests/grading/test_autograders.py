"""otter-grader and nbgrader grade the sample assignment five times each with the course key and URL set
to a counting server: identical scores and outputs every time, zero requests, no change to the student's code.

The otter and nbgrader steps are docs/grading.md's recipes, run as written (they unset the key and turn on
GATEWAYKIT_OFFLINE=1 and GATEWAYKIT_SEED=0 themselves); the tools run from .venv-grading (see grading_venv.py,
installed by the docs' install line) with this tree's gatewaykit.
"""

from __future__ import annotations

import csv
import json
import os
import re
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import nbformat
import pytest

from grading.counting_server import CountingServer
from grading.grading_venv import grading_bin

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
ASSIGNMENTS = ROOT / "notebooks" / "assignments"
sys.path.insert(0, str(ASSIGNMENTS))
from media_lab import NAME, QUESTIONS  # noqa: E402

RUNS = 5
DOCS = ROOT / "docs" / "grading.md"


def recipe(name: str) -> str:
    """The block of docs/grading.md marked ``<!-- recipe: name -->``, as written there."""
    found = re.search(rf"<!-- recipe: {re.escape(name)} -->\n```\w+\n(.*?)```", DOCS.read_text(), re.S)
    assert found, f"docs/grading.md has no recipe {name!r}"
    return found.group(1)


def run_recipe(name: str, cwd: Path, env: dict[str, str]) -> str:
    """A bash recipe of the docs, run as written (stopping at the first failing line)."""
    return run(["bash", "-euo", "pipefail", "-c", recipe(name)], cwd, env)


def grader_env(server: CountingServer, tools: bool = True, switches: bool = True) -> dict[str, str]:
    """A grader's shell: the course key and URL are set (to the counting server); ``switches``: and so are the
    grading switches (a recipe of the docs sets its own); ``tools``: otter and nbgrader first on the PATH."""
    environ = {k: v for k, v in os.environ.items() if not k.startswith(("SVC_", "GATEWAYKIT_", "VIRTUAL_ENV"))}
    path = f"{grading_bin()}{os.pathsep}{environ.get('PATH', '')}" if tools else environ.get("PATH", "")
    on = {"GATEWAYKIT_OFFLINE": "1", "GATEWAYKIT_SEED": "0"} if switches else {}
    return {**environ, "PYTHONPATH": str(ROOT / "src"), "SVC_API_KEY": "sk-course-key", "SVC_BASE_URL": server.url,
            **on, "GATEWAYKIT_LEDGER_PATH": "memory", "PATH": path}


def run(command: list[str], cwd: Path, env: dict[str, str]) -> str:
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        raise AssertionError(f"{' '.join(command)} exited {done.returncode}\n{done.stdout[-2000:]}\n{done.stderr[-3000:]}")
    return done.stdout


def graders_of(folder: Path, names: list[str]) -> list[Path]:
    """``RUNS`` graders' folders, each with its own copy of ``names`` from ``folder``."""
    graders = []
    for number in range(RUNS):
        grader = folder / f"grader-{number}"
        grader.mkdir()
        for name in names:
            (shutil.copytree if (folder / name).is_dir() else shutil.copy)(folder / name, grader / name)
        graders.append(grader)
    return graders


def on_every(graders: list[Path], grade: Any) -> None:
    """``grade(grader)`` on every grader at once (each its own processes and files), as a course's graders do."""
    with ThreadPoolExecutor(len(graders)) as pool:
        list(pool.map(grade, graders))


def fill_answers(notebook: Any, is_answer_cell: Any) -> Any:
    """The sample student's answers typed into the released notebook's answer cells, in order."""
    answers = iter(question[4] for question in QUESTIONS)
    for cell in notebook.cells:
        if is_answer_cell(cell):
            cell.source = next(answers)
    assert next(answers, None) is None, "every question has an answer cell"
    return notebook


def test_the_docs_install_line_is_what_ci_installs_and_holds_the_tested_pins() -> None:
    """docs/grading.md's install line is .ci/run's for .venv-grading, and the grading extra pins both tools."""
    install = recipe("install")
    assert '.venv-grading/bin/python -m pip install -e ".[grading]"' in install
    assert '.venv-grading/bin/python -m pip install -q -e ".[grading]"' in (ROOT / ".ci" / "run").read_text()
    extra = re.search(r"^grading = \[(.*?)^\]", (ROOT / "pyproject.toml").read_text(), re.S | re.M)
    assert extra and '"otter-grader==7.0.0"' in extra.group(1) and '"nbgrader==0.9.6"' in extra.group(1)


def test_the_build_script_wrote_the_assignment_notebooks() -> None:
    """notebooks/assignments/*.ipynb are what build.py writes from media_lab.py."""
    done = subprocess.run([sys.executable, str(ASSIGNMENTS / "build.py"), "--check"], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout


def test_otter_grades_the_same_every_time_and_sends_nothing(tmp_path: Path) -> None:
    """docs/grading.md's otter recipes as written: otter assign, then the grading step on five graders at once: one
    score, one results.json, zero requests counted."""
    shutil.copy(ASSIGNMENTS / "otter" / f"{NAME}.ipynb", tmp_path)
    with CountingServer() as server:
        env = grader_env(server, switches=False)
        run_recipe("otter-assign", tmp_path, env)
        student = nbformat.read(tmp_path / "dist" / "student" / f"{NAME}.ipynb", as_version=4)
        fill_answers(student, lambda cell: "otter_answer_cell" in cell.metadata.get("tags", []))
        nbformat.write(student, tmp_path / "submission.ipynb")
        graders = graders_of(tmp_path, ["dist", "submission.ipynb"])  # each a fresh grader: no results/ yet
        on_every(graders, lambda grader: run_recipe("otter-grade", grader, env))
        results = [json.loads((grader / "results" / "results.json").read_text()) for grader in graders]
        assert server.total == 0, server.requests
    scores = [[(test["name"], test.get("score"), test.get("max_score")) for test in result["tests"]] for result in results]
    print(f"otter scores, {RUNS} runs:", scores[0], f"counting server: {server.total} requests")
    assert all(result == results[0] for result in results), "otter's results differ between runs"
    by_question = {name: score for name, score, _ in scores[0]}
    assert (by_question["q1"], by_question["q2"], by_question["q5"]) == (1.0, 1.0, 1.0)  # q2: the age is missing


def test_nbgrader_autogrades_the_same_every_time_and_sends_nothing(tmp_path: Path) -> None:
    """docs/grading.md's nbgrader recipes as written (its config, its submitted/<student>/<assignment>/ layout):
    generate_assignment, then the grading step on five graders at once: one grade table, identical outputs, zero
    requests."""
    course = tmp_path / "course"
    shutil.copytree(ASSIGNMENTS / "nbgrader" / "source", course / "source")
    (course / "nbgrader_config.py").write_text(recipe("nbgrader-config"))
    with CountingServer() as server:
        env = grader_env(server, switches=False)
        run_recipe("nbgrader-release", course, env)
        released = nbformat.read(course / "release" / NAME / f"{NAME}.ipynb", as_version=4)
        names = {question[0] for question in QUESTIONS}
        fill_answers(released, lambda cell: cell.metadata.get("nbgrader", {}).get("grade_id") in names)
        submitted = course / "submitted" / "student1" / NAME
        submitted.mkdir(parents=True)
        nbformat.write(released, submitted / f"{NAME}.ipynb")
        graders = graders_of(tmp_path, ["course"])
        on_every(graders, lambda grader: run_recipe("nbgrader-grade", grader / "course", env))
        grades, outputs = [], []
        for grader in graders:
            with open(grader / "course" / "grades.csv", newline="") as table:
                grades.append([{k: v for k, v in row.items() if k != "timestamp"} for row in csv.DictReader(table)])
            graded = nbformat.read(grader / "course" / "autograded" / "student1" / NAME / f"{NAME}.ipynb", as_version=4)
            outputs.append([cell.get("outputs") for cell in graded.cells if cell.cell_type == "code"])
        assert server.total == 0, server.requests
    print(f"nbgrader grades, {RUNS} runs:", grades[0], f"counting server: {server.total} requests")
    assert all(table == grades[0] for table in grades), "nbgrader's grades differ between runs"
    assert all(cells == outputs[0] for cells in outputs), "the autograded notebook's outputs differ between runs"
    assert float(grades[0][0]["score"]) == 5.0 and float(grades[0][0]["max_score"]) == 6.0


def test_nbval_validates_a_course_notebook_with_the_switch_on(tmp_path: Path) -> None:
    """A course repository's CI: pytest --nbval-lax on the solution notebook, switches on, key set: passes, 0 requests."""
    from media_lab import INTRO, SETUP

    cells = [nbformat.v4.new_markdown_cell(INTRO), nbformat.v4.new_code_cell(SETUP)]
    for _name, _points, prompt, solution, _student, tests in QUESTIONS:
        cells += [nbformat.v4.new_markdown_cell(prompt), nbformat.v4.new_code_cell(solution)]
        cells += [nbformat.v4.new_code_cell(test) for test in tests]
    nbformat.write(nbformat.v4.new_notebook(cells=cells), tmp_path / f"{NAME}.ipynb")
    (tmp_path / "pytest.ini").write_text("[pytest]\naddopts = --nbval-lax -p no:cacheprovider\n")
    with CountingServer() as server:
        env = grader_env(server, tools=False)
        output = run([sys.executable, "-m", "pytest", "-q", f"{NAME}.ipynb"], tmp_path, env)
        assert server.total == 0, server.requests
    assert f"{1 + sum(1 + len(q[5]) for q in QUESTIONS)} passed" in output, output[-2000:]
