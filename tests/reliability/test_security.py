"""Security of the offline gateway and the client: keys, ownership, links, binding, admin token."""

from __future__ import annotations

import inspect
import logging
import re
import subprocess
import sys
import time
from typing import Any, Iterator
from urllib.parse import urlsplit

import httpx
import pytest
from reliability_gateways import RELIABILITY_ADMIN, one_account

import gatewaykit as gk

OWNER = "sk-bf-security-owner-00000000000001"
STRANGER = "sk-bf-security-stranger-000000000002"
LYRICS = "[Verse]\nlocks and keys and little doors\n"


#: Long enough that a busy machine still fetches a fresh link before it expires (1 s did not always do).
RETENTION = 10.0


@pytest.fixture(scope="module")
def gateway() -> Iterator[Any]:
    accounts = one_account("owner", OWNER)
    accounts["accounts"].append(one_account("stranger", STRANGER)["accounts"][0])
    with gk.emulator.start(accounts=accounts, time_scale=0, admin_token=RELIABILITY_ADMIN,
                           retention_seconds=RETENTION) as running:
        yield running


def _client(gateway: Any, key: str = OWNER) -> gk.Client:
    return gk.Client(api_key=key, base_url=gateway.base_url, ledger=gk.Ledger())


def test_key_lookup_is_by_digest_and_constant_time(gateway):
    """Keys are kept only as SHA-256 digests and found by digest; no plain-text comparison of keys."""
    from gatewaykit.emulator import accounts

    book = gateway.gateway.book
    assert all(re.fullmatch(r"[0-9a-f]{64}", digest) for digest in book._keys)
    assert OWNER not in repr(list(book._keys.items()))
    source = inspect.getsource(accounts.AccountBook.authenticate)
    assert "self._keys.get(key_digest(token))" in source and "==" not in source.split("key_digest(token)")[1]


def test_admin_token_is_compared_with_compare_digest():
    """The admin token check uses hmac.compare_digest (a constant-time comparison)."""
    from gatewaykit.emulator.routes import admin

    source = inspect.getsource(admin)
    assert "hmac.compare_digest(" in source and "== token" not in source and "token ==" not in source


def test_job_ids_are_visible_only_to_the_owning_key(gateway):
    """Another key gets video_not_found / audio_not_found for a job it did not create, and cannot cancel it."""
    with _client(gateway) as owner:
        video = owner.videos.create(model="video-range", prompt="a vault", duration=2, generate_audio=False)
        song = owner.music.create(model="music-song", prompt="folk", lyrics_prompt=LYRICS)
    headers = {"Authorization": f"Bearer {STRANGER}"}
    for path, code in ((f"/v1/videos/{video.id}", "video_not_found"),
                       (f"/v1/videos/{video.id}/content", "video_not_found"),
                       (f"/v1/audio/generations/{song.id}", "audio_not_found"),
                       (f"/v1/audio/generations/{song.id}/content", "audio_not_found")):
        answer = httpx.get(gateway.base_url + path, headers=headers)
        assert answer.status_code == 404 and answer.json()["error"]["code"] == code
    answer = httpx.delete(f"{gateway.base_url}/v1/videos/{video.id}", headers=headers)
    assert answer.status_code == 404
    with _client(gateway, STRANGER) as stranger, pytest.raises(gk.NotFoundError):
        stranger.videos.retrieve(video.id)


def test_content_links_are_unguessable_and_expire(gateway):
    """Media links carry >= 128 random bits, differ per job, and answer 404 after the retention time."""
    with _client(gateway) as client:
        jobs = [client.music.create(model="music-song", prompt="folk", lyrics_prompt=LYRICS).wait(
            timeout=60, poll_interval=0.02) for _ in range(2)]
    urls = [job.audio[0].url for job in jobs]
    tokens = [urlsplit(url).path.split("/")[2] for url in urls]
    assert tokens[0] != tokens[1] and all(len(token) * 6 >= 128 for token in tokens)
    assert all(re.fullmatch(r"[A-Za-z0-9_-]+", token) for token in tokens)
    assert httpx.get(urls[0]).status_code == 200
    assert httpx.get(urls[0].replace(tokens[0], tokens[0][:-2] + "AA")).status_code == 404
    time.sleep(RETENTION + 1.2)  # past retention and the once-a-second sweep (a lower bound: load only adds)
    httpx.get(f"{gateway.base_url}/v1/audio/generations/{jobs[0].id}", headers={"Authorization": f"Bearer {OWNER}"})
    assert [httpx.get(url).status_code for url in urls] == [404, 404]


