"""``early_start.environment()``: works started beside the tests never see a test's ``monkeypatch.setenv``.

Stop 38's CI: the Colab venv's kernel was started while a classroom proxy test in the same worker had
``HTTP_PROXY`` set to a proxy of its own that was gone a moment later; the kernel inherited it.
"""

from __future__ import annotations

import os

import early_start
import pytest


def test_a_works_environment_is_the_sessions_not_a_running_tests(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HTTP_PROXY", "http://127.0.0.1:9")
    monkeypatch.setenv("PATH", "/nowhere")
    given = early_start.environment()
    assert os.environ["HTTP_PROXY"] == "http://127.0.0.1:9"
    assert given.get("HTTP_PROXY") != "http://127.0.0.1:9" and given["PATH"] != "/nowhere"
    given["EXTRA"] = "1"  # a copy: a work's changes stay its own
    assert "EXTRA" not in early_start.environment()
