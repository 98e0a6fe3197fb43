"""Grading time: the sample assignment with its model calls vs the same notebook without them.

Run: ``.venv/bin/python benchmarks/grading_time.py [--runs 3] [--smoke]``

Executes each notebook the way otter-grader and nbgrader do (nbclient, a fresh ``python3`` kernel per run)
with a grader's environment: ``GATEWAYKIT_OFFLINE=1``, ``GATEWAYKIT_SEED=0`` and a course key and URL set
(to an address nothing listens on: the switch must not use them).

- "with model calls": ``notebooks/assignments``' media lab, its solutions filled in: a chat answer, a JSON
  answer, an image, a 4-second video and a song, each checked by its test cells;
- "without": the same cells with every model call replaced by the value it would give (same imports, same
  ``gk.Client()``, same test cells), so the difference is what the model calls cost a grader.

Target (issue 30): the difference is at most 5 s. ``--smoke`` runs each notebook once (a quick check that the
script still works); the figures then carry more noise.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "notebooks" / "assignments"))

from media_lab import INTRO, QUESTIONS, SETUP  # noqa: E402

TARGET_SECONDS = 5.0

# What each solution leaves behind, without asking a model (the "without model calls" notebook).
NO_CALLS = {
    "q1": 'text = "Red, yellow and blue are the three primary colours of paint."',
    "q2": 'pet = json.loads(\'{"name": "Frances", "age": 7}\')',
    "q3": "size = (256, 256)",
    "q4": 'class Finished:\n    status = "completed"\n    def content(self):\n        return b"0" * 2000\n'
          "video = Finished()",
    "q5": "song = Finished()",
}


def notebook(with_calls: bool) -> nbformat.NotebookNode:
    cells = [nbformat.v4.new_markdown_cell(INTRO), nbformat.v4.new_code_cell(SETUP)]
    for name, _points, prompt, solution, _student, tests in QUESTIONS:
        cells.append(nbformat.v4.new_markdown_cell(prompt))
        cells.append(nbformat.v4.new_code_cell(solution if with_calls else NO_CALLS[name]))
        cells.extend(nbformat.v4.new_code_cell(test) for test in tests)
    return nbformat.v4.new_notebook(cells=cells, metadata={"kernelspec": {"name": "python3", "display_name": "Python 3",
                                                                          "language": "python"}})


def grade_once(with_calls: bool) -> float:
    started = time.perf_counter()
    NotebookClient(notebook(with_calls), timeout=300, kernel_name="python3").execute()  # raises if a test cell fails
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--smoke", action="store_true", help="one run of each notebook")
    args = parser.parse_args()
    runs = 1 if args.smoke else args.runs
    os.environ.update(GATEWAYKIT_OFFLINE="1", GATEWAYKIT_SEED="0", GATEWAYKIT_LEDGER_PATH="memory",
                      SVC_API_KEY="sk-course-key", SVC_BASE_URL="http://127.0.0.1:9")
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT / "src"), os.environ.get("PYTHONPATH")]))
    if not args.smoke:
        grade_once(False)  # warm the disk cache (imports) so neither side pays it alone
    without, with_calls = [], []
    for _ in range(runs):  # interleaved, so a busy moment of the machine hits both
        without.append(grade_once(False))
        with_calls.append(grade_once(True))
    plain, calls = statistics.median(without), statistics.median(with_calls)
    print(f"grading without model calls : {plain:6.2f} s (median of {runs}: {', '.join(f'{t:.2f}' for t in without)})")
    print(f"grading with chat, JSON, image, video, song : {calls:6.2f} s "
          f"(median of {runs}: {', '.join(f'{t:.2f}' for t in with_calls)})")
    print(f"difference: {calls - plain:+.2f} s (target <= {TARGET_SECONDS:.0f} s): "
          f"{'OK' if calls - plain <= TARGET_SECONDS else 'OVER TARGET'}")


if __name__ == "__main__":
    main()
