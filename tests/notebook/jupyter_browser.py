"""A Jupyter server (JupyterLab 4 or Notebook 7) and a headless Chromium page for the browser tests.

The server is started on 127.0.0.1 with a random token in a temporary
directory, with its own settings and workspaces directories (nothing shared
with other runs or the user's ``~/.jupyter``), user settings that keep every
cell in the DOM (no windowing) and no news or update checks (no network).
Notebook 7 is built from the same JupyterLab components, so one page driver
serves both. Chromium is Debian's package, driven through Playwright's
``executable_path`` (never a Playwright-downloaded browser).

Browser test files share one server per front end and one Chromium through
the ``jupyter_testbed`` fixture (``jupyter_testbed.py``, ``conftest.py``);
the classes here are what it is built from.

A JupyterLab dialog that comes up on an open page (the "Select Kernel" dialog
on a busy machine, say) is answered, never waited on:
:meth:`NotebookPage.answer_dialogs` picks the notebook's kernel in a kernel
dialog and accepts any other, and runs whenever Playwright acts on the page
and in every wait of the page driver.
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

    def __init__(self, root: Path, *, app: Literal["lab", "notebook"] = "lab", env: dict[str, str] | None = None) -> None:
        self.root, self.app = root, app
        self.port = free_port()
        self.token = secrets.token_hex(16)
        home = root.parent
        self.settings_dir = settings = home / "jupyter-settings"
        for name, value in _SETTINGS.items():
            target = settings / name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(json.dumps(value))
        self.kernels_dir = home / "jupyter-data" / "kernels"  # kernelspecs added while it runs: add_kernel()
        self.kernels_dir.mkdir(parents=True, exist_ok=True)
        env = {
            **os.environ,
            "JUPYTERLAB_SETTINGS_DIR": str(settings),
            "JUPYTERLAB_WORKSPACES_DIR": str(home / "jupyter-workspaces"),
            "JUPYTER_PATH": os.pathsep.join(filter(None, [str(self.kernels_dir.parent), os.environ.get("JUPYTER_PATH")])),
            "GATEWAYKIT_OFFLINE_TIME_SCALE": "0",
            **(env or {}),  # the caller's win, GATEWAYKIT_OFFLINE_TIME_SCALE included (dict(..., **env) raised on it)
        }
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
        """Where the notebook ``name`` opens: JupyterLab's tree or Notebook 7's notebook page.

        JupyterLab's layout is reset: it shows this notebook only, none restored from an earlier page
        (whose hidden cells would match this page's selectors).
        """
        if self.app == "notebook":
            return self.url(f"notebooks/{name}")
        return self.url(f"lab/tree/{name}") + "&reset"

    def add_kernel(self, name: str, env: dict[str, str]) -> str:
        """A kernelspec ``name``: this Python's ipykernel with ``env`` added to the kernel's environment.

        (A running server reads its kernelspecs afresh on each request, so a kernel added now can start now.)
        """
        spec = {
            "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
            "display_name": "Python 3 (ipykernel)",  # what the status bar shows, as for the default kernel
            "language": "python",
            "env": env,
            "metadata": {"debugger": True},
        }
        folder = self.kernels_dir / name
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "kernel.json").write_text(json.dumps(spec))
        return name

    def sessions(self, path: str | None = None) -> list[dict[str, Any]]:
        """The server's kernel sessions (those of the notebook ``path`` only, when given)."""
        answer = httpx.get(self.url("api/sessions"), timeout=60)
        answer.raise_for_status()
        return [session for session in answer.json() if path is None or session.get("path") == path]

    def shut_down_kernels(self, path: str) -> None:
        """End the kernel sessions of the notebook ``path``, or of every notebook in the folder ``path``
        (a shared server then holds no idle kernels)."""
        for session in self.sessions():
            if session.get("path") != path and not str(session.get("path", "")).startswith(path.rstrip("/") + "/"):
                continue
            httpx.delete(self.url(f"api/sessions/{session['id']}"), timeout=120)

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(60)  # a busy machine takes a while to shut Jupyter down
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(60)  # reaped: an unreaped Popen warns (ResourceWarning, an error in this suite)
        self.log.close()


def expect(locator: Any) -> Any:
    """Playwright's retrying assertions (imported, like the rest of Playwright, only when used)."""
    from playwright.sync_api import expect as playwright_expect

    return playwright_expect(locator)


def write_notebook(path: Path, cells: list[str], kernel: str = "python3") -> None:
    import nbformat

    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": kernel, "display_name": "Python 3", "language": "python"}
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
def open_notebook(
    server: JupyterServer, name: str, artifacts: Path, *, height: int = 1600, browser: Any = None,
    kernel: str = "python3",
) -> Iterator["NotebookPage"]:
    """Chromium showing notebook ``name`` with an idle kernel; screenshots go to ``artifacts``.

    In a context of its own of ``browser`` (a Playwright Browser, shared) when given, else in a Chromium
    launched for it. ``kernel``: the kernelspec a "Select Kernel" dialog is answered with. On exit the
    notebook's kernel is shut down.
    """
    artifacts.mkdir(parents=True, exist_ok=True)
    with _chromium(browser) as chromium:
        context = chromium.new_context(viewport={"width": 1280, "height": height})
        try:
            tab = context.new_page()
            page = NotebookPage(tab, artifacts, server=server, path=name, kernel=kernel)
            tab.goto(server.notebook_url(name))
            page.wait_kernel_idle()
            yield page
        finally:
            context.close()
            server.shut_down_kernels(name)


@contextmanager
def _chromium(shared: Any) -> Iterator[Any]:
    if shared is not None:
        yield shared
        return
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


_DIALOGS = ".jp-Dialog:visible"
_FEWER_DIALOGS = """n => [...document.querySelectorAll('.jp-Dialog')].filter(d => d.getClientRects().length).length < n"""
# In the page: pick the option of a kernel dialog's <select> whose kernel is `name` (its values are JSON).
_CHOOSE_KERNEL = """([select, name]) => {
    for (const option of select.options) {
        let value = null;
        try { value = JSON.parse(option.value); } catch (error) { continue; }
        if (value && value.name === name) {
            select.value = option.value;
            select.dispatchEvent(new Event('change', {bubbles: true}));
            return true;
        }
    }
    return false;
}"""


class NotebookPage:
    """Drives one open notebook: run cells, read prompts and outputs; answers JupyterLab's dialogs.

    ``server`` and ``path`` (the notebook's path on it) let :meth:`kernel_id` find its kernel;
    ``kernel`` is the kernelspec chosen when JupyterLab asks which kernel to start.
    """

    def __init__(self, page: Any, artifacts: Path, *, server: JupyterServer | None = None, path: str | None = None,
                 kernel: str = "python3") -> None:
        self.page, self.artifacts = page, artifacts
        self.server, self.path, self.kernel = server, path, kernel
        self.answered_dialogs: list[str] = []  # the title of each dialog answered, in order
        # Before any click, fill or wait for a state: a dialog over the page is answered first.
        page.add_locator_handler(page.locator(_DIALOGS), lambda _dialog: self.answer_dialogs())

    def wait_kernel_idle(self, timeout: float = 180) -> None:
        """Until the notebook shows its cells, has a kernel and reports idle (Lab and Notebook 7 alike).

        (With no kernel yet the execution indicator also says idle, so the server's sessions are read too.)
        A dialog that comes up meanwhile (JupyterLab asks which kernel to start when its kernel list
        comes late) is answered.
        """
        cells = self.page.locator(".jp-Notebook .jp-Cell")
        idle = self.page.locator(".jp-Notebook-ExecutionIndicator[data-status='idle']")
        deadline = time.monotonic() + timeout
        while True:
            self.answer_dialogs()
            if cells.count() and idle.count() and self._has_kernel():
                return
            if time.monotonic() > deadline:
                self.screenshot("timeout-kernel-idle")
                raise TimeoutError(f"waited {timeout:g} s for the notebook's cells and an idle kernel "
                                   f"(cells: {cells.count()}; see timeout-kernel-idle.png)")
            time.sleep(0.1)

    def _has_kernel(self) -> bool:
        if self.server is None or self.path is None:
            return True  # a page opened without its server: the indicator alone
        return any(session.get("kernel") for session in self.server.sessions(self.path))

    def answer_dialogs(self) -> list[str]:
        """Answer every JupyterLab dialog on the page: a kernel choice with this notebook's kernel, any
        other with its default (accept) button. The titles answered; each is also printed and kept
        in ``answered_dialogs``.

        Clicks are sent in the page (not as Playwright actions, which would call this again).
        """
        from playwright.sync_api import Error as PlaywrightError

        answered: list[str] = []
        dialogs = self.page.locator(_DIALOGS)
        for _ in range(10):  # a dialog can follow another (JupyterLab queues them)
            count = dialogs.count()
            if not count:
                break
            dialog = dialogs.first
            try:
                title = " ".join(dialog.locator(".jp-Dialog-header").all_inner_texts()).strip() or "(untitled)"
                select = dialog.locator(".jp-Dialog-body select")
                if select.count():  # "Select Kernel": the notebook's kernel
                    self.page.evaluate(_CHOOSE_KERNEL, [select.first.element_handle(timeout=5_000), self.kernel])
                accept = dialog.locator(".jp-Dialog-footer button.jp-mod-accept")
                if accept.count():
                    accept.first.evaluate("button => button.click()")
                else:
                    dialog.evaluate("d => d.dispatchEvent(new KeyboardEvent('keydown', {key: 'Escape', bubbles: true}))")
            except PlaywrightError:
                continue  # it went while being read: count again
            print(f"answered a JupyterLab dialog: {title!r} ({self.path or 'page'})")
            answered.append(title)
            try:
                self.page.wait_for_function(_FEWER_DIALOGS, arg=count, timeout=30_000)
            except PlaywrightError:
                self.screenshot("dialog")
                raise AssertionError(f"a JupyterLab dialog stayed after it was answered: {title!r} "
                                     f"(see dialog.png)") from None
        self.answered_dialogs += answered
        return answered

    def kernel_id(self) -> str:
        """The id of this notebook's kernel (from the server's sessions)."""
        assert self.server is not None and self.path is not None, "open the page with open_notebook()"
        (session,) = self.server.sessions(self.path)
        return str(session["kernel"]["id"])

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
        # A stored notebook's prompt may already read "[3]:" and a fast run may end on "[3]:" again, so the
        # prompt is first overwritten with a mark of our own: any run re-renders it ("[*]:", then "[n]:").
        before = "[?]:"
        for _ in range(attempts):
            self.answer_dialogs()
            self.cell(index).locator(".jp-InputPrompt").evaluate("(node, mark) => { node.textContent = mark; }", before)
            self.cell(index).locator(".jp-InputArea-editor").click()
            self.page.keyboard.press("Shift+Enter")
            deadline = time.monotonic() + 15
            while time.monotonic() < deadline:
                if self.prompt(index) != before:
                    return
                self.answer_dialogs()
                time.sleep(0.05)
        raise TimeoutError(f"cell {index} did not start after {attempts} Shift+Enter presses: prompt still {before!r}")

    def prompt(self, index: int) -> str:
        return self.cell(index).locator(".jp-InputPrompt").inner_text().strip()

    def wait_done(self, index: int, timeout: float = 180) -> None:
        """Until the cell's prompt shows an execution count (not ``[*]`` or blank)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            text = self.prompt(index)
            if text.startswith("[") and text[1:-2].strip().isdigit():
                return
            self.answer_dialogs()
            time.sleep(0.05)
        self.screenshot(f"timeout-cell-{index}")
        raise TimeoutError(f"waited {timeout:g} s for cell {index} to finish; its prompt is still "
                           f"{self.prompt(index)!r} (see timeout-cell-{index}.png)")

    def run_and_wait(self, index: int, timeout: float = 180) -> None:
        self.run(index)
        self.wait_done(index, timeout)

    def output_text(self, index: int) -> str:
        return self.cell(index).locator(".jp-OutputArea").inner_text()
