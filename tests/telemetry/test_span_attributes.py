"""gatewaykit's own span attributes say only what the conventions' names do not already say."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import gatewaykit as gk
from gateway_accounts import ACME_KEY

CHAT = [{"role": "user", "content": "Name a mountain"}]


def test_a_request_sent_once_has_no_attempts_and_a_reported_cost_no_second_source(traces: Any, client: gk.Client) -> None:
    """Sent once: no gatewaykit.attempts; cost.source=provider already says the ledger's 'reported'."""
    client.chat.completions.create(model="chat-mini", messages=CHAT)
    attributes = traces.one("chat").attributes
    assert attributes["gen_ai.usage.cost.source"] == "provider"
    assert "gatewaykit.attempts" not in attributes and "gatewaykit.cost.source" not in attributes


def test_a_retried_request_says_how_many_times_it_was_sent(traces: Any, emulator: Any) -> None:
    """A 503 answered every time: the span's gatewaykit.attempts is the client's attempts."""
    with gk.Client(api_key=ACME_KEY, base_url=emulator.base_url, display=False, ledger=gk.Ledger(path=None),
                   max_retries=1) as client:  # fmt: skip
        with pytest.raises(gk.ServerError):
            client.chat.completions.create(model="chat-mini", messages=CHAT, extra_headers={"X-Emulator-Fault": "503"})
    attributes = traces.one("chat").attributes
    assert attributes["gatewaykit.attempts"] == 2
    assert attributes["error.type"]


def test_an_answer_from_the_cache_says_so(traces: Any, emulator: Any, tmp_path: Path) -> None:
    """The cache's answer costs nothing: amount 0, and gatewaykit.cost.source says 'cached'."""
    with gk.Client(api_key=ACME_KEY, base_url=emulator.base_url, display=False, ledger=gk.Ledger(path=None),
                   cache=tmp_path / "cache") as client:  # fmt: skip
        client.chat.completions.create(model="chat-mini", messages=CHAT)
        client.chat.completions.create(model="chat-mini", messages=CHAT)
    first, second = traces.spans("chat")
    assert first.attributes["gen_ai.usage.cost.amount"] > 0 and "gatewaykit.cost.source" not in first.attributes
    assert second.attributes["gen_ai.usage.cost.amount"] == 0.0
    assert second.attributes["gatewaykit.cost.source"] == "cached"
