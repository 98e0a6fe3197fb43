"""A real foreign server for the client tests: LiteLLM's proxy (marker ``foreign_server``)."""

from __future__ import annotations

import os
from typing import Any, Iterator

import pytest

from tests.foreign_servers.litellm_proxy import RunningProxy, proxy_executable, start_proxy


@pytest.fixture(scope="session")
def litellm_proxy(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningProxy]:
    """LiteLLM's proxy on 127.0.0.1 with mock models; skipped only outside CI when it is not installed."""
    wait_for_background_install()
    executable = proxy_executable()
    if executable is None:
        message = "LiteLLM's proxy is not installed (bash .ci/run installs it into .venv-litellm)"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    yield from start_proxy(executable, tmp_path_factory.mktemp("litellm-proxy"))


def wait_for_background_install(deadline_seconds: float = 2400.0) -> None:
    """``.ci/run`` installs the proxy in the background: wait for its ``.ready`` (or ``.failed``) marker."""
    import time
    from pathlib import Path

    folder = Path(__file__).resolve().parents[2] / ".venv-litellm"
    if not (folder / "install.log").exists() or (folder / ".ready").exists():
        return  # not being installed by .ci/run, or done
    deadline = time.monotonic() + deadline_seconds
    while not (folder / ".ready").exists():
        if (folder / ".failed").exists():
            log = (folder / "install.log").read_text(errors="replace")[-3000:] if (folder / "install.log").exists() else ""
            pytest.fail("installing LiteLLM's proxy into .venv-litellm failed:\n" + log)
        if time.monotonic() > deadline:
            pytest.fail(f"gave up after {deadline_seconds:.0f} s waiting for .ci/run's install of LiteLLM's proxy")
        time.sleep(1.0)


def pytest_collection_modifyitems(items: list[Any]) -> None:
    for item in items:
        if "foreign_servers" in str(item.fspath):
            item.add_marker(pytest.mark.foreign_server)
