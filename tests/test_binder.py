"""Binder, simulated: a fresh virtual environment built only from binder/'s files runs the quickstart under nbval.

mybinder.org installs ``binder/requirements.txt`` and then runs ``binder/postBuild``
from the repository root. This test does the same in a new venv (with pip's
network access and cache, so it takes a minute or two), adds only the test
harness (pytest and nbval), and runs ``notebooks/00-quickstart.ipynb`` with that
venv's own kernel. The repository's pytest settings are left out (``-c /dev/null``):
the Binder environment has none of the test suite's plugins. The build starts
when the session starts and runs beside the other tests (``tests/early_start.py``).
"""

from __future__ import annotations

import os
import subprocess
import venv
from pathlib import Path

import early_start
import pytest

REPO = Path(__file__).resolve().parents[1]


def _run(command: list[str], env: dict[str, str], timeout: float) -> subprocess.CompletedProcess:
    return early_start.run(command, cwd=REPO, env=env, timeout=timeout)


def build_binder_venv_and_run_the_quickstart(tmp_path: Path) -> None:
    """The test's work (asserts included), started early: see ``tests/early_start.py``."""
    home = tmp_path / "binder-venv"
    venv.EnvBuilder(with_pip=True, clear=True).create(home)
    python = str(home / "bin" / "python")
    env = {key: value for key, value in early_start.environment().items() if key not in ("SVC_API_KEY", "SVC_BASE_URL", "PYTHONPATH")}
    env.update(PATH=f"{home / 'bin'}{os.pathsep}{env.get('PATH', '')}", VIRTUAL_ENV=str(home),
               GATEWAYKIT_OFFLINE_TIME_SCALE="0.05", PIP_DISABLE_PIP_VERSION_CHECK="1",
               # Started before any fixture sets them (tests/early_start.py): never the user's ledger or cache.
               GATEWAYKIT_LEDGER_PATH=str(tmp_path / "ledger.sqlite"), GATEWAYKIT_CACHE_PATH=str(tmp_path / "cache"))

    steps = [
        [python, "-m", "pip", "install", "-q", "-r", "binder/requirements.txt"],
        ["bash", "binder/postBuild"],
        [python, "-m", "pip", "install", "-q", "pytest", "nbval"],  # the test harness, not part of Binder
    ]
    for step in steps:
        done = _run(step, env, timeout=600)
        assert done.returncode == 0, f"{' '.join(step)} failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"

    check = _run([python, "-c", "import ipykernel, jupyterlab, ipywidgets, gatewaykit; print(ipykernel.__version__)"],
                 env, timeout=120)
    assert check.returncode == 0, check.stderr
    assert tuple(int(part) for part in check.stdout.strip().split(".")[:2]) >= (7, 1)

    result = _run(
        [python, "-m", "pytest", "-c", os.devnull, "--rootdir", str(REPO), "-p", "no:cacheprovider", "-q",
         "--nbval", "--nbval-current-env", "--nbval-sanitize-with", "notebooks/sanitize.cfg",
         "notebooks/00-quickstart.ipynb"],
        env,
        timeout=600,
    )
    assert result.returncode == 0, f"{result.stdout[-5000:]}\n{result.stderr[-3000:]}"
    assert " passed" in result.stdout and "failed" not in result.stdout


@pytest.mark.slow
@pytest.mark.timeout(900)
@pytest.mark.start_early.with_args(build_binder_venv_and_run_the_quickstart)
def test_quickstart_runs_in_an_environment_built_from_binder_files(tmp_path: Path) -> None:
    """A venv made from binder/requirements.txt + binder/postBuild runs the quickstart under nbval."""
    early_start.result(build_binder_venv_and_run_the_quickstart, tmp_path)
