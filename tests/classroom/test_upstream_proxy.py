"""A school's classroom server reaches the gateway through the outbound proxy its environment names
(HTTPS_PROXY / HTTP_PROXY / ALL_PROXY / NO_PROXY, as httpx and urllib read them): CONNECT tunnels, reused
like any connection; a proxy that refuses is a 502 for the student that never shows the proxy's password;
NO_PROXY hosts stay direct, and so does a loopback gateway while NO_PROXY is not set.

The gateway behind the proxy is the real offline gateway on 127.0.0.1: NO_PROXY is set to a list without it,
so the proxy applies to it (with NO_PROXY unset, a loopback gateway is reached directly)."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Any, Iterator
from urllib.parse import urlsplit

import httpx
import pytest
from classroom_fixtures import TEACHER_KEY, auth, chat, upstream_spent
from connect_proxy import ConnectProxy, make_certificate
from proxy_servers import running_pproxy, without_proxy_variables

from gatewaykit import classroom
from gatewaykit.classroom.keepalive import ConnectionFailed, KeepAlivePool

PASSWORD = "pr0xy-Secret-7731"


@pytest.fixture
def clean_env(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    return without_proxy_variables(monkeypatch)


@pytest.fixture
def proxy() -> Iterator[ConnectProxy]:
    server = ConnectProxy(user="school", password=PASSWORD)
    yield server
    server.stop()


def behind_proxy(env: pytest.MonkeyPatch, proxy_url: str) -> None:
    """The school's environment: a proxy for http, and a NO_PROXY list (set, without 127.0.0.1)."""
    env.setenv("HTTP_PROXY", proxy_url)
    env.setenv("NO_PROXY", "localhost,.school.internal")


def student_calls(room: Any, chats: int, streams: int) -> list[int]:
    key = room.keys.key[0]
    statuses = []
    with httpx.Client(base_url=room.base_url, headers=auth(key), timeout=60, trust_env=False) as student:
        for _ in range(chats):
            answer = student.post("/v1/chat/completions", json=chat())
            statuses.append(answer.status_code)
            assert answer.status_code != 200 or answer.json()["choices"][0]["message"]["content"]
        for _ in range(streams):
            with student.stream("POST", "/v1/chat/completions", json=chat(stream=True)) as answer:
                lines = [line for line in answer.iter_lines() if line]
            statuses.append(answer.status_code)
            assert answer.status_code != 200 or lines[-1] == "data: [DONE]"
    return statuses


def calls_in_a_new_room(chats: int = 2, streams: int = 1, **options: Any) -> list[int]:
    """``chats`` chats and ``streams`` streams from one student of a classroom started with ``options``; their
    statuses."""
    room = classroom.start(roster=["ana"], **options)
    try:
        return student_calls(room, chats=chats, streams=streams)
    finally:
        room.stop()


def test_chats_and_streams_go_through_the_proxy_in_reused_tunnels(upstream: Any, proxy: ConnectProxy,
                                                                  clean_env: pytest.MonkeyPatch) -> None:
    behind_proxy(clean_env, proxy.url("school", PASSWORD))
    room = classroom.start(upstream=upstream.base_url, upstream_key=TEACHER_KEY, roster=["ana"])
    try:
        statuses = student_calls(room, chats=10, streams=3)
        report = room.report()
    finally:
        room.stop()
        clean_env.delenv("HTTP_PROXY")
    assert statuses == [200] * 13
    assert report.requests[0] == 13 and upstream_spent(upstream) > 0
    # one tunnel for the catalog at start, then the classroom's pool: kept alive, not one per request
    assert 2 <= proxy.connects <= 4, proxy.connects
    target = urlsplit(upstream.base_url).netloc.encode()
    assert all(head.startswith(b"CONNECT " + target + b" HTTP/1.1\r\n") for head in proxy.heads)
    assert all(b"Proxy-Authorization: Basic " in head for head in proxy.heads)
    assert not any(TEACHER_KEY.encode() in head for head in proxy.heads)  # the key travels only in the tunnel


