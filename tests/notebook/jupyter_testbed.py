"""One JupyterLab server, one Notebook 7 server and one Chromium, shared by the browser test files.

Starting a Jupyter server and a browser costs seconds each (tens on a busy
machine); the browser test files used to start their own. A
:class:`JupyterTestbed` starts each on first use and keeps it while the run
goes through files that use it (``tests/notebook/conftest.py`` closes it
before the first file that does not, and at the end of the run).

What each file still gets of its own, so files stay independent:

- a folder on the server (:meth:`JupyterTestbed.folder`) with a kernelspec of
  its own, whose environment gives the folder's kernels their own ledger
  database and response cache (``GATEWAYKIT_LEDGER_PATH``,
  ``GATEWAYKIT_CACHE_PATH``: never the user's) and whatever ``env`` the file asks for
  (the playground's ``SVC_*`` variables, say);
- a fresh browser context (cookies, storage) and, in JupyterLab, a reset
  layout (no notebook restored from another file's page);
- a fresh kernel per notebook opened, shut down when the page closes.

Use it through the ``jupyter_testbed`` fixture (a module-scoped fixture may
depend on it)::

    @pytest.fixture(scope="module")
    def page(jupyter_testbed):
        folder = jupyter_testbed.folder("lab", "my-feature")
        folder.write_notebook("demo.ipynb", cells)
        with jupyter_testbed.open_notebook(folder, "demo.ipynb", ARTIFACTS) as notebook:
            yield notebook

and ``chromium`` (the shared Playwright ``Browser``) for a page that is no
Jupyter front end (a file, Voilà, marimo): open a context of your own with
``chromium.new_context()`` and close it at the end. Within one test file use
either these or a ``sync_playwright()`` of its own, never both (one sync
Playwright per thread).
"""

from __future__ import annotations

import re
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator, Literal

from jupyter_browser import CHROMIUM_ARGS, JupyterServer, NotebookPage, chromium_path, open_notebook, write_notebook

App = Literal["lab", "notebook"]


@dataclass
class NotebookFolder:
    """A test file's folder on a shared server: ``path`` on disk, ``name`` relative to the server's root."""

    server: JupyterServer
    path: Path
    name: str
    kernel: str  # the kernelspec its notebooks name (this folder's environment)

    def write_notebook(self, name: str, cells: list[str]) -> Path:
        """A notebook of code ``cells`` in this folder, for this folder's kernel."""
        write_notebook(self.path / name, cells, kernel=self.kernel)
        return self.path / name

    def adopt(self, name: str, notebook: Any) -> Path:
        """Save ``notebook`` (an nbformat node, e.g. a stored demo notebook) here, for this folder's kernel."""
        import nbformat

        notebook.metadata["kernelspec"] = {"name": self.kernel, "display_name": "Python 3", "language": "python"}
        nbformat.write(notebook, str(self.path / name))
        return self.path / name

    def notebook_path(self, name: str) -> str:
        """``name``'s path on the server (what its URL and sessions use)."""
        return f"{self.name}/{name}"


class JupyterTestbed:
    """Jupyter servers (``lab``, ``notebook``) and a Chromium, each started on first use; :meth:`close` ends them."""

    def __init__(self, home: Path) -> None:
        self.home = home
        self._servers: dict[str, JupyterServer] = {}
        self._playwright: Any = None
        self._browser: Any = None
        self._folders: set[str] = set()

    @property
    def running(self) -> bool:
        return bool(self._servers) or self._browser is not None

    def server(self, app: App) -> JupyterServer:
        """The shared ``jupyter lab`` or ``jupyter notebook`` (Notebook 7) server."""
        if app not in self._servers:
            root = self.home / app / "work"
            root.mkdir(parents=True, exist_ok=True)
            # The kernels' ledger and cache come from their folder's kernelspec; the server's own are its own.
            env = {"GATEWAYKIT_LEDGER_PATH": str(self.home / app / "server-ledger.sqlite"),
                   "GATEWAYKIT_CACHE_PATH": str(self.home / app / "server-response-cache")}
            self._servers[app] = JupyterServer(root, app=app, env=env)
        return self._servers[app]

    def browser(self) -> Any:
        """The shared Chromium (a Playwright ``Browser``): open a context of your own in it."""
        if self._browser is None:
            from playwright.sync_api import sync_playwright

            self._playwright = sync_playwright().start()
            try:
                self._browser = self._playwright.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)
            except BaseException:
                self._playwright.stop()
                self._playwright = None
                raise
        return self._browser

    def folder(self, app: App, name: str, env: dict[str, str] | None = None) -> NotebookFolder:
        """A new folder ``name`` (made unique) on the ``app`` server; its notebooks' kernels get ``env``."""
        server = self.server(app)
        base = re.sub(r"[^A-Za-z0-9-]+", "-", name).strip("-") or "notebooks"
        unique, number = base, 1
        while f"{app}/{unique}" in self._folders or (server.root / unique).exists():
            number += 1
            unique = f"{base}-{number}"
        self._folders.add(f"{app}/{unique}")
        path = server.root / unique
        path.mkdir()
        ledgers = self.home / "ledgers"
        ledgers.mkdir(exist_ok=True)
        kernel_env = {
            "GATEWAYKIT_LEDGER_PATH": str(ledgers / f"{app}-{unique}.sqlite"),
            "GATEWAYKIT_CACHE_PATH": str(self.home / "response-caches" / f"{app}-{unique}"),
            **(env or {}),
        }
        kernel = server.add_kernel(f"gk-{app}-{unique}".lower(), kernel_env)
        return NotebookFolder(server=server, path=path, name=unique, kernel=kernel)

    @contextmanager
    def open_notebook(self, folder: NotebookFolder, name: str, artifacts: Path, *, height: int = 1600) -> Iterator[NotebookPage]:
        """Notebook ``name`` of ``folder`` in a fresh context of the shared Chromium, with an idle kernel.

        When it closes, the kernels of the folder's
        notebooks (this one's and any other the test opened in the page) are shut down.
        """
        try:
            with open_notebook(folder.server, folder.notebook_path(name), artifacts, height=height,
                               browser=self.browser(), kernel=folder.kernel) as page:
                yield page
        finally:
            folder.server.shut_down_kernels(folder.name)

    def close(self) -> None:
        """Stop the browser and the servers (a later use starts them again)."""
        errors: list[BaseException] = []
        if self._browser is not None:
            try:
                self._browser.close()
                self._playwright.stop()
            except BaseException as error:  # noqa: BLE001 - the servers are still stopped; raised below
                errors.append(error)
            self._browser = self._playwright = None
        for server in self._servers.values():
            try:
                server.stop()
            except BaseException as error:  # noqa: BLE001
                errors.append(error)
        self._servers.clear()
        if errors:
            raise errors[0]
