"""X-Emulator-Fault and random fault injection: faults never charge."""

from __future__ import annotations

import time

import httpx
import pytest
from gateway_accounts import auth

from gatewaykit.emulator import start

CHAT = {"model": "chat-mini", "messages": [{"role": "user", "content": "hello there"}]}


@pytest.mark.parametrize("fault,status,kind", [("429", 429, "rate_limit_error"), ("500", 500, "api_error"),
                                               ("503", 503, "api_error")])
def test_status_faults_answer_in_the_envelope_and_do_not_charge(http, admin, fault, status, kind):
    """429/500/503 faults answer that status with the right type and charge nothing."""
    before = admin.balance()
    answer = http.post("/v1/chat/completions", json=CHAT, headers={"X-Emulator-Fault": fault})
    assert answer.status_code == status and answer.json()["error"]["type"] == kind
    assert admin.balance() == before


def test_injected_429_has_retry_after(http):
    """The 429 fault carries Retry-After."""
    answer = http.get("/v1/models", headers={"X-Emulator-Fault": "429"})
    assert answer.headers["Retry-After"] == "1"


def test_disconnect_drops_the_connection_without_charging(http, admin):
    """The disconnect fault drops the connection; nothing is charged."""
    before = admin.balance()
    with pytest.raises(httpx.RemoteProtocolError):
        http.post("/v1/chat/completions", json=CHAT, headers={"X-Emulator-Fault": "disconnect"})
    assert admin.balance() == before


def test_disconnect_on_a_stream_drops_it_midway(http, admin):
    """On a streamed chat the disconnect fault ends the stream before [DONE], uncharged."""
    before = admin.balance()
    received = []
    with pytest.raises(httpx.RemoteProtocolError):
        with http.stream("POST", "/v1/chat/completions", json={**CHAT, "stream": True},
                         headers={"X-Emulator-Fault": "disconnect"}) as stream:
            received.extend(stream.iter_lines())
    assert any(line.startswith("data: {") for line in received) and "data: [DONE]" not in received
    assert admin.balance() == before


def test_unknown_fault_value_is_400(http):
    """An unknown X-Emulator-Fault value is a 400 naming the header."""
    answer = http.get("/v1/models", headers={"X-Emulator-Fault": "explode"})
    assert answer.status_code == 400 and answer.json()["error"]["param"] == "X-Emulator-Fault"


def test_slow_fault_delays_the_answer():
    """The slow fault delays the answer by slow_seconds, then answers normally."""
    with start(time_scale=0, slow_seconds=0.5) as gateway:
        began = time.monotonic()
        answer = httpx.get(f"{gateway.base_url}/v1/models", headers={**auth(gateway.api_key),
                                                                     "X-Emulator-Fault": "slow"})
        assert answer.status_code == 200 and time.monotonic() - began >= 0.5


def test_job_fail_fault_fails_the_job_without_charge(http, admin):
    """job-fail makes the job end failed with error.message, never charged."""
    before = admin.balance()
    job = http.post("/v1/videos", json={"model": "video-range", "prompt": "x", "duration": 2},
                    headers={"X-Emulator-Fault": "job-fail"}).json()
    for _ in range(100):
        job = http.get(f"/v1/videos/{job['id']}").json()
        if job["status"] in ("completed", "failed"):
            break
        time.sleep(0.05)
    assert job["status"] == "failed" and job["error"]["message"]
    assert admin.balance() == before


def _statuses(seed: int) -> list[int]:
    with start(time_scale=0, seed=seed, fault_rate=0.5, fault_kinds=("429", "500", "503")) as gateway:
        return [httpx.get(f"{gateway.base_url}/v1/models", headers=auth(gateway.api_key)).status_code
                for _ in range(30)]


def test_random_faults_are_reproducible_for_a_seed():
    """Random faults at fault_rate follow the seed: same seed, same faults."""
    first, second = _statuses(1), _statuses(1)
    assert first == second and {429, 500, 503} & set(first) and 200 in first


def test_fault_header_without_a_key_is_still_401(emulator):
    """Faults apply after authentication."""
    answer = httpx.get(f"{emulator.base_url}/v1/models", headers={"X-Emulator-Fault": "500"})
    assert answer.status_code == 401