def test_an_https_gateway_is_reached_with_tls_inside_the_tunnel(upstream: Any, proxy: ConnectProxy,
                                                               clean_env: pytest.MonkeyPatch, tmp_path: Path) -> None:
    # https://localhost:<the gateway's port>: the proxy routes it to a TLS front that passes on to the gateway
    port = urlsplit(upstream.base_url).port
    authority, certificate, key = make_certificate(tmp_path, "localhost")
    proxy.routes[f"localhost:{port}"] = proxy.serve_tls((certificate, key), to_port=port)
    clean_env.setenv("SSL_CERT_FILE", str(authority))  # ssl.create_default_context() trusts the test authority
    clean_env.setenv("HTTPS_PROXY", proxy.url("school", PASSWORD))
    clean_env.setenv("NO_PROXY", ".school.internal")
    statuses = calls_in_a_new_room(6, 2, upstream=f"https://localhost:{port}", upstream_key=TEACHER_KEY)
    assert statuses == [200] * 8
    assert 2 <= proxy.connects <= 4, proxy.connects
    assert all(head.startswith(f"CONNECT localhost:{port} HTTP/1.1\r\n".encode()) for head in proxy.heads)
    assert not any(TEACHER_KEY.encode() in head for head in proxy.heads)


def _proxy_failure(proxy_url: str, clean_env: pytest.MonkeyPatch, connect_timeout: float = 10) -> ConnectionFailed:
    """What a pool behind ``proxy_url`` raises for its first request (to a gateway the proxy would reach)."""
    clean_env.setenv("HTTPS_PROXY", proxy_url)
    clean_env.setenv("NO_PROXY", ".school.internal")

    async def ask() -> ConnectionFailed:
        pool = KeepAlivePool("https://localhost:9", timeout=5, connect_timeout=connect_timeout)
        try:
            with pytest.raises(ConnectionFailed) as failure:
                await pool.request("GET", "/v1/models", [])
            return failure.value
        finally:
            await pool.aclose()

    return asyncio.run(ask())


def test_a_proxy_that_never_answers_connect_is_a_connect_timeout(proxy: ConnectProxy,
                                                                 clean_env: pytest.MonkeyPatch) -> None:
    proxy.silent = True
    failure = _proxy_failure(proxy.url("school", PASSWORD), clean_env, connect_timeout=0.3)
    assert failure.timed_out and f"via the proxy 127.0.0.1:{proxy.port}" in failure.cause
    assert PASSWORD not in str(failure) and proxy.connects == 2  # tried once more: nothing was sent yet


@pytest.mark.parametrize("status", [407, 502])
def test_a_proxy_that_refuses_is_a_502_for_the_student_that_never_shows_its_password(
        upstream: Any, proxy: ConnectProxy, clean_env: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture,
        status: int) -> None:
    behind_proxy(clean_env, proxy.url("school", PASSWORD))
    room = classroom.start(upstream=upstream.base_url, upstream_key=TEACHER_KEY, roster=["ana"])
    try:
        proxy.refuse_with = status
        with caplog.at_level(logging.WARNING, logger="gatewaykit.classroom"):
            with httpx.Client(base_url=room.base_url, headers=auth(room.keys.key[0]), timeout=60,
                              trust_env=False) as student:
                answer = student.post("/v1/chat/completions", json=chat())
                streamed = student.post("/v1/chat/completions", json=chat(stream=True))
        report = room.report()
    finally:
        room.stop()
    for refused in (answer, streamed):
        assert refused.status_code == 502
        assert refused.json()["error"]["code"] == "upstream_unreachable"
        assert "could not reach the gateway" in refused.json()["error"]["message"]
        assert PASSWORD not in refused.text and "school:" not in refused.text
    assert report.spent_usd[0] == 0  # the holds were released
    logged = "\n".join(record.getMessage() for record in caplog.records)
    assert f"answered {status}" in logged and f"127.0.0.1:{proxy.port}" in logged
    assert PASSWORD not in logged


