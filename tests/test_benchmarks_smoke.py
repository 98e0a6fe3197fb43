"""Every script in benchmarks/ still runs: each in ``--smoke`` mode (tiny counts, seconds), none failing.

The figures stay out of the suite (they are printed by the scripts, never asserted);
this keeps the scripts alive (issue 34: a Host-header rule broke gateway_throughput.py
and nothing noticed). The scripts start together, each in its own interpreter, and each
test waits for its own; a new script is picked up without editing this file, and must
take ``--smoke``.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Iterator

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = sorted(path.name for path in (ROOT / "benchmarks").glob("*.py"))
DEADLINE_SECONDS = 240  # per script, on a loaded machine; each takes a few seconds when idle


@pytest.fixture(scope="module")
def smoke_runs(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, subprocess.Popen]]:
    # Only the scripts whose tests were selected start (``-k ledger`` runs one script, not all of them).
    chosen = [name for name in SCRIPTS
              if any(getattr(item, "callspec", None) is not None and item.callspec.params.get("name") == name
                     for item in request.session.items)]
    folder = tmp_path_factory.mktemp("benchmark-smoke")
    # Nothing reaches this user's own ledger database, nor a real gateway.
    environment = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "GATEWAYKIT_LEDGER_PATH": str(folder / "ledger.sqlite")}
    environment.pop("SVC_API_KEY", None)
    environment.pop("SVC_BASE_URL", None)
    runs = {
        name: subprocess.Popen(
            [sys.executable, str(ROOT / "benchmarks" / name), "--smoke"],
            cwd=ROOT, env=environment, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        )
        for name in chosen
    }  # fmt: skip
    yield runs
    for run in runs.values():  # a run its test did not finish (a failure elsewhere, ^C): stopped, its pipe closed
        if run.poll() is None:
            run.kill()
            run.wait()
        if run.stdout is not None:
            run.stdout.close()


def test_every_script_is_found() -> None:
    """The glob finds the scripts (a moved folder must not turn this file into no test at all)."""
    assert {"client_overhead.py", "gateway_throughput.py", "ledger.py"} <= set(SCRIPTS)


@pytest.mark.slow
@pytest.mark.parametrize("name", SCRIPTS)
def test_benchmark_runs_in_smoke_mode(name: str, smoke_runs: dict[str, subprocess.Popen]) -> None:
    """``python benchmarks/<name> --smoke`` exits 0 within the deadline."""
    run = smoke_runs[name]
    started = time.monotonic()
    try:
        output, _ = run.communicate(timeout=DEADLINE_SECONDS)
    except subprocess.TimeoutExpired:
        run.kill()
        output, _ = run.communicate()
        pytest.fail(f"{name} --smoke still ran after {DEADLINE_SECONDS} s:\n{output[-3000:]}")
    assert run.returncode == 0, f"{name} --smoke exited {run.returncode} ({time.monotonic() - started:.0f} s):\n{output[-3000:]}"