@pytest.mark.parametrize("headers", [{}, {"Authorization": "Bearer wrong"}, {"Authorization": f"Bearer {OWNER}"}])
@pytest.mark.parametrize("path", ["/_emulator/accounts", "/_emulator/stats"])
def test_admin_endpoints_need_the_admin_token(gateway, headers, path):
    """Without, with a wrong token, or with an API key: 401 in the envelope."""
    answer = httpx.get(gateway.base_url + path, headers=headers)
    error = answer.json()["error"]
    assert answer.status_code == 401 and set(error) == {"message", "type", "code", "param"}


def test_gateway_without_admin_token_refuses_admin_reads():
    """A gateway started with no admin token answers 401 to any token."""
    with gk.emulator.start(time_scale=0) as running:
        answer = httpx.get(f"{running.base_url}/_emulator/accounts", headers={"Authorization": "Bearer admin"})
        assert answer.status_code == 401


def test_gateway_binds_loopback_by_default(gateway):
    """start() and the CLI default to 127.0.0.1."""
    from gatewaykit.emulator.__main__ import parse_args

    assert gateway.host == "127.0.0.1" and parse_args([]).host == "127.0.0.1"


def test_start_on_all_interfaces_warns():
    """start(host='0.0.0.0') warns that other machines can reach it (then stops at once)."""
    with pytest.warns(RuntimeWarning, match="not loopback"):
        running = gk.emulator.start(host="0.0.0.0", time_scale=0)
    running.stop()


def test_cli_on_all_interfaces_prints_a_warning():
    """python -m gatewaykit.emulator --host 0.0.0.0 prints a WARNING before serving (stopped at once)."""
    process = subprocess.Popen([sys.executable, "-m", "gatewaykit.emulator", "--host", "0.0.0.0", "--port", "0"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = process.stderr.readline()
    finally:
        process.terminate()
        process.communicate(timeout=60)
    assert "WARNING" in line and "NOT loopback" in line


def test_key_never_appears_in_client_reprs_errors_or_debug_logs(gateway, caplog):
    """Client repr, error str/repr and DEBUG logs of httpx/httpcore/gatewaykit never show the key."""
    caplog.set_level(logging.DEBUG)
    for name in ("httpx", "httpcore", "gatewaykit"):
        logging.getLogger(name).setLevel(logging.DEBUG)
    texts = []
    try:
        with _client(gateway) as client:
            texts.append(repr(client))
            completion = client.chat.completions.create(model="chat-mini", messages=[{"role": "user", "content": "hi"}])
            texts.append(repr(completion))
            for call in (lambda: client.chat.completions.create(model="nope", messages=[], validate=False),
                         lambda: client.videos.retrieve("video_missing"),
                         lambda: client.chat.completions.create(model="chat-mini", messages=[{"role": "user",
                                                               "content": "x"}], extra_headers={"X-Emulator-Fault": "500"})):
                with pytest.raises(gk.GatewayError) as caught:
                    call()
                texts += [str(caught.value), repr(caught.value), str(caught.value._repr_mimebundle_())]
        with gk.Client(api_key=OWNER, base_url="http://127.0.0.1:9", max_retries=0) as dead:
            with pytest.raises(gk.APIConnectionError) as caught:
                dead.models.list()
            texts += [str(caught.value), repr(caught.value), repr(dead)]
    finally:
        for name in ("httpx", "httpcore", "gatewaykit"):
            logging.getLogger(name).setLevel(logging.NOTSET)
    texts += [record.getMessage() for record in caplog.records]
    assert any("HTTP Request" in text or "send_request" in text for text in texts)  # the logs were captured
    suffix = OWNER[-12:]
    assert not [text for text in texts if OWNER in text or suffix in text]