def test_a_classroom_started_behind_a_refusing_proxy_says_so_without_the_password(
        upstream: Any, proxy: ConnectProxy, clean_env: pytest.MonkeyPatch) -> None:
    behind_proxy(clean_env, proxy.url("school", "not-" + PASSWORD))
    with pytest.raises(ConnectionError) as failure:
        classroom.start(upstream=upstream.base_url, upstream_key=TEACHER_KEY, roster=["ana"])
    message = str(failure.value)
    assert "407" in message and "user and password" in message and f"127.0.0.1:{proxy.port}" in message
    assert PASSWORD not in message and proxy.connects == 1


def test_a_loopback_gateway_stays_direct_while_no_proxy_is_unset(upstream: Any, proxy: ConnectProxy,
                                                                 clean_env: pytest.MonkeyPatch) -> None:
    clean_env.setenv("HTTP_PROXY", proxy.url("school", PASSWORD))
    clean_env.setenv("ALL_PROXY", proxy.url("school", PASSWORD))
    statuses = calls_in_a_new_room(upstream=upstream.base_url, upstream_key=TEACHER_KEY)
    assert statuses == [200] * 3 and proxy.connects == 0


def test_the_classrooms_own_offline_gateway_never_goes_through_the_proxy(proxy: ConnectProxy,
                                                                          clean_env: pytest.MonkeyPatch) -> None:
    behind_proxy(clean_env, proxy.url("school", PASSWORD))
    statuses = calls_in_a_new_room(upstream="offline", offline={"time_scale": 0.0})
    assert statuses == [200] * 3 and proxy.connects == 0


def test_no_proxy_keeps_a_listed_gateway_direct(upstream: Any, proxy: ConnectProxy,
                                                clean_env: pytest.MonkeyPatch) -> None:
    clean_env.setenv("HTTP_PROXY", proxy.url("school", PASSWORD))
    clean_env.setenv("NO_PROXY", ".school.internal,127.0.0.1")
    statuses = calls_in_a_new_room(upstream=upstream.base_url, upstream_key=TEACHER_KEY)
    assert statuses == [200] * 3 and proxy.connects == 0


def test_which_gateways_the_environment_sends_through_the_proxy(clean_env: pytest.MonkeyPatch) -> None:
    def proxied(url: str) -> Any:
        return KeepAlivePool(url, timeout=5).proxy

    assert proxied("https://gateway.example") is None  # no variables: nothing changes
    clean_env.setenv("HTTPS_PROXY", f"http://school:{PASSWORD}@proxy.school.internal:3128")
    tunnel = proxied("https://gateway.example/v1")
    assert tunnel is not None and tunnel.shown == "proxy.school.internal:3128"
    assert PASSWORD not in repr(tunnel) and "school:" not in repr(tunnel)
    assert proxied("http://gateway.example") is None  # HTTPS_PROXY is for https only
    assert KeepAlivePool("https://gateway.example", timeout=5, trust_env=False).proxy is None
    for loopback in ("https://localhost:8443", "https://127.0.0.1", "https://127.0.0.2:9", "https://[::1]:8443"):
        assert proxied(loopback) is None, loopback  # NO_PROXY is not set
    clean_env.setenv("NO_PROXY", "example.org, .school.internal")
    assert proxied("https://127.0.0.1:8443") is not None  # NO_PROXY set: it alone decides, as in httpx
    assert proxied("https://gateway.example.org") is None and proxied("https://example.org") is None
    assert proxied("https://api.school.internal") is None
    assert proxied("https://gateway.example") is not None and proxied("https://notexample.org") is not None
    clean_env.setenv("NO_PROXY", "*")
    assert proxied("https://gateway.example") is None
    clean_env.delenv("NO_PROXY")
    clean_env.setenv("ALL_PROXY", "proxy.school.internal:8080")  # no scheme: http://, as httpx reads it
    all_tunnel = proxied("http://gateway.example")
    assert all_tunnel is not None and all_tunnel.shown == "proxy.school.internal:8080"


