"""A Jupyter server (JupyterLab 4 or Notebook 7) and a headless Chromium page for the browser tests.

The server is started on 127.0.0.1 with a random token in a temporary
directory, with its own settings and workspaces directories (nothing shared
with other runs or the user's ``~/.jupyter``), user settings that keep every
cell in the DOM (no windowing) and no news or update checks (no network).
Notebook 7 is built from the same JupyterLab components, so one page driver
serves both. Chromium is Debian's package, driven through Playwright's
``executable_path`` (never a Playwright-downloaded browser).
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
from contextlib import contextmanager
from typing import Any, Iterator, Literal

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


class JupyterServer:
    """``jupyter lab`` or ``jupyter notebook`` in a subprocess; ``url(path)`` gives an authenticated address."""

    def __init__(self, root: Path, *, app: Literal["lab", "notebook"] = "lab") -> None:
        self.root, self.app = root, app
        self.port = free_port()
        self.token = secrets.token_hex(16)
        home = root.parent
        settings = home / "jupyter-settings"
        for name, value in _SETTINGS.items():
            target = settings / name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(json.dumps(value))
        env = dict(
            os.environ,
            JUPYTERLAB_SETTINGS_DIR=str(settings),
            JUPYTERLAB_WORKSPACES_DIR=str(home / "jupyter-workspaces"),
            GATEWAYKIT_OFFLINE_TIME_SCALE="0",
        )
        command = [
            sys.executable, "-m", "jupyterlab" if app == "lab" else "notebook",
            "--no-browser", "--ServerApp.open_browser=False", "--allow-root",
            "--ServerApp.ip=127.0.0.1", f"--ServerApp.port={self.port}",
            f"--IdentityProvider.token={self.token}", f"--ServerApp.root_dir={root}",
        ]  # fmt: skip
        if app == "lab":
            command.append("--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate")
        self.log = (home / f"jupyter-{app}.log").open("w")
        self.process = subprocess.Popen(command, cwd=root, env=env, stdout=self.log, stderr=subprocess.STDOUT)
        try:
            self._wait_ready()
        except BaseException:
            self.stop()
            raise

    def _wait_ready(self, timeout: float = 180) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"Jupyter {self.app} exited early; see {self.log.name}")
            try:
                if httpx.get(self.url("api/status"), timeout=1).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.2)
        raise RuntimeError(f"Jupyter {self.app} did not answer api/status within {timeout:g} s; see {self.log.name}")

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}/{path}?token={self.token}"

    def notebook_url(self, name: str) -> str:
        """Where the notebook ``name`` opens: JupyterLab's tree or Notebook 7's notebook page."""
        return self.url(f"lab/tree/{name}" if self.app == "lab" else f"notebooks/{name}")

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(60)  # a busy machine takes a while to shut Jupyter down
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(60)  # reaped: an unreaped Popen warns (ResourceWarning, an error in this suite)
        self.log.close()


def write_notebook(path: Path, cells: list[str]) -> None:
    import nbformat

    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.cells = [nbformat.v4.new_code_cell(source) for source in cells]
    nbformat.write(nb, str(path))


def chromium_path() -> str:
    """Debian's chromium; its absence fails the browser tests (deselect them with ``-m "not browser"``)."""
    path = shutil.which("chromium")
    if path is None:
        raise RuntimeError('Debian\'s chromium package is not installed: apt-get install chromium '
                           '(.ci/run does this), or deselect these tests with -m "not browser"')
    return path


@contextmanager
def open_notebook(server: JupyterServer, name: str, artifacts: Path, *, height: int = 1600) -> Iterator["NotebookPage"]:
    """Chromium showing notebook ``name`` with an idle kernel; screenshots go to ``artifacts``."""
    from playwright.sync_api import sync_playwright

    artifacts.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)
        context = browser.new_context(viewport={"width": 1280, "height": height})
        try:
            tab = context.new_page()
            tab.goto(server.notebook_url(name))
            page = NotebookPage(tab, artifacts)
            page.wait_kernel_idle()
            yield page
        finally:
            context.close()
            browser.close()


class NotebookPage:
    """Drives one open notebook: run cells, read prompts and outputs."""

    def __init__(self, page: Any, artifacts: Path) -> None:
        self.page, self.artifacts = page, artifacts

    def wait_kernel_idle(self, timeout: float = 180) -> None:
        """Until the notebook shows its cells and the kernel reports idle (Lab and Notebook 7 alike)."""
        self.page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=timeout * 1000)
        self.page.wait_for_selector(".jp-Notebook-ExecutionIndicator[data-status='idle']", timeout=timeout * 1000)

    def screenshot(self, name: str, cell: int | None = None) -> Path:
        """Save the page, or one cell scrolled into view, as ``<artifacts>/<name>.png``."""
        path = self.artifacts / f"{name}.png"
        target = self.page if cell is None else self.cell(cell)
        if cell is not None:
            target.scroll_into_view_if_needed()
        target.screenshot(path=str(path))
        return path

    def cell(self, index: int) -> Any:
        return self.page.locator(".jp-Notebook .jp-Cell").nth(index)

    def run(self, index: int, attempts: int = 3) -> None:
        """Run a cell with Shift+Enter, pressing again if the front end did not take it up.

        (Right after the page loads, a click can land before the editor takes key presses.) Each press
        gets 15 s to show: a press taken but shown late and then pressed again would run the cell twice.
        """
        before = self.prompt(index)
        for _ in range(attempts):
            self._no_dialog(f"running cell {index}")
            self.cell(index).locator(".jp-InputArea-editor").click()
            self.page.keyboard.press("Shift+Enter")
            deadline = time.monotonic() + 15
            while time.monotonic() < deadline:
                if self.prompt(index) != before:
                    return
                time.sleep(0.05)
        raise TimeoutError(f"cell {index} did not start after {attempts} Shift+Enter presses: prompt still {before!r}")

    def _no_dialog(self, doing: str) -> None:
        """Wait up to 60 s for a JupyterLab dialog to go; then AssertionError with its text (and a screenshot)."""
        from playwright.sync_api import TimeoutError as PlaywrightTimeout

        dialog = self.page.locator(".jp-Dialog")
        if dialog.count():
            try:
                dialog.first.wait_for(state="detached", timeout=60_000)
            except PlaywrightTimeout:
                self.screenshot("dialog")
                raise AssertionError(f"waited 60 s for a JupyterLab dialog blocking {doing} to close: "
                                     f"{dialog.first.inner_text()[:500]!r} (see dialog.png)") from None

    def prompt(self, index: int) -> str:
        return self.cell(index).locator(".jp-InputPrompt").inner_text().strip()

    def wait_done(self, index: int, timeout: float = 180) -> None:
        """Until the cell's prompt shows an execution count (not ``[*]`` or blank)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            text = self.prompt(index)
            if text.startswith("[") and text[1:-2].strip().isdigit():
                return
            time.sleep(0.05)
        self.screenshot(f"timeout-cell-{index}")
        raise TimeoutError(f"waited {timeout:g} s for cell {index} to finish; its prompt is still "
                           f"{self.prompt(index)!r} (see timeout-cell-{index}.png)")

    def run_and_wait(self, index: int, timeout: float = 180) -> None:
        self.run(index)
        self.wait_done(index, timeout)

    def output_text(self, index: int) -> str:
        return self.cell(index).locator(".jp-OutputArea").inner_text()
