"""The client and ``HTTP_PROXY`` / ``ALL_PROXY`` / ``NO_PROXY``: a school network with only a proxy way out.

- The offline gateway runs in this process on loopback, where no proxy can reach it: the environment's
  proxy is never used for it (it used to be, and every call was "Connection refused" wherever
  ``HTTP_PROXY`` was set without ``NO_PROXY``), with or without the cache or a cassette.
- A real gateway is reached through the proxy the environment names with ``cache=`` on as with it off
  (the cache's network transport used to go direct, ignoring the proxy).

The proxy is pproxy (PyPI), an HTTP proxy nobody here wrote, which asks for a login: a call with the
right one in the proxy URL is answered, with a wrong one it is refused, so a call that went direct
would be seen.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any, Iterator

import pytest
from proxy_servers import free_port, running_pproxy, without_proxy_variables

import gatewaykit as gk
from gatewaykit.client.transports.environment_proxies import environment_proxy

PASSWORD = "proxy-secret-42"


@pytest.fixture
def clean_env(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    return without_proxy_variables(monkeypatch)


@pytest.fixture
def dead_proxy() -> str:
    """A proxy URL where nothing listens: any call sent there fails."""
    return f"http://127.0.0.1:{free_port()}"


@pytest.fixture(scope="module")
def http_proxy() -> Iterator[int]:
    """pproxy as an HTTP proxy on 127.0.0.1 that asks every connection for school's login; its port."""
    with running_pproxy("http", "school", PASSWORD) as port:
        yield port


def _ask(client: Any) -> str:
    answer = client.chat.ask("Say hello.", model=client.models.pick("chat"), max_tokens=8)
    return str(answer.choices[0].message.content)


@pytest.mark.parametrize("variable", ["HTTP_PROXY", "ALL_PROXY", "http_proxy"])
@pytest.mark.parametrize("storage", ["none", "cache", "cassette"])
def test_the_offline_gateway_is_never_reached_through_a_proxy(clean_env: pytest.MonkeyPatch, dead_proxy: str,
                                                               tmp_path: Path, variable: str, storage: str) -> None:
    clean_env.setenv(variable, dead_proxy)
    options: dict[str, Any] = {"display": False, "ledger": gk.Ledger(path=None)}
    if storage == "cache":
        options["cache"] = tmp_path / "cache"
    elif storage == "cassette":
        options.update(cassette=tmp_path / "lesson.jsonl", cassette_mode="record")
    with gk.Client(offline=True, **options) as client:
        assert client.offline and _ask(client)


def test_the_async_client_on_the_offline_gateway_ignores_the_proxy(clean_env: pytest.MonkeyPatch,
                                                                   dead_proxy: str, tmp_path: Path) -> None:
    clean_env.setenv("HTTP_PROXY", dead_proxy)

    async def both() -> list[str]:
        answers = []
        for cache in (None, tmp_path / "cache"):
            async with gk.AsyncClient(offline=True, cache=cache, display=False, ledger=gk.Ledger(path=None)) as client:
                answer = await client.chat.ask("Say hello.", model=await client.models.pick("chat"), max_tokens=8)
                answers.append(answer.choices[0].message.content)
        return answers

    assert all(asyncio.run(both()))


@pytest.mark.parametrize("cache", [False, True], ids=["no cache", "cache"])
def test_a_real_gateway_is_reached_through_the_environments_proxy(emulator: Any, keys: Any, http_proxy: int,
                                                                    clean_env: pytest.MonkeyPatch, tmp_path: Path,
                                                                    cache: bool) -> None:
    """Right login in HTTP_PROXY: answered through pproxy; wrong login: refused there (so nothing went direct)."""

    def client() -> gk.Client:
        return gk.Client(api_key=keys.acme, base_url=emulator.base_url, display=False, ledger=gk.Ledger(path=None),
                         cache=tmp_path / f"cache-{len(list(tmp_path.iterdir()))}" if cache else False,
                         max_retries=0)

    clean_env.setenv("HTTP_PROXY", f"http://school:{PASSWORD}@127.0.0.1:{http_proxy}")
    with client() as through:
        assert _ask(through)
    clean_env.setenv("HTTP_PROXY", f"http://school:not-{PASSWORD}@127.0.0.1:{http_proxy}")
    with client() as refused, pytest.raises(gk.GatewayError) as failure:
        _ask(refused)
    assert PASSWORD not in str(failure.value)
    clean_env.setenv("NO_PROXY", "127.0.0.1")  # listed: direct, whatever the proxy says
    with client() as direct:
        assert _ask(direct)


def test_the_async_client_with_a_cache_goes_through_the_proxy_too(emulator: Any, keys: Any, http_proxy: int,
                                                                  clean_env: pytest.MonkeyPatch, tmp_path: Path) -> None:
    async def ask(password: str, folder: str) -> str:
        clean_env.setenv("HTTP_PROXY", f"http://school:{password}@127.0.0.1:{http_proxy}")
        async with gk.AsyncClient(api_key=keys.acme, base_url=emulator.base_url, display=False, max_retries=0,
                                  ledger=gk.Ledger(path=None), cache=tmp_path / folder) as client:  # fmt: skip
            answer = await client.chat.ask("Say hello.", model="chat-mini", max_tokens=8)
            return str(answer.choices[0].message.content)

    assert asyncio.run(ask(PASSWORD, "right"))
    with pytest.raises(gk.GatewayError):
        asyncio.run(ask("not-" + PASSWORD, "wrong"))  # a fresh cache: asked, and refused at the proxy


