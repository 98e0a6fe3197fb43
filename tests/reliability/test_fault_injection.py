"""Random fault injection in the offline gateway: seeded, reproducible, counted and never charged."""

from __future__ import annotations

import time

import httpx
import pytest
from reliability_gateways import RELIABILITY_ADMIN, account_balance, admin_json, one_account

from gatewaykit import emulator

KEY = "sk-bf-faults-account-0000000000001"
CHAT = {"model": "chat-mini", "messages": [{"role": "user", "content": "hello there"}]}
ALL_KINDS = ("429", "500", "503", "disconnect", "stream-drop", "slow")


def _gateway(seed: int, rate: float = 0.5, kinds: tuple[str, ...] = ALL_KINDS) -> emulator.Emulator:
    return emulator.start(accounts=one_account("faults", KEY), time_scale=0, seed=seed, fault_rate=rate,
                          fault_kinds=kinds, slow_seconds=0.01, admin_token=RELIABILITY_ADMIN)


def _outcome(client: httpx.Client, number: int, always_stream: bool = False) -> str:
    """What one request (alternately plain and streamed) got: a status, 'dropped' or 'cut'."""
    streamed = always_stream or number % 2 == 1
    try:
        with client.stream("POST", "/v1/chat/completions", json={**CHAT, "stream": streamed}) as answer:
            try:
                body = answer.read()
            except httpx.TransportError:
                return "cut" if streamed else "dropped"  # the answer started, then the socket closed
    except httpx.TransportError:
        return "dropped"
    if streamed and answer.status_code == 200 and b"[DONE]" not in body:
        return "cut"
    return str(answer.status_code)


def _outcomes(seed: int, count: int = 40) -> list[str]:
    with _gateway(seed) as gateway, httpx.Client(base_url=gateway.base_url, timeout=30,
                                                  headers={"Authorization": f"Bearer {KEY}"}) as client:
        return [_outcome(client, number) for number in range(count)]


def test_same_seed_gives_the_same_fault_sequence():
    """Two gateways with one seed inject the same faults for the same request order."""
    first, second = _outcomes(5), _outcomes(5)
    assert first == second
    assert {"429", "500", "503", "dropped", "cut"} <= set(first) and "200" in first


def test_different_seeds_give_different_fault_sequences():
    """Another seed gives another sequence."""
    assert _outcomes(5) != _outcomes(6)


def test_random_faults_are_never_charged():
    """At fault rate 1 (every kind that fails a streamed chat), 40 streamed chats charge nothing."""
    kinds = ("429", "500", "503", "disconnect", "stream-drop")
    with _gateway(1, rate=1.0, kinds=kinds) as gateway, httpx.Client(
            base_url=gateway.base_url, timeout=30, headers={"Authorization": f"Bearer {KEY}"}) as client:
        before = account_balance(gateway.base_url, "faults")
        outcomes = [_outcome(client, number, always_stream=True) for number in range(40)]
        assert "200" not in outcomes and "cut" in outcomes
        assert account_balance(gateway.base_url, "faults") == before


def test_gateway_counts_the_faults_it_injects():
    """GET /_emulator/stats counts injected faults by kind; they add up to the failed requests."""
    with _gateway(3, kinds=("429", "500", "503")) as gateway, httpx.Client(
            base_url=gateway.base_url, timeout=30, headers={"Authorization": f"Bearer {KEY}"}) as client:
        statuses = [client.get("/v1/models").status_code for _ in range(60)]
        injected = admin_json(gateway.base_url, "/_emulator/stats")["faults_injected"]
    assert sum(injected.values()) == sum(status != 200 for status in statuses) > 0
    assert injected == {kind: statuses.count(int(kind)) for kind in injected}


def test_slow_fault_on_a_post_answers_after_the_delay():
    """A slow POST (with a body) answers normally after the delay instead of hanging."""
    with emulator.start(accounts=one_account("faults", KEY), time_scale=0, slow_seconds=0.3) as gateway:
        began = time.monotonic()
        answer = httpx.post(f"{gateway.base_url}/v1/chat/completions", json=CHAT, timeout=120,
                            headers={"Authorization": f"Bearer {KEY}", "X-Emulator-Fault": "slow"})
        assert answer.status_code == 200 and 0.3 <= time.monotonic() - began < 120


def test_cli_takes_fault_rate_kinds_and_retention():
    """The CLI has --fault-rate, --faults and --retention, and rejects an unknown fault kind."""
    from gatewaykit.emulator.__main__ import main, parse_args

    args = parse_args(["--fault-rate", "0.2", "--faults", "429,stream-drop", "--retention", "5"])
    assert (args.fault_rate, args.faults, args.retention) == (0.2, "429,stream-drop", 5.0)
    assert main(["--fault-rate", "0.2", "--faults", "429,explode", "--port", "0"]) == 2


@pytest.mark.parametrize("rate", [-0.1, 1.5])
def test_fault_rate_outside_zero_to_one_is_refused(rate):
    """fault_rate must be a probability."""
    with pytest.raises(ValueError, match="fault_rate"):
        emulator.Settings(fault_rate=rate)
