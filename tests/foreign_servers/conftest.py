"""A real foreign server for the client tests: LiteLLM's proxy (marker ``foreign_server``)."""

from __future__ import annotations

import os
from typing import Any, Iterator

import pytest

from tests.foreign_servers.litellm_proxy import RunningProxy, proxy_executable, start_proxy


@pytest.fixture(scope="session")
def litellm_proxy(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningProxy]:
    """LiteLLM's proxy on 127.0.0.1 with mock models; skipped only outside CI when it is not installed."""
    executable = proxy_executable()
    if executable is None:
        message = "LiteLLM's proxy is not installed (bash .ci/run installs it into .venv-litellm)"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    yield from start_proxy(executable, tmp_path_factory.mktemp("litellm-proxy"))


def pytest_collection_modifyitems(items: list[Any]) -> None:
    for item in items:
        if "foreign_servers" in str(item.fspath):
            item.add_marker(pytest.mark.foreign_server)