@pytest.mark.parametrize("named", ["socks4://proxy.school.internal:1080", "ftp://proxy.school.internal:2121"])
def test_a_proxy_the_classroom_cannot_speak_to_is_refused_at_start_naming_the_variable(
        clean_env: pytest.MonkeyPatch, named: str) -> None:
    scheme, _, where = named.partition("://")
    clean_env.setenv("HTTPS_PROXY", f"{scheme}://school:{PASSWORD}@{where}")
    with pytest.raises(ValueError) as failure:
        KeepAlivePool("https://gateway.example", timeout=5)
    assert "HTTPS_PROXY" in str(failure.value) and scheme in str(failure.value)
    assert "https://host:port" in str(failure.value) and "socks5h://" in str(failure.value)
    assert PASSWORD not in str(failure.value)


def test_socks5_and_https_proxies_are_read_from_the_environment(clean_env: pytest.MonkeyPatch) -> None:
    clean_env.setenv("HTTPS_PROXY", f"socks5h://school:{PASSWORD}@proxy.school.internal")
    proxy = KeepAlivePool("https://gateway.example", timeout=5).proxy
    assert proxy is not None and proxy.scheme == "socks5h" and proxy.shown == "proxy.school.internal:1080"
    assert PASSWORD not in repr(proxy) and "school:" not in repr(proxy) and "socks5h" in repr(proxy)
    clean_env.setenv("HTTPS_PROXY", "SOCKS5://proxy.school.internal:9050")
    proxy = KeepAlivePool("https://gateway.example", timeout=5).proxy
    assert proxy is not None and proxy.scheme == "socks5" and proxy.port == 9050
    clean_env.setenv("HTTPS_PROXY", f"https://school:{PASSWORD}@proxy.school.internal")
    proxy = KeepAlivePool("https://gateway.example", timeout=5).proxy
    assert proxy is not None and proxy.tls and not proxy.socks and proxy.shown == "proxy.school.internal:443"
    assert PASSWORD not in repr(proxy)
    clean_env.setenv("HTTPS_PROXY", f"socks5h://{'u' * 256}:{PASSWORD}@proxy.school.internal")
    with pytest.raises(ValueError) as failure:  # RFC 1929 carries at most 255 bytes of each
        KeepAlivePool("https://gateway.example", timeout=5)
    assert "1 to 255 bytes" in str(failure.value) and PASSWORD not in str(failure.value)


@pytest.mark.parametrize("scheme", ["socks5h", "socks5"])
def test_chats_and_streams_go_through_a_socks5_proxy_with_its_login(upstream: Any, proxy: ConnectProxy,
                                                                    clean_env: pytest.MonkeyPatch, scheme: str) -> None:
    """socks5h:// sends the gateway's name for the proxy to resolve; socks5:// resolves it here and sends the
    address (as curl and httpx read them). Both log in with the URL's user and password; tunnels are reused."""
    port = urlsplit(upstream.base_url).port
    clean_env.setenv("HTTP_PROXY", proxy.url("school", PASSWORD, scheme=scheme))
    clean_env.setenv("NO_PROXY", ".school.internal")
    statuses = calls_in_a_new_room(6, 2, upstream=f"http://localhost:{port}", upstream_key=TEACHER_KEY)
    clean_env.delenv("HTTP_PROXY")  # upstream_spent asks the gateway with httpx, which reads it
    assert statuses == [200] * 8 and upstream_spent(upstream) > 0
    assert 2 <= proxy.connects <= 4, proxy.connects
    assert proxy.heads == [] and len(proxy.socks_requests) == proxy.connects  # SOCKS5 only, never an http CONNECT
    if scheme == "socks5h":
        assert set(proxy.socks_requests) == {(3, "localhost", port)}  # by name
    else:
        assert all(kind in (1, 4) and address in ("127.0.0.1", "::1") and asked == port
                   for kind, address, asked in proxy.socks_requests)  # by the address resolved here


