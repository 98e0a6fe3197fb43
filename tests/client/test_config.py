"""Where the key and base URL come from, the offline fallback, and keeping the key out of sight."""

from __future__ import annotations

import logging
import sys
import types
from typing import Any

import pytest

import gatewaykit as gk
from gatewaykit.client.core.config import resolve_settings


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SVC_API_KEY", raising=False)
    monkeypatch.delenv("SVC_BASE_URL", raising=False)


def test_environment_key_and_base_url(monkeypatch: pytest.MonkeyPatch) -> None:
    """SVC_API_KEY and SVC_BASE_URL configure the client; a trailing /v1 is dropped."""
    monkeypatch.setenv("SVC_API_KEY", "sk-bf-env-key-123456")
    monkeypatch.setenv("SVC_BASE_URL", "https://gateway.example/v1/")
    settings = resolve_settings(None, None, False)
    assert (settings.base_url, settings.key_source, settings.offline) == ("https://gateway.example", "environment", False)


def test_argument_wins_over_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """api_key= is used before SVC_API_KEY."""
    monkeypatch.setenv("SVC_API_KEY", "sk-bf-env")
    assert resolve_settings("sk-bf-arg", "https://g.example", False).key_source == "argument"


def test_key_without_base_url_is_a_configuration_error(monkeypatch: pytest.MonkeyPatch) -> None:
    """A key with no base URL says to set SVC_BASE_URL."""
    monkeypatch.setenv("SVC_API_KEY", "sk-bf-env-key-123456")
    with pytest.raises(gk.ConfigurationError, match="SVC_BASE_URL"):
        gk.Client()


def test_base_url_without_key_is_a_configuration_error() -> None:
    """base_url= with no key anywhere is an error, not a silent switch to offline."""
    with pytest.raises(gk.ConfigurationError, match="SVC_API_KEY"):
        gk.Client(base_url="https://gateway.example")


def test_an_environment_base_url_without_a_key_is_a_configuration_error_not_the_offline_gateway(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A student who set SVC_BASE_URL (the classroom) and forgot SVC_API_KEY is told so, and is not sent to
    the offline gateway's synthetic answers without noticing; offline=True and GATEWAYKIT_OFFLINE=1 still win."""
    monkeypatch.setenv("SVC_BASE_URL", "http://127.0.0.1:8100")
    with pytest.raises(gk.ConfigurationError, match="SVC_BASE_URL is set but no API key") as raised:
        gk.Client()
    assert "SVC_API_KEY" in str(raised.value) and "offline=True" in str(raised.value)
    with gk.Client(offline=True) as client:
        assert client.offline
    from gatewaykit.client.core import grading_switches

    monkeypatch.setattr(grading_switches, "_switches", grading_switches.GradingSwitches(offline=True))  # as read
    with gk.Client() as client:  # from GATEWAYKIT_OFFLINE=1 by the process's first client
        assert client.offline
    monkeypatch.undo()
    monkeypatch.delenv("SVC_API_KEY", raising=False)
    monkeypatch.setenv("SVC_BASE_URL", "  ")  # set to blanks: as good as unset
    with pytest.warns(gk.OfflineGatewayWarning):
        gk.Client().close()


def test_colab_secret_is_used(monkeypatch: pytest.MonkeyPatch) -> None:
    """In Colab, the SVC_API_KEY secret is read through google.colab.userdata."""
    colab = types.ModuleType("google.colab")
    colab.userdata = types.SimpleNamespace(get=lambda name: "sk-bf-colab-secret" if name == "SVC_API_KEY" else None)  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "google", types.ModuleType("google"))
    monkeypatch.setitem(sys.modules, "google.colab", colab)
    settings = resolve_settings(None, "https://g.example", False)
    assert (settings.api_key, settings.key_source) == ("sk-bf-colab-secret", "colab secret")


def test_colab_errors_are_swallowed(monkeypatch: pytest.MonkeyPatch) -> None:
    """A Colab secret lookup that raises (secret missing, access denied) counts as no key."""
    def refuse(name: str) -> None:
        raise PermissionError("notebook access not granted")

    colab = types.ModuleType("google.colab")
    colab.userdata = types.SimpleNamespace(get=refuse)  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "google", types.ModuleType("google"))
    monkeypatch.setitem(sys.modules, "google.colab", colab)
    with pytest.raises(gk.ConfigurationError):
        resolve_settings(None, "https://g.example", False)


def test_no_key_uses_the_offline_gateway_and_warns() -> None:
    """With no key anywhere, Client() talks to the offline gateway and warns OfflineGatewayWarning."""
    with pytest.warns(gk.OfflineGatewayWarning, match="OFFLINE"):
        client = gk.Client()
    with client:
        assert client.offline and client.models.list().ids


