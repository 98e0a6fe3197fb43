"""Voilà serves the playground notebook as an app: the page is rendered from a kernel that built the widgets."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from jupyter_browser import free_port

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[2]


def test_voila_serves_the_playground(tmp_path: Path) -> None:
    """`voila notebooks/09-playground.ipynb` answers 200 with the playground's widget in the page."""
    port = free_port()
    env = {key: value for key, value in os.environ.items() if key not in ("SVC_API_KEY", "SVC_BASE_URL")}
    env.update(GATEWAYKIT_OFFLINE_TIME_SCALE="0", JUPYTER_RUNTIME_DIR=str(tmp_path / "runtime"))
    command = [sys.executable, "-m", "voila", "notebooks/09-playground.ipynb", "--no-browser",
               f"--port={port}", "--Voila.ip=127.0.0.1"]  # fmt: skip
    with (tmp_path / "voila.log").open("w") as log:
        server = subprocess.Popen(command, cwd=REPO, env=env, stdout=log, stderr=subprocess.STDOUT)
        try:
            deadline = time.monotonic() + 60
            while True:
                assert server.poll() is None, (tmp_path / "voila.log").read_text()[-3000:]
                try:
                    page = httpx.get(f"http://127.0.0.1:{port}/", timeout=90)
                    break
                except httpx.ConnectError:
                    assert time.monotonic() < deadline, "voila did not start"
                    time.sleep(0.3)
        finally:
            server.terminate()
            try:
                server.wait(15)
            except subprocess.TimeoutExpired:
                server.kill()
    assert page.status_code == 200
    assert "application/vnd.jupyter.widget-view+json" in page.text  # the kernel ran gk.playground(client)
    assert "Traceback" not in page.text