def test_an_https_gateway_is_reached_with_tls_inside_a_socks5_tunnel(upstream: Any, proxy: ConnectProxy,
                                                                    clean_env: pytest.MonkeyPatch,
                                                                    tmp_path: Path) -> None:
    port = urlsplit(upstream.base_url).port
    authority, certificate, key = make_certificate(tmp_path, "localhost")
    proxy.routes[f"localhost:{port}"] = proxy.serve_tls((certificate, key), to_port=port)
    clean_env.setenv("SSL_CERT_FILE", str(authority))
    clean_env.setenv("HTTPS_PROXY", proxy.url("school", PASSWORD, scheme="socks5h"))
    clean_env.setenv("NO_PROXY", ".school.internal")
    statuses = calls_in_a_new_room(upstream=f"https://localhost:{port}", upstream_key=TEACHER_KEY)
    assert statuses == [200] * 3 and set(proxy.socks_requests) == {(3, "localhost", port)}


def test_a_socks5_proxy_that_refuses_says_why_without_the_password(proxy: ConnectProxy,
                                                                   clean_env: pytest.MonkeyPatch) -> None:
    shown = f"127.0.0.1:{proxy.port}"
    wrong = _proxy_failure(proxy.url("school", "not-" + PASSWORD, scheme="socks5h"), clean_env)
    assert f"the proxy {shown} refused the user and password" in wrong.cause and PASSWORD not in str(wrong)
    missing = _proxy_failure(proxy.url(scheme="socks5h"), clean_env)
    assert f"the proxy {shown} wants a login" in missing.cause and "socks5h://user:password@" in missing.cause
    proxy.socks_refuse_with = 2
    refused = _proxy_failure(proxy.url("school", PASSWORD, scheme="socks5h"), clean_env)
    assert "answered 2 (not allowed by its rules) to SOCKS5 CONNECT localhost:9" in refused.cause
    assert PASSWORD not in str(refused) and not refused.timed_out
    proxy.socks_refuse_with = None
    unreachable = _proxy_failure(proxy.url("school", PASSWORD, scheme="socks5h"), clean_env)  # nothing on port 9
    assert "answered 4 (host unreachable)" in unreachable.cause


def test_a_classroom_started_behind_a_socks5_proxy_that_refuses_its_login_says_so(
        upstream: Any, proxy: ConnectProxy, clean_env: pytest.MonkeyPatch) -> None:
    clean_env.setenv("HTTP_PROXY", proxy.url("school", "not-" + PASSWORD, scheme="socks5"))
    clean_env.setenv("NO_PROXY", ".school.internal")
    with pytest.raises(ConnectionError) as failure:
        classroom.start(upstream=upstream.base_url, upstream_key=TEACHER_KEY, roster=["ana"])
    message = str(failure.value)
    assert "refused the user and password" in message and f"127.0.0.1:{proxy.port}" in message
    assert PASSWORD not in message and proxy.connects == 1


@pytest.fixture
def pproxy() -> Iterator[tuple[int, str]]:
    """pproxy as a SOCKS5 server on 127.0.0.1 with a user and password: (port, URL)."""
    with running_pproxy("socks5", "school", PASSWORD) as port:
        yield port, f"socks5h://school:{PASSWORD}@127.0.0.1:{port}"


