"""The built JupyterLite site served on loopback, and its REPL driven in Debian's Chromium.

:func:`site_folder` is ``jupyterlite/_output``, built by ``python jupyterlite/build.py`` when it is not
there (``.ci/run`` builds it in the background while the suite runs; this waits for that build). :class:`StaticSite` serves it from a thread (the MIME types
Pyodide needs: ``.mjs`` as JavaScript, ``.wasm`` as WebAssembly). :class:`LiteRepl` opens the REPL with
the Pyodide kernel, runs code in it cell by cell and reads each cell's output, and records every request
the page and its workers make to anywhere but ``127.0.0.1``.
"""

from __future__ import annotations

import functools
import http.server
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
SITE = REPO / "jupyterlite" / "_output"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-background-networking", "--disable-gpu", "--disable-component-update",
                 "--disable-sync", "--no-first-run"]
_PROMPT = ".jp-CodeConsole-promptCell .cm-content"
_CELLS = ".jp-CodeConsole-content .jp-CodeCell"
# The number of console cells whose prompt shows an execution count (they have run).
_RAN = """() => [...document.querySelectorAll('.jp-CodeConsole-content .jp-InputArea-prompt')]
    .filter(p => /\\[\\d+\\]/.test(p.textContent)).length"""


CI_MARKERS = REPO / ".ci"


def site_folder(deadline_seconds: float = 1800.0) -> Path:
    """The built site: ``.ci/run``'s background build once it finished (its log when it failed), else built now
    when missing (a minute with a warm cache)."""
    if (CI_MARKERS / "jupyterlite-build.log").exists() and not (CI_MARKERS / "jupyterlite.ready").exists():
        deadline = time.monotonic() + deadline_seconds
        while not (CI_MARKERS / "jupyterlite.ready").exists():
            if (CI_MARKERS / "jupyterlite.failed").exists():
                log = (CI_MARKERS / "jupyterlite-build.log").read_text(errors="replace")[-3000:]
                raise RuntimeError(f".ci/run's build of the JupyterLite site failed:\n{log}")
            if time.monotonic() > deadline:
                raise RuntimeError(f"gave up after {deadline_seconds:.0f} s waiting for .ci/run's JupyterLite build")
            time.sleep(1.0)
    if not (SITE / "static" / "pyodide" / "pyodide-lock.json").exists():
        subprocess.run([sys.executable, str(REPO / "jupyterlite" / "build.py")], check=True)
    return SITE


class _Files(http.server.SimpleHTTPRequestHandler):
    extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map,
                      ".mjs": "text/javascript", ".js": "text/javascript", ".wasm": "application/wasm"}

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base class's name
        pass


class StaticSite:
    """The site's files over HTTP on ``127.0.0.1`` (any static host serves it the same way)."""

    def __init__(self, folder: Path) -> None:
        self._server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Files, directory=str(folder)))
        self.origin = f"http://127.0.0.1:{self._server.server_port}"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()


class LiteRepl:
    """The site's REPL in a page of ``browser``: ``run(code)`` gives the cell's output text."""

    def __init__(self, browser: Any, origin: str) -> None:
        self.outside: list[str] = []  # requests to anywhere but 127.0.0.1
        self.context = browser.new_context(viewport={"width": 1100, "height": 900})
        self.page = self.context.new_page()
        self.page.on("request", self._record)
        started = time.monotonic()
        self.page.goto(f"{origin}/repl/index.html?kernel=python&toolbar=1")
        self.ran = 0
        self.run("import sys, time")  # the kernel is up once a first cell has run
        #: seconds from opening the page to the first cell's answer (Pyodide and the kernel loaded)
        self.cold_start = time.monotonic() - started

    def _record(self, request: Any) -> None:
        url = request.url
        if not url.startswith(("http://127.0.0.1:", "data:", "blob:")):
            self.outside.append(url)

    def run(self, code: str, timeout: float = 180) -> str:
        """Run ``code`` as the next console cell; its output's text once it has run."""
        prompt = self.page.locator(_PROMPT)
        prompt.click()
        prompt.fill(code)
        self.page.keyboard.press("Shift+Enter")
        self.ran += 1
        self.page.wait_for_function(f"n => ({_RAN})() >= n", arg=self.ran, timeout=timeout * 1000)
        return self.cell(self.ran).locator(".jp-OutputArea").inner_text()

    def cell(self, count: int) -> Any:
        """The console cell that ran as ``[count]``."""
        prompt = self.page.locator(".jp-InputArea-prompt", has_text=f"[{count}]:")
        return self.page.locator(_CELLS).filter(has=prompt)

    def screenshot(self, path: Path) -> Path:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.page.screenshot(path=str(path), full_page=True)
        return path

    def close(self) -> None:
        self.context.close()


class LiteNotebook:
    """The site's quickstart notebook in its Notebook app (where ipywidgets render): ``run_first(code)`` puts
    ``code`` in its first code cell and runs it."""

    def __init__(self, browser: Any, origin: str, path: str = "gatewaykit-quickstart.ipynb") -> None:
        self.outside: list[str] = []
        self.context = browser.new_context(viewport={"width": 1100, "height": 1000})
        self.page = self.context.new_page()
        self.page.on("request", lambda request: self.outside.append(request.url)
                     if not request.url.startswith(("http://127.0.0.1:", "data:", "blob:")) else None)
        self.page.goto(f"{origin}/notebooks/index.html?path={path}")
        self.cell = self.page.locator(".jp-Notebook .jp-CodeCell").first

    def run_first(self, code: str, timeout: float = 180) -> Any:
        """The first code cell's output area, once ``code`` ran there."""
        editor = self.cell.locator(".cm-content")
        editor.click()
        editor.fill(code)
        self.page.keyboard.press("Control+Enter")
        self.cell.locator(".jp-InputArea-prompt", has_text="[1]:").wait_for(timeout=timeout * 1000)
        return self.cell.locator(".jp-OutputArea")

    def close(self) -> None:
        self.context.close()
