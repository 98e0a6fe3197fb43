"""A budget under concurrency holds for chats too (issue 28, item 17).

While a chat is in flight the budget reserves its worst case: the prompt plus
``max_tokens`` priced by the catalog (the client's own quote), or the most a
chat of that model has cost so far, whichever is more. Eight threads then never
pass the budget by more than one request, even before the ledger saw one chat
(it was 2.3-2.9x the budget); the price is that fewer chats go at once near the
limit (a refused one says so: "not sent").
"""

from __future__ import annotations

import warnings
from typing import Any

import gatewaykit as gk
from gatewaykit.costs import BudgetWarning, Ledger

POEM = [{"role": "user", "content": "Write a long poem about the sea, with many verses."}]


def _map_chats(client: gk.Client, count: int, **params: Any) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", BudgetWarning)  # (whether 80 % is reached depends on the threads' order)
        return client.map(
            lambda _: client.chat.completions.create(model="chat-mini", messages=POEM, **params), range(count),
            concurrency=8,
        )  # fmt: skip


def test_eight_threads_stop_at_the_budget_before_any_chat_was_seen(emulator: Any, keys: Any) -> None:
    """No warm-up: the first eight chats reserve their worst case (prompt + max_tokens), not $0."""
    probe = Ledger(path=None)
    with gk.Client(api_key=keys.acme, base_url=emulator.base_url, ledger=probe, display=False) as client:
        client.chat.completions.create(model="chat-mini", messages=POEM, max_tokens=400)
    one = probe.total_cost
    ledger = Ledger(path=None, budget=one * 3.5)
    with gk.Client(api_key=keys.acme, base_url=emulator.base_url, ledger=ledger, display=False) as client:
        _map_chats(client, 24, max_tokens=400)
    assert ledger.total_cost <= ledger.budget + 1.5 * one, (ledger.total_cost / ledger.budget, len(ledger))
    assert len(ledger) >= 1 and ledger._budget.reserved == 0


def test_without_max_tokens_the_largest_seen_is_reserved(emulator: Any, keys: Any) -> None:
    """No max_tokens: after one chat, each in flight reserves at least what it cost (not the prompt alone)."""
    ledger = Ledger(path=None)
    with gk.Client(api_key=keys.acme, base_url=emulator.base_url, ledger=ledger, display=False) as client:
        client.chat.completions.create(model="chat-mini", messages=POEM)
        one = ledger.total_cost
        ledger.budget = one * 4.5
        _map_chats(client, 24)
    assert ledger.total_cost <= ledger.budget + 1.5 * one, (ledger.total_cost / ledger.budget, len(ledger))
    assert ledger._budget.reserved == 0
