"""Where otter-grader and nbgrader live: ``.venv-grading``, which ``.ci/run`` installs in the background.

They are not in ``.[test]``: their pins (docutils, via fica) would move the shared test environment.
A fixture waits for the install's ``.ready`` marker; when the install ``.failed`` the tests are skipped
with the install log as the reason (and the same on stderr), never silently.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pytest

VENV = Path(__file__).resolve().parents[2] / ".venv-grading"


def grading_bin(deadline_seconds: float = 2400.0) -> Path:
    """``.venv-grading/bin`` once its install finished; skips (loudly) only if that install failed."""
    deadline = time.monotonic() + deadline_seconds
    while not (VENV / ".ready").exists():
        if (VENV / ".failed").exists():
            log = (VENV / "install.log").read_text(errors="replace")[-3000:] if (VENV / "install.log").exists() else ""
            message = f"INSTALLING otter-grader AND nbgrader INTO {VENV} FAILED; the autograder tests did not run:\n{log}"
            print(message, file=sys.stderr)
            pytest.skip(message)
        if not (VENV / "install.log").exists():
            message = f"{VENV} is not installed (bash .ci/run installs otter-grader and nbgrader there)"
            if os.environ.get("CI"):
                pytest.fail(message)
            pytest.skip(message)
        if time.monotonic() > deadline:
            pytest.fail(f"gave up after {deadline_seconds:.0f} s waiting for .ci/run's install of {VENV}")
        time.sleep(1.0)
    return VENV / "bin"
