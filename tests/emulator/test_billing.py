"""Billing: exact arithmetic, 402, 429, concurrency, and streams charged only on completion."""

from __future__ import annotations

import concurrent.futures
import json

import httpx
import pytest
from gateway_accounts import ACME_KEY, LIMITED_KEY, TIGHT_KEY, auth

CHAT = {"model": "chat-mini", "messages": [{"role": "user", "content": "Explain retries"}]}


def test_reported_costs_sum_to_the_balance_change(http, admin):
    """The total_cost of chats and images sums to the balance change to 1e-9."""
    before = admin.balance()
    costs = []
    for model in ("chat-mini", "chat-reasoner", "chat-vision"):
        costs.append(http.post("/v1/chat/completions", json={**CHAT, "model": model}).json()["usage"]["cost"])
    for body in ({"model": "image-gpt", "prompt": "a", "quality": "high"},
                 {"model": "image-pixels", "prompt": "b", "width": 512, "height": 256, "n": 2}):
        costs.append(http.post("/v1/images/generations", json=body).json()["usage"]["cost"])
    assert before - admin.balance() == pytest.approx(sum(c["total_cost"] for c in costs), abs=1e-9)


def test_cost_breakdown_adds_up_to_the_total(http):
    """The breakdown fields add up to total_cost."""
    cost = http.post("/v1/chat/completions", json={**CHAT, "model": "chat-reasoner"}).json()["usage"]["cost"]
    parts = [v for k, v in cost.items() if k != "total_cost"]
    assert sum(parts) == pytest.approx(cost["total_cost"], abs=1e-9)


def test_chat_price_follows_the_token_counts(http):
    """chat-mini costs $0.15 per million input tokens and $0.60 per million output tokens."""
    usage = http.post("/v1/chat/completions", json=CHAT).json()["usage"]
    expected = usage["prompt_tokens"] * 0.15e-6 + usage["completion_tokens"] * 0.60e-6
    assert usage["cost"]["total_cost"] == pytest.approx(expected, abs=1e-9)


def test_image_quality_sets_the_price(http):
    """image-gpt costs more at higher quality."""
    prices = [http.post("/v1/images/generations", json={"model": "image-gpt", "prompt": "p", "quality": q})
              .json()["usage"]["cost"]["total_cost"] for q in ("low", "medium", "high")]
    assert prices == sorted(prices) and len(set(prices)) == 3 and 0.01 <= prices[0] and prices[2] <= 0.2


def test_insufficient_balance_is_402_and_not_charged(emulator, admin):
    """An account that cannot pay gets 402 insufficient_quota and keeps its balance."""
    before = admin.balance("tight")
    answer = httpx.post(f"{emulator.base_url}/v1/images/generations", headers=auth(TIGHT_KEY),
                        json={"model": "image-gpt", "prompt": "x"})
    assert answer.status_code == 402
    assert answer.json()["error"]["code"] == answer.json()["error"]["type"] == "insufficient_quota"
    assert admin.balance("tight") == before


@pytest.mark.parametrize("path,body", [
    ("/v1/videos", {"model": "video-tiers", "prompt": "x"}),
    ("/v1/audio/generations", {"model": "music-song", "prompt": "x", "lyrics_prompt": "[Verse]\nla la la"}),
])
def test_jobs_the_balance_cannot_pay_are_refused_at_create(emulator, path, body):
    """Video and music jobs are checked against the balance when created."""
    answer = httpx.post(f"{emulator.base_url}{path}", headers=auth(TIGHT_KEY), json=body)
    assert answer.status_code == 402


def test_rate_limit_is_429_with_retry_after_and_not_charged(emulator, admin):
    """Past the account's rate limit: 429 rate_limit_exceeded, Retry-After, no charge."""
    url = f"{emulator.base_url}/v1/chat/completions"
    answers = [httpx.post(url, headers=auth(LIMITED_KEY), json=CHAT) for _ in range(3)]
    before = admin.balance("limited")
    refused = httpx.post(url, headers=auth(LIMITED_KEY), json=CHAT)
    assert [a.status_code for a in answers] == [200, 200, 200]
    assert refused.status_code == 429 and int(refused.headers["Retry-After"]) >= 1
    error = refused.json()["error"]
    assert (error["code"], error["type"]) == ("rate_limit_exceeded", "rate_limit_error")
    assert admin.balance("limited") == before


def test_200_concurrent_requests_keep_the_balance_exact(emulator, admin):
    """200 concurrent chats: the balance drops by exactly the sum of reported costs."""
    before = admin.accounts()["acme"]

    def one(i: int) -> float:
        body = {**CHAT, "messages": [{"role": "user", "content": f"Question number {i} about queues"}]}
        answer = httpx.post(f"{emulator.base_url}/v1/chat/completions", headers=auth(ACME_KEY), json=body,
                            timeout=60)
        return answer.json()["usage"]["cost"]["total_cost"]

    with concurrent.futures.ThreadPoolExecutor(32) as pool:
        costs = list(pool.map(one, range(200)))
    after = admin.accounts()["acme"]
    assert before["balance_usd"] - after["balance_usd"] == pytest.approx(sum(costs), abs=1e-9)
    assert after["spent_usd"] - before["spent_usd"] == pytest.approx(sum(costs), abs=1e-9)


def test_completed_stream_is_charged_its_usage_cost(emulator, admin):
    """A streamed chat is charged exactly the cost on its final usage chunk."""
    before = admin.balance()
    body = {**CHAT, "stream": True, "stream_options": {"include_usage": True}}
    with httpx.stream("POST", f"{emulator.base_url}/v1/chat/completions", headers=auth(ACME_KEY), json=body) as s:
        lines = [line for line in s.iter_lines() if line.startswith("data: ")]
    usage = json.loads(lines[-2][6:])["usage"]
    assert before - admin.balance() == pytest.approx(usage["cost"]["total_cost"], abs=1e-9)


def test_stream_dropped_by_the_client_is_not_charged(emulator, admin):
    """A client that walks away mid-stream is not charged."""
    import time

    with httpx.Client(base_url=emulator.base_url, headers=auth(ACME_KEY)) as client:
        before = admin.balance()
        gateway_slow = {**CHAT, "stream": True, "max_tokens": 400}
        # time-scale 0 streams instantly, so use a long answer and close after the first event
        with client.stream("POST", "/v1/chat/completions", json=gateway_slow,
                           headers={"X-Emulator-Fault": "stream-drop"}) as stream:
            for _ in stream.iter_raw():
                break
    time.sleep(0.2)
    assert admin.balance() == before
