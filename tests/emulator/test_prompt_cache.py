"""Prompt caching: prefixes of 256+ tokens are remembered per account, model and prompt_cache_key."""

from __future__ import annotations

import json
import uuid

import httpx
import pytest
from gateway_accounts import ACME_KEY, ACME_SECOND_KEY, TIGHT_KEY, auth

from gatewaykit.emulator import start
from gatewaykit.emulator.prompt_cache import BLOCK_TOKENS, MIN_PREFIX_TOKENS, PromptCache

OTHER_KEY = "sk-bf-test-prompt-cache-other-0001"


def system_prompt(words: int = 400) -> str:
    """A long system prompt no other test sends (so every test starts with a cold cache)."""
    tag = uuid.uuid4().hex[:8]
    return f"Run {tag}. " + " ".join(f"rule{i % 97} applies" for i in range(words))


def body(system: str, question: str = "Explain retries", **fields) -> dict:
    return {"model": "chat-mini", "seed": 1, **fields,
            "messages": [{"role": "system", "content": system}, {"role": "user", "content": question}]}


def usage(client: httpx.Client, payload: dict) -> dict:
    answer = client.post("/v1/chat/completions", json=payload)
    assert answer.status_code == 200, answer.text
    return answer.json()["usage"]


def cached(used: dict) -> tuple[int, int, int]:
    details = used["prompt_tokens_details"]
    return details["cached_tokens"], details["cached_read_tokens"], details["cached_write_tokens"]


@pytest.fixture
def prices(http) -> dict:
    """chat-mini's catalog pricing in USD per token."""
    entry = next(m for m in http.get("/v1/models").json()["data"] if m["id"] == "chat-mini")
    return {name: entry["pricing"][name] / 1e6 for name in ("input", "output", "cache_read")}


