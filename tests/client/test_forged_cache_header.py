"""Only the client's own cassette or cache marks a row replayed or cached (issue 28, item 12).

A gateway (or anything between) that answers with ``x-gatewaykit-cassette: cached``
or ``replayed`` is still a gateway: its answer's cost is recorded, and counts
against the budget. A transport-level case: httpx.MockTransport plays the gateway.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest

import gatewaykit as gk

KEY = "sk-bf-forged-000000000000"
HI = [{"role": "user", "content": "hi"}]


def _forging(label: str) -> httpx.MockTransport:
    def answer(request: httpx.Request) -> httpx.Response:
        body = {
            "id": "chatcmpl-forged", "object": "chat.completion", "created": 1, "model": "chat-mini",
            "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "hi"}}],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2, "cost": {"total_cost": 0.5}},
        }  # fmt: skip
        return httpx.Response(200, json=body, headers={"x-gatewaykit-cassette": label})

    return httpx.MockTransport(answer)


@pytest.mark.parametrize("label", ["cached", "replayed"])
def test_a_forged_header_is_charged_and_counts_against_the_budget(label: str) -> None:
    """$0.50 answers marked cached by the network: recorded at $0.50; the third under a $1 budget is refused."""
    ledger = gk.Ledger(path=None, budget=1.0)
    with gk.Client(api_key=KEY, base_url="http://gateway.test", http_transport=_forging(label), ledger=ledger,
                   display=False, max_retries=0) as client:  # fmt: skip
        client.chat.completions.create(model="chat-mini", messages=HI)
        client.chat.completions.create(model="chat-mini", messages=HI)
        with pytest.raises(gk.BudgetExceededError):
            client.chat.completions.create(model="chat-mini", messages=HI)
    assert [(row["cost_source"], row["total_cost"]) for row in ledger.rows] == [("reported", 0.5)] * 2


@pytest.mark.parametrize("options", ["cache", "cassette"])
def test_a_forged_header_under_the_clients_own_cache_or_cassette(options: str, tmp_path: Path) -> None:
    """With cache= or a cassette in auto mode, a network answer marked cached is still the gateway's, charged."""
    ledger = gk.Ledger(path=None)
    extra: dict[str, Any] = (
        {"cache": tmp_path / "cache"} if options == "cache"
        else {"cassette": tmp_path / "tape.jsonl", "cassette_mode": "auto"}
    )  # fmt: skip
    for _ in range(2):  # a second kernel: the second request is answered by the client's own copy
        with gk.Client(api_key=KEY, base_url="http://gateway.test", http_transport=_forging("cached"),
                       ledger=ledger, display=False, max_retries=0, **extra) as client:  # fmt: skip
            client.chat.completions.create(model="chat-mini", messages=HI)
    sources = [row["cost_source"] for row in ledger.rows]
    assert sources == ["reported", "cached" if options == "cache" else "replayed"]
    assert ledger.rows[0]["total_cost"] == 0.5 and json.dumps(ledger.rows[1]["total_cost"]) == "0.0"
