"""The budget counts requests in flight: client.map stops at the budget, not at several times it."""

from __future__ import annotations

import pytest

import gatewaykit as gk
from gatewaykit.costs import BudgetWarning, Ledger

HELLO = [{"role": "user", "content": "Say hello in five words."}]


def test_client_map_stops_at_the_budget_like_sequential_calls(emulator, keys):
    """40 chats on 8 threads with a budget of 5.5 chats: 6 are charged (as one by one), 34 are not sent."""
    ledger = Ledger(path=None)
    with gk.Client(api_key=keys.acme, base_url=emulator.base_url, ledger=ledger) as client:
        client.chat.completions.create(model="chat-mini", messages=HELLO)  # the ledger learns what one costs
        one = ledger.total_cost
        ledger.budget = one * 5.5
        with pytest.warns(BudgetWarning):
            results = client.map(
                lambda _: client.chat.completions.create(model="chat-mini", messages=HELLO), range(40), concurrency=8
            )
    refused = [e for _, e in results.errors if isinstance(e, gk.BudgetExceededError)]
    assert ledger.total_cost <= ledger.budget + one + 1e-12  # one request past it at most, as sequential calls
    assert len(ledger) <= 6 and len(refused) >= 34
    assert all("not sent" in str(e) for e in refused)


def test_a_refused_request_releases_nothing_it_did_not_reserve(emulator, keys):
    """After a map, every reservation is released: sequential calls see only what was spent."""
    ledger = Ledger(path=None)
    with gk.Client(api_key=keys.acme, base_url=emulator.base_url, ledger=ledger) as client:
        client.chat.completions.create(model="chat-mini", messages=HELLO)
        ledger.budget = ledger.total_cost * 1000
        client.map(lambda _: client.chat.completions.create(model="chat-mini", messages=HELLO), range(16))
        assert ledger._budget.reserved == 0
        client.chat.completions.create(model="chat-mini", messages=HELLO)
    assert len(ledger) == 18


def test_a_reservation_is_released_when_the_request_fails_before_an_answer(emulator, keys):
    """A request refused by the gateway (a bad model) records an error and releases its reservation."""
    ledger = Ledger(path=None, budget=1.0)
    with gk.Client(api_key=keys.acme, base_url=emulator.base_url, ledger=ledger, max_retries=0) as client:
        with pytest.raises(gk.GatewayError):
            client.chat.completions.create(model="no-such-model", messages=HELLO)
    assert ledger._budget.reserved == 0