def test_first_request_reads_nothing_and_writes_whole_blocks(http):
    """A first long prompt has no cached tokens and writes its whole blocks."""
    used = usage(http, body(system_prompt()))
    assert used["prompt_tokens"] >= MIN_PREFIX_TOKENS
    assert cached(used) == (0, 0, used["prompt_tokens"] // BLOCK_TOKENS * BLOCK_TOKENS)


def test_repeat_reads_the_shared_prefix_at_the_cache_read_rate(http, prices):
    """A new question after the same long system prompt reads the cache and is cheaper by exactly the discount."""
    system = system_prompt()
    first = usage(http, body(system, "Explain retries"))
    second = usage(http, body(system, "Explain timeouts"))
    read = cached(second)[0]
    assert read > 0 and read % BLOCK_TOKENS == 0 and read <= first["prompt_tokens"] <= second["prompt_tokens"]
    assert cached(second) == (read, read, second["prompt_tokens"] // BLOCK_TOKENS * BLOCK_TOKENS - read)
    expected_input = (second["prompt_tokens"] - read) * prices["input"] + read * prices["cache_read"]
    assert second["cost"]["input_tokens_cost"] == pytest.approx(expected_input, abs=1e-9)
    full_price = second["prompt_tokens"] * prices["input"] + second["completion_tokens"] * prices["output"]
    discount = read * (prices["input"] - prices["cache_read"])
    assert second["cost"]["total_cost"] == pytest.approx(full_price - discount, abs=1e-9)


def test_identical_repeat_reads_every_whole_block(http):
    """The same long prompt twice: the second reads all its whole blocks and writes none."""
    payload = body(system_prompt())
    usage(http, payload)
    again = usage(http, payload)
    assert cached(again) == (again["prompt_tokens"] // BLOCK_TOKENS * BLOCK_TOKENS,) * 2 + (0,)


def test_different_prompt_cache_key_is_a_miss(http):
    """The same prefix under another prompt_cache_key is not a hit; the same key is."""
    system = system_prompt()
    usage(http, body(system, prompt_cache_key="tenant-a"))
    assert cached(usage(http, body(system, "Other", prompt_cache_key="tenant-b")))[0] == 0
    assert cached(usage(http, body(system, "Other", prompt_cache_key="tenant-a")))[0] > 0


def test_different_model_is_a_miss(http):
    """A prefix cached on chat-mini is not a hit on chat-reasoner."""
    system = system_prompt()
    usage(http, body(system))
    assert cached(usage(http, body(system, model="chat-reasoner")))[0] == 0


def test_another_key_of_the_same_account_shares_the_cache(http, emulator):
    """The cache belongs to the account: a second key of it hits what the first cached."""
    system = system_prompt()
    usage(http, body(system))
    with httpx.Client(base_url=emulator.base_url, headers=auth(ACME_SECOND_KEY)) as second:
        assert cached(usage(second, body(system, "Other")))[0] > 0


def test_different_account_is_a_miss():
    """Another account sending the same long prompt gets no cached tokens."""
    accounts = {"accounts": [{"id": "one", "balance_usd": 1, "keys": [{"key": ACME_KEY}]},
                             {"id": "two", "balance_usd": 1, "keys": [{"key": OTHER_KEY}]}]}
    payload = body(system_prompt())
    with start(accounts=accounts, time_scale=0) as gateway:
        with httpx.Client(base_url=gateway.base_url, headers=auth(ACME_KEY)) as one, \
                httpx.Client(base_url=gateway.base_url, headers=auth(OTHER_KEY)) as two:
            usage(one, payload)
            assert cached(usage(two, payload))[0] == 0
            assert cached(usage(one, payload))[0] > 0


def test_short_prompt_is_never_cached(http):
    """A prompt under 256 tokens reports no cached reads or writes, however often it is sent."""
    payload = body("Be brief.", "Explain caching")
    results = [usage(http, payload) for _ in range(3)]
    assert all(u["prompt_tokens"] < MIN_PREFIX_TOKENS and cached(u) == (0, 0, 0) for u in results)
    assert len({u["cost"]["total_cost"] for u in results}) == 1


def test_streamed_final_usage_carries_the_same_cached_counts(http):
    """A streamed chat's final usage chunk reports the same cached tokens and cost as the plain answer."""
    system = system_prompt()
    usage(http, body(system, "Warm the cache"))
    plain = usage(http, body(system))
    stream_body = body(system, stream=True, stream_options={"include_usage": True})
    with http.stream("POST", "/v1/chat/completions", json=stream_body) as stream:
        lines = [line for line in stream.iter_lines() if line.startswith("data: {")]
    streamed = json.loads(lines[-1][6:])["usage"]
    assert cached(streamed)[0] > 0
    assert streamed["prompt_tokens_details"] == plain["prompt_tokens_details"]
    assert streamed["cost"] == plain["cost"]


def test_balance_change_equals_the_summed_costs_with_cache_hits(http, admin):
    """Plain and streamed chats with cache hits: the balance drops by exactly the reported costs."""
    system = system_prompt()
    before = admin.balance()
    used = [usage(http, body(system, f"Question {i}")) for i in range(4)]
    stream_body = body(system, "Streamed", stream=True, stream_options={"include_usage": True})
    with http.stream("POST", "/v1/chat/completions", json=stream_body) as stream:
        lines = [line for line in stream.iter_lines() if line.startswith("data: {")]
    used.append(json.loads(lines[-1][6:])["usage"])
    assert cached(used[0])[0] == 0 and all(cached(u)[0] > 0 for u in used[1:])
    assert before - admin.balance() == pytest.approx(sum(u["cost"]["total_cost"] for u in used), abs=1e-9)


def test_refused_request_caches_nothing(emulator):
    """A chat refused for lack of funds (402) does not fill the cache for its account."""
    before = emulator.gateway.prompt_cache.size("tight")
    with httpx.Client(base_url=emulator.base_url, headers=auth(TIGHT_KEY)) as tight:
        assert tight.post("/v1/chat/completions", json=body(system_prompt(3000))).status_code == 402
    assert emulator.gateway.prompt_cache.size("tight") == before


def test_expired_entries_are_not_hits():
    """Past its in-memory retention an entry is not a hit; a 24h entry still is."""
    now = [0.0]
    cache = PromptCache(clock=lambda: now[0])
    units = [f"t{i}" for i in range(600)]
    for retention in ("in-memory", "24h"):
        cache.store("acct", cache.lookup("acct", retention, None, units, retention))
    now[0] = 301.0
    assert cache.lookup("acct", "in-memory", None, units).read_tokens == 0
    assert cache.lookup("acct", "24h", None, units).read_tokens == 512


def test_expired_entry_is_a_miss_over_http():
    """With a 0-second in-memory retention a repeated long prompt is never a hit."""
    with start(time_scale=0, prompt_cache_memory_seconds=0) as gateway:
        with httpx.Client(base_url=gateway.base_url, headers=auth(gateway.api_key)) as client:
            payload = body(system_prompt())
            usage(client, payload)
            assert cached(usage(client, payload))[0] == 0
            kept = {**payload, "prompt_cache_retention": "24h"}
            usage(client, kept)
            assert cached(usage(client, kept))[0] > 0


def test_memory_is_bounded_per_account():
    """Past the per-account cap the least recently used blocks are dropped."""
    cache = PromptCache(max_blocks=8)
    prompts = [[f"p{n}-{i}" for i in range(512)] for n in range(3)]
    for units in prompts:
        cache.store("acct", cache.lookup("acct", "m", None, units))
    assert cache.size("acct") == 8
    assert cache.lookup("acct", "m", None, prompts[0]).read_tokens == 0
    assert cache.lookup("acct", "m", None, prompts[2]).read_tokens == 512


@pytest.mark.parametrize("field,value", [("prompt_cache_retention", "forever"), ("prompt_cache_key", 5)])
def test_bad_cache_fields_are_400(http, field, value):
    """prompt_cache_retention must be in-memory or 24h and prompt_cache_key a string."""
    answer = http.post("/v1/chat/completions", json=body("x", **{field: value}))
    assert answer.status_code == 400 and answer.json()["error"]["param"] == field


def test_catalog_shows_the_cache_read_rate_and_rules(http):
    """Every chat model's pricing has cache_read at 10 % of input, and prompt_caching states the rules."""
    for entry in http.get("/v1/models").json()["data"]:
        if "text" in entry["output_modalities"]:
            assert entry["pricing"]["cache_read"] == pytest.approx(entry["pricing"]["input"] / 10)
            rules = entry["prompt_caching"]
            assert (rules["min_prefix_tokens"], rules["block_tokens"]) == (MIN_PREFIX_TOKENS, BLOCK_TOKENS)
