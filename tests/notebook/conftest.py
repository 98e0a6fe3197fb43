"""Fixtures of the notebook tests; the browser tests' shared Jupyter servers and Chromium.

``jupyter_testbed`` (session): a :class:`jupyter_testbed.JupyterTestbed`, the one
JupyterLab server, Notebook 7 server and Chromium that browser test files share
(each started on first use). A file takes a folder of its own on a server and
opens its notebooks in fresh browser contexts with fresh kernels::

    @pytest.fixture(scope="module")
    def page(jupyter_testbed):
        folder = jupyter_testbed.folder("lab", "my-feature")       # or "notebook" (Notebook 7)
        folder.write_notebook("demo.ipynb", cells)
        with jupyter_testbed.open_notebook(folder, "demo.ipynb", ARTIFACTS) as notebook:
            yield notebook

``chromium`` (module): the shared Playwright ``Browser``, for pages that are no
Jupyter front end (open and close a context of your own in it).

The testbed stays up while the run goes from one file that uses it to the
next, and is closed before the first file that uses neither fixture (so a file
may start its own ``sync_playwright()``; one sync Playwright per thread) and
at the end of the run. A JupyterLab dialog on a page is answered, never
waited on (:meth:`jupyter_browser.NotebookPage.answer_dialogs`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterator

import pytest
from jupyter_testbed import JupyterTestbed

from gatewaykit.notebook.html_views import players

_TESTBED = pytest.StashKey[JupyterTestbed]()
_USES_TESTBED = pytest.StashKey[dict[Path, bool]]()


@pytest.fixture(autouse=True)
def no_cached_players():
    """Each test builds its own players (the cache is keyed by job id, which tests reuse)."""
    players._PLAYERS.clear()
    yield
    players._PLAYERS.clear()


@pytest.fixture(scope="session")
def jupyter_testbed(tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest) -> Iterator[JupyterTestbed]:
    """The Jupyter servers and the Chromium the browser test files share (see this module's docstring)."""
    testbed = JupyterTestbed(tmp_path_factory.mktemp("jupyter-testbed"))
    request.config.stash[_TESTBED] = testbed
    try:
        yield testbed
    finally:
        testbed.close()


@pytest.fixture(scope="module")
def chromium(jupyter_testbed: JupyterTestbed) -> Any:
    """The shared headless Chromium (Debian's), a Playwright ``Browser``: open a context of your own in it."""
    return jupyter_testbed.browser()


def _uses_testbed(item: pytest.Item) -> bool:
    """Whether any test of ``item``'s file uses the shared testbed."""
    by_file = item.session.stash.get(_USES_TESTBED, None)
    if by_file is None:
        by_file = {}
        for each in item.session.items:
            by_file[each.path] = by_file.get(each.path, False) or "jupyter_testbed" in getattr(each, "fixturenames", ())
        item.session.stash[_USES_TESTBED] = by_file
    return by_file.get(item.path, False)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> Any:
    """After the last test of a run of files that use the testbed (its fixtures torn down), close it."""
    try:
        return (yield)
    finally:
        testbed = item.config.stash.get(_TESTBED, None)
        if testbed is not None and testbed.running and (nextitem is None or not _uses_testbed(nextitem)):
            testbed.close()