def test_a_socks5_server_nobody_here_wrote_carries_the_classroom(upstream: Any, pproxy: tuple[int, str],
                                                                 clean_env: pytest.MonkeyPatch) -> None:
    port, url = pproxy
    clean_env.setenv("HTTP_PROXY", url)
    clean_env.setenv("NO_PROXY", ".school.internal")
    gateway_port = urlsplit(upstream.base_url).port
    try:
        statuses = calls_in_a_new_room(upstream=f"http://localhost:{gateway_port}", upstream_key=TEACHER_KEY)
        clean_env.setenv("HTTP_PROXY", url.replace(PASSWORD, "not-" + PASSWORD))
        with pytest.raises(ConnectionError) as failure:
            classroom.start(upstream=f"http://localhost:{gateway_port}", upstream_key=TEACHER_KEY, roster=["ana"])
    finally:
        clean_env.delenv("HTTP_PROXY")
    assert statuses == [200] * 3 and upstream_spent(upstream) > 0
    message = str(failure.value)  # pproxy hangs up on a wrong login rather than answering it
    assert f"127.0.0.1:{port}" in message and "user and password" in message and PASSWORD not in message


@pytest.fixture
def tls_proxy(tmp_path: Path, clean_env: pytest.MonkeyPatch) -> Iterator[tuple[ConnectProxy, tuple[Path, Path]]]:
    """An https proxy (TLS to the proxy itself) named localhost, its certificate from a test authority that
    ``SSL_CERT_FILE`` makes trusted; and that certificate, for a TLS gateway front of the same authority."""
    authority, certificate, key = make_certificate(tmp_path, "localhost")
    clean_env.setenv("SSL_CERT_FILE", str(authority))
    server = ConnectProxy(user="school", password=PASSWORD, tls=(certificate, key))
    yield server, (certificate, key)
    server.stop()


@pytest.mark.parametrize("gateway_tls", [False, True], ids=["http gateway", "https gateway: TLS in TLS"])
def test_an_https_proxy_carries_the_tunnels_inside_tls(upstream: Any, tls_proxy: Any,
                                                       clean_env: pytest.MonkeyPatch, gateway_tls: bool) -> None:
    """https://user:password@proxy: CONNECT and its Proxy-Authorization go inside TLS to the proxy; an https
    gateway's own TLS runs inside that (TLS in TLS)."""
    proxy, certificate = tls_proxy
    port = urlsplit(upstream.base_url).port
    if gateway_tls:
        proxy.routes[f"localhost:{port}"] = proxy.serve_tls(certificate, to_port=port)
    clean_env.setenv("HTTPS_PROXY" if gateway_tls else "HTTP_PROXY",
                     proxy.url("school", PASSWORD, scheme="https", host="localhost"))
    clean_env.setenv("NO_PROXY", ".school.internal")
    scheme = "https" if gateway_tls else "http"
    statuses = calls_in_a_new_room(upstream=f"{scheme}://localhost:{port}", upstream_key=TEACHER_KEY)
    assert statuses == [200] * 3 and 2 <= proxy.connects <= 4, proxy.connects
    assert all(head.startswith(f"CONNECT localhost:{port} HTTP/1.1\r\n".encode()) for head in proxy.heads)
    assert all(b"Proxy-Authorization: Basic " in head for head in proxy.heads)


def test_an_https_proxy_whose_certificate_is_not_trusted_is_not_spoken_to(tls_proxy: Any,
                                                                         clean_env: pytest.MonkeyPatch,
                                                                         tmp_path: Path) -> None:
    proxy, _ = tls_proxy
    (tmp_path / "other").mkdir()
    other, _, _ = make_certificate(tmp_path / "other", "localhost")
    clean_env.setenv("SSL_CERT_FILE", str(other))  # trusts another authority: the proxy's certificate is refused
    failure = _proxy_failure(proxy.url("school", PASSWORD, scheme="https", host="localhost"), clean_env)
    assert "SSLCertVerificationError" in failure.cause and f"via the proxy localhost:{proxy.port}" in failure.cause
    assert PASSWORD not in str(failure) and proxy.heads == []  # nothing was sent to it: not the login, not CONNECT