@pytest.mark.parametrize("cache", [False, True], ids=["no cache", "cache"])
def test_a_proxy_that_cannot_be_reached_is_named_in_the_error_without_its_login(
    emulator: Any, keys: Any, clean_env: pytest.MonkeyPatch, dead_proxy: str, tmp_path: Path, cache: bool
) -> None:
    clean_env.setenv("HTTP_PROXY", dead_proxy.replace("http://", f"http://school:{PASSWORD}@"))
    with gk.Client(api_key=keys.acme, base_url=emulator.base_url, display=False, ledger=gk.Ledger(path=None),
                   cache=tmp_path / "cache" if cache else False, max_retries=0) as client:  # fmt: skip
        with pytest.raises(gk.APIConnectionError) as failure:
            client.models.list()
    message = str(failure.value)
    assert f"through the proxy at {dead_proxy}" in message and "NO_PROXY" in message, message
    assert PASSWORD not in message and "school" not in message
    assert not failure.value.request_sent  # type: ignore[attr-defined]  # never reached anyone: safe to retry


def test_a_direct_failure_names_no_proxy(emulator: Any, keys: Any, clean_env: pytest.MonkeyPatch,
                                         dead_proxy: str) -> None:
    """NO_PROXY lists the host, or the client has a transport of its own: a failure says nothing of a proxy."""
    import httpx

    clean_env.setenv("HTTP_PROXY", dead_proxy)
    clean_env.setenv("NO_PROXY", "127.0.0.1")
    with gk.Client(api_key=keys.acme, base_url=dead_proxy, display=False, ledger=gk.Ledger(path=None),
                   max_retries=0) as client, pytest.raises(gk.APIConnectionError) as direct:  # fmt: skip
        client.models.list()
    clean_env.delenv("NO_PROXY")

    def refuse(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("refused by the test transport", request=request)

    with gk.Client(api_key=keys.acme, base_url=emulator.base_url, display=False, ledger=gk.Ledger(path=None),
                   max_retries=0, http_transport=httpx.MockTransport(refuse)) as client:  # fmt: skip
        with pytest.raises(gk.APIConnectionError) as own:
            client.models.list()
    assert "proxy" not in str(direct.value) and "proxy" not in str(own.value)
    assert "refused by the test transport" in str(own.value)


@pytest.mark.parametrize("cache", [False, True], ids=["no cache", "cache"])
@pytest.mark.parametrize("variable", ["ALL_PROXY", "https_proxy"])
def test_a_socks_proxy_without_socksio_is_a_configuration_error_naming_the_variable(
    emulator: Any, keys: Any, clean_env: pytest.MonkeyPatch, tmp_path: Path, variable: str, cache: bool
) -> None:
    """httpx raised a bare ImportError (at the client's construction, or under a cache at its first call)."""
    clean_env.setitem(sys.modules, "socksio", None)  # not installed, whatever this environment has
    clean_env.setenv(variable, f"socks5h://school:{PASSWORD}@proxy.school.internal:1080")
    with pytest.raises(gk.ConfigurationError) as failure:
        gk.Client(api_key=keys.acme, base_url=emulator.base_url, display=False, ledger=gk.Ledger(path=None),
                  cache=tmp_path / "cache" if cache else False)  # fmt: skip
    message = str(failure.value)
    assert variable.upper() in message and 'pip install "httpx[socks]"' in message, message
    assert "socks5h://proxy.school.internal:1080" in message and PASSWORD not in message and "school:" not in message
    with gk.Client(offline=True, display=False, ledger=gk.Ledger(path=None)) as offline:  # no proxy for it
        assert _ask(offline)


def test_a_proxy_scheme_httpx_does_not_speak_is_a_configuration_error(keys: Any, emulator: Any,
                                                                      clean_env: pytest.MonkeyPatch) -> None:
    clean_env.setenv("HTTPS_PROXY", f"socks4://school:{PASSWORD}@proxy.school.internal:1080")
    with pytest.raises(gk.ConfigurationError) as failure:
        gk.Client(api_key=keys.acme, base_url=emulator.base_url, display=False)
    message = str(failure.value)
    assert "HTTPS_PROXY" in message and "socks5h://" in message and PASSWORD not in message, message
    clean_env.setenv("NO_PROXY", "*")  # nothing goes through a proxy: nothing to refuse
    with gk.Client(api_key=keys.acme, base_url=emulator.base_url, display=False, ledger=gk.Ledger(path=None)) as client:
        assert _ask(client)


def test_which_proxy_the_environment_names(clean_env: pytest.MonkeyPatch) -> None:
    import httpx

    clean_env.setenv("HTTPS_PROXY", "proxy.school.internal:3128")  # no scheme: http://, as httpx reads it
    clean_env.setenv("HTTP_PROXY", "socks5h://proxy.school.internal:1080")
    clean_env.setenv("NO_PROXY", "localhost, .school.internal")
    assert environment_proxy(httpx.URL("https://api.example.com/v1")) == "http://proxy.school.internal:3128"
    assert environment_proxy(httpx.URL("http://api.example.com/v1")) == "socks5h://proxy.school.internal:1080"
    assert environment_proxy(httpx.URL("https://media.school.internal/x.mp4")) is None
    assert environment_proxy(httpx.URL("http://localhost:8080/v1")) is None
    clean_env.setenv("NO_PROXY", "*")
    assert environment_proxy(httpx.URL("https://api.example.com/v1")) is None
    clean_env.delenv("NO_PROXY")
    clean_env.delenv("HTTPS_PROXY")
    clean_env.delenv("HTTP_PROXY")
    assert environment_proxy(httpx.URL("https://api.example.com/v1")) is None
