"""A JupyterLab server and a headless Chromium page for the browser tests.

JupyterLab is started on 127.0.0.1 with a random token in a temporary
directory, with user settings that keep every cell in the DOM (no windowing)
and switch off news and update checks (no network). Chromium is Debian's
package, driven through Playwright's ``executable_path`` (never a
Playwright-downloaded browser).
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx

CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-background-networking",
    "--disable-gpu",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--autoplay-policy=no-user-gesture-required",
]

_SETTINGS = {
    "@jupyterlab/notebook-extension/tracker.jupyterlab-settings": {"windowingMode": "none"},
    "@jupyterlab/apputils-extension/notification.jupyterlab-settings": {"fetchNews": "false", "checkForUpdates": False},
}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class JupyterLab:
    """``jupyter lab`` in a subprocess; ``url(path)`` gives an authenticated address."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.port = free_port()
        self.token = secrets.token_hex(16)
        settings = root.parent / "lab-settings"
        for name, value in _SETTINGS.items():
            target = settings / name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(json.dumps(value))
        env = dict(os.environ, JUPYTERLAB_SETTINGS_DIR=str(settings), GATEWAYKIT_OFFLINE_TIME_SCALE="0")
        self.log = (root.parent / "jupyterlab.log").open("w")
        self.process = subprocess.Popen(
            [
                sys.executable, "-m", "jupyterlab",
                "--no-browser", "--ServerApp.open_browser=False", "--allow-root",
                "--ServerApp.ip=127.0.0.1", f"--ServerApp.port={self.port}",
                f"--IdentityProvider.token={self.token}", f"--ServerApp.root_dir={root}",
                "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
            ],  # fmt: skip
            cwd=root, env=env, stdout=self.log, stderr=subprocess.STDOUT,
        )  # fmt: skip
        try:
            self._wait_ready()
        except BaseException:
            self.stop()
            raise

    def _wait_ready(self, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"JupyterLab exited early; see {self.log.name}")
            try:
                if httpx.get(self.url("api/status"), timeout=1).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.2)
        raise RuntimeError("JupyterLab did not start in time")

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}/{path}?token={self.token}"

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()
        self.log.close()


def write_notebook(path: Path, cells: list[str]) -> None:
    import nbformat

    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.cells = [nbformat.v4.new_code_cell(source) for source in cells]
    nbformat.write(nb, str(path))


def chromium_path() -> str | None:
    return shutil.which("chromium")


class NotebookPage:
    """Drives one open notebook: run cells, read prompts and outputs."""

    def __init__(self, page: Any) -> None:
        self.page = page

    def cell(self, index: int) -> Any:
        return self.page.locator(".jp-Notebook .jp-Cell").nth(index)

    def run(self, index: int) -> None:
        cell = self.cell(index)
        cell.locator(".jp-InputArea-editor").click()
        self.page.keyboard.press("Shift+Enter")

    def prompt(self, index: int) -> str:
        return self.cell(index).locator(".jp-InputPrompt").inner_text().strip()

    def wait_done(self, index: int, timeout: float = 60) -> None:
        """Until the cell's prompt shows an execution count (not ``[*]`` or blank)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            text = self.prompt(index)
            if text.startswith("[") and text[1:-2].strip().isdigit():
                return
            time.sleep(0.05)
        raise TimeoutError(f"cell {index} still running: {self.prompt(index)!r}")

    def run_and_wait(self, index: int, timeout: float = 60) -> None:
        self.run(index)
        time.sleep(0.1)
        self.wait_done(index, timeout)

    def output_text(self, index: int) -> str:
        return self.cell(index).locator(".jp-OutputArea").inner_text()
