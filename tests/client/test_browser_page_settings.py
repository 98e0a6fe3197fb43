"""Python in a browser page (sys.platform "emscripten"): with no key, a clear error instead of a server."""

from __future__ import annotations

import sys

import pytest

import gatewaykit as gk


def test_no_key_in_a_browser_page_says_to_pass_the_class_address(monkeypatch: pytest.MonkeyPatch) -> None:
    """No key in Pyodide: a ConfigurationError asking for api_key= and base_url= (the offline gateway cannot run)."""
    for name in ("SVC_API_KEY", "SVC_BASE_URL", "GATEWAYKIT_OFFLINE", "GATEWAYKIT_CASSETTE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(sys, "platform", "emscripten")
    with pytest.raises(gk.ConfigurationError, match="cannot run in a browser page.*base_url=.*--cors-origin"):
        gk.Client(display=False)
