"""Colab, simulated: ``gatewaykit[colab]`` leaves Colab's Jupyter stack alone and the quickstart runs on it.

Colab pins its kernel's packages (google-colab requires ``ipython==7.34.0``) and
warns that upgrading IPython, ipykernel, tornado, prompt-toolkit or pyzmq "can
cause your runtime to repeatedly crash". This test builds
a venv with Colab's versions of them (from Colab's published ``pip freeze``,
2026-08), asks pip (``--dry-run --report``) what installing ``.[colab]`` would
do, installs it, and runs the quickstart and the video notebook (job progress
with ipywidgets 7 Cancel buttons) under nbval with that venv's kernel, then
drives a chat box's widgets there (``tests/colab_chat_box_check.py``).

To stay lean, ipywidgets and widgetsnbextension go in without their
dependencies: widgetsnbextension 3 would pull in the classic ``notebook``
server, which the kernel never imports. So the check is stronger than "not
upgraded": the report must install none of the protected packages at all.
The work starts when the session starts and runs beside the other tests
(``tests/early_start.py``).
"""

from __future__ import annotations

import json
import os
import subprocess
import venv
from pathlib import Path

import early_start
import pytest

REPO = Path(__file__).resolve().parents[1]

# Colab's versions (googlecolab/backend-info pip-freeze.txt, 2026-08).
COLAB_PINS = {
    "ipython": "7.34.0",
    "ipykernel": "6.17.1",
    "ipywidgets": "7.7.1",
    "widgetsnbextension": "3.6.10",
    "jupyterlab-widgets": "3.0.16",
    "jupyter-client": "7.4.9",
    "tornado": "6.5.7",
    "pyzmq": "26.2.1",
    "prompt-toolkit": "3.0.53",
    "traitlets": "5.7.1",
}
WITHOUT_DEPENDENCIES = ("ipywidgets", "widgetsnbextension")
PROTECTED = {*COLAB_PINS, "notebook", "jupyterlab"}


def _canonical(name: str) -> str:
    return name.lower().replace("_", "-").replace(".", "-")


def _run(command: list[str], env: dict[str, str], timeout: float = 600) -> subprocess.CompletedProcess:
    done = early_start.run(command, cwd=REPO, env=env, timeout=timeout)
    assert done.returncode == 0, f"{' '.join(command)} failed:\n{done.stdout[-4000:]}\n{done.stderr[-3000:]}"
    return done


def install_colab_stack_and_gatewaykit_then_run_notebooks(tmp_path: Path) -> None:
    """The test's work (asserts included), started early: see ``tests/early_start.py``."""
    home = tmp_path / "colab-venv"
    venv.EnvBuilder(with_pip=True, clear=True).create(home)
    python = str(home / "bin" / "python")
    env = {key: value for key, value in early_start.environment().items() if key not in ("SVC_API_KEY", "SVC_BASE_URL", "PYTHONPATH")}
    env.update(PATH=f"{home / 'bin'}{os.pathsep}{env.get('PATH', '')}", VIRTUAL_ENV=str(home),
               GATEWAYKIT_OFFLINE_TIME_SCALE="0.05", PIP_DISABLE_PIP_VERSION_CHECK="1",
               # Started before any fixture sets them (tests/early_start.py): never the user's ledger or cache.
               GATEWAYKIT_LEDGER_PATH=str(tmp_path / "ledger.sqlite"), GATEWAYKIT_CACHE_PATH=str(tmp_path / "cache"))
    pinned = [f"{name}=={version}" for name, version in COLAB_PINS.items()]
    loose = [pin for pin in pinned if pin.split("==")[0] in WITHOUT_DEPENDENCIES]
    rest = [pin for pin in pinned if pin not in loose]

    # Colab's stack, and the test harness held to it (nbval must not upgrade the kernel either).
    _run([python, "-m", "pip", "install", "-q", "--no-deps", *loose], env)
    _run([python, "-m", "pip", "install", "-q", *rest, "ipython-genutils~=0.2.0", "pytest", "nbval"], env)

    report_path = tmp_path / "report.json"
    _run([python, "-m", "pip", "install", "--dry-run", "--quiet", "--report", str(report_path), ".[colab]"], env)
    report = json.loads(report_path.read_text())
    would_install = {_canonical(item["metadata"]["name"]): item["metadata"]["version"] for item in report["install"]}
    touched = {name: version for name, version in would_install.items() if name in PROTECTED}
    assert not touched, f"installing gatewaykit[colab] would change Colab's kernel packages: {touched}"
    assert "gatewaykit" in would_install

    _run([python, "-m", "pip", "install", "-q", ".[colab]"], env)
    freeze = _run([python, "-m", "pip", "list", "--format=json"], env).stdout
    installed = {_canonical(item["name"]): item["version"] for item in json.loads(freeze)}
    assert {name: installed.get(name) for name in COLAB_PINS} == COLAB_PINS

    _run([python, "-m", "pytest", "-c", os.devnull, "--rootdir", str(REPO), "-p", "no:cacheprovider", "-q",
          "--nbval", "--nbval-current-env", "--nbval-sanitize-with", "notebooks/sanitize.cfg",
          "notebooks/00-quickstart.ipynb", "notebooks/03-video.ipynb"], env)

    # The chat box on ipywidgets 7.7 without anywidget: the Textarea fallback, Send, the picker, Stop.
    done = _run([python, "tests/colab_chat_box_check.py"], env, timeout=300)
    assert "chat box ok under ipywidgets 7.7.1" in done.stdout


@pytest.mark.slow
@pytest.mark.timeout(900)
@pytest.mark.start_early.with_args(install_colab_stack_and_gatewaykit_then_run_notebooks)
def test_colab_extra_keeps_colabs_jupyter_and_runs_the_quickstart(tmp_path: Path) -> None:
    """Installing .[colab] over Colab's pinned kernel stack changes none of it; quickstart and video pass nbval."""
    early_start.result(install_colab_stack_and_gatewaykit_then_run_notebooks, tmp_path)