def test_in_marimo_the_banner_says_it_and_no_warning_repeats_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """In a marimo notebook the display's banner announces the offline gateway (as in a Jupyter kernel): the
    OfflineGatewayWarning would print the same notice a second time under the cell."""
    import warnings

    marimo = types.ModuleType("marimo")
    marimo.running_in_notebook = lambda: True  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "marimo", marimo)
    with warnings.catch_warnings():
        warnings.simplefilter("error", gk.OfflineGatewayWarning)
        settings = resolve_settings(None, None, False)
    assert settings.offline and settings.offline_implicit


def test_explicit_offline_does_not_warn(caplog: pytest.LogCaptureFixture) -> None:
    """offline=True is announced with one INFO log line, not a warning."""
    with caplog.at_level(logging.INFO, logger="gatewaykit"):
        with gk.Client(offline=True) as client:
            assert client.offline
    assert any("offline gateway" in message for message in caplog.messages)


def test_key_never_in_repr_or_errors(emulator: Any) -> None:
    """repr(client) and a 401 error mention no part of the key beyond its prefix."""
    key = "sk-bf-secret-value-abcdef123456"
    with gk.Client(api_key=key, base_url=emulator.base_url, ledger=_Nothing(), max_retries=0) as client:
        assert "secret-value" not in repr(client)
        with pytest.raises(gk.AuthenticationError) as caught:
            client.chat.completions.create(model="chat-mini", messages=[{"role": "user", "content": "hi"}])
    assert "secret-value" not in str(caught.value) + repr(caught.value) + str(caught.value.body)


class _Nothing:
    """A ledger that keeps nothing."""


def test_default_headers_replace_ours_whatever_their_case(keys: Any) -> None:
    """A user's 'authorization' header replaces the client's 'Authorization' instead of being sent twice."""
    import httpx

    seen: list[list[str]] = []

    def capture(request: httpx.Request) -> httpx.Response:
        seen.append(request.headers.get_list("authorization"))
        return httpx.Response(200, json={"object": "list", "data": []})

    with gk.Client(api_key="sk-bf-ignored-key", base_url="http://gw.test", http_transport=httpx.MockTransport(capture),
                   default_headers={"authorization": f"Bearer {keys.acme}"}) as client:  # fmt: skip
        client.models.list()
    assert seen == [[f"Bearer {keys.acme}"]]


def test_colab_secret_gives_the_base_url(monkeypatch: pytest.MonkeyPatch) -> None:
    """In Colab, the SVC_BASE_URL secret is read too, when neither base_url= nor the variable is set."""
    secrets = {"SVC_API_KEY": "sk-bf-colab-secret", "SVC_BASE_URL": "https://colab-gateway.example/v1"}
    colab = types.ModuleType("google.colab")
    colab.userdata = types.SimpleNamespace(get=lambda name: secrets.get(name))  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "google", types.ModuleType("google"))
    monkeypatch.setitem(sys.modules, "google.colab", colab)
    settings = resolve_settings(None, None, False)
    assert (settings.base_url, settings.offline) == ("https://colab-gateway.example", False)


def test_environment_base_url_wins_over_the_colab_secret(monkeypatch: pytest.MonkeyPatch) -> None:
    """SVC_BASE_URL in the environment is used before a Colab secret of that name."""
    colab = types.ModuleType("google.colab")
    colab.userdata = types.SimpleNamespace(get=lambda name: "https://secret.example")  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "google", types.ModuleType("google"))
    monkeypatch.setitem(sys.modules, "google.colab", colab)
    monkeypatch.setenv("SVC_BASE_URL", "https://env.example")
    assert resolve_settings("sk-bf-arg", None, False).base_url == "https://env.example"


WITHOUT_OFFLINE_EXTRA = r"""
import sys

class HideOfflineStack:
    # Behave as if gatewaykit[offline] was not installed: its server stack cannot be imported.
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in {"uvicorn", "starlette"}:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None

sys.meta_path.insert(0, HideOfflineStack())
import gatewaykit as gk
try:
    gk.Client(%s)
except gk.ConfigurationError as exc:
    print("ConfigurationError:", exc)
"""


@pytest.mark.parametrize("arguments", ["", "offline=True"])
def test_missing_offline_extra_is_a_configuration_error(arguments: str) -> None:
    """With only the core installed, Client() without a key names the gatewaykit[offline] extra."""
    import os
    import subprocess

    environment = {key: value for key, value in os.environ.items() if not key.startswith("SVC_")}
    done = subprocess.run(
        [sys.executable, "-W", "ignore", "-c", WITHOUT_OFFLINE_EXTRA % arguments],
        capture_output=True, text=True, timeout=120, env=environment,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("ConfigurationError:") and 'pip install "gatewaykit[offline]"' in done.stdout
