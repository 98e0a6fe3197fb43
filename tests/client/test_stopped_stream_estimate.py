"""A stopped answer is estimated and counted, not left 'unknown (not counted)' (issue 31, item 2)."""

from __future__ import annotations

from typing import Any

import pytest

import gatewaykit as gk


def test_a_stream_closed_early_is_estimated_from_its_tokens_and_counted(emulator: Any, keys: Any) -> None:
    """With the catalog's prices known, close() after a few chunks leaves an estimated, counted row."""
    ledger = gk.Ledger(path=None, budget=10.0)
    with gk.Client(api_key=keys.acme, base_url=emulator.base_url, ledger=ledger, display=False) as client:
        client.models.list()  # the catalog's prices (the chat box reads it for its picker)
        stream = client.chat.completions.create(
            model="chat-mini", messages=[{"role": "user", "content": "tell me a long story"}], stream=True
        )
        for count, _chunk in enumerate(stream):
            if count == 5:
                break
        stream.close()
    (row,) = ledger.rows
    assert (row["status"], row["charged"], row["cost_source"]) == ("interrupted", True, "estimated")
    assert row["prompt_tokens"] > 0 and row["completion_tokens"] > 0 and "estimated" in row["note"]
    # the catalog's $0.15 / $0.60 per million tokens, applied to the estimated tokens
    expected = (row["prompt_tokens"] * 0.15 + row["completion_tokens"] * 0.60) / 1e6
    assert row["total_cost"] == pytest.approx(expected)
    assert ledger.total_cost == pytest.approx(expected) and ledger.estimated_cost == pytest.approx(expected)


def test_without_prices_a_stopped_stream_stays_unknown(emulator: Any, keys: Any) -> None:
    """Nothing to price it with: the row says the cost is unknown, as before (never a guessed $0)."""
    ledger = gk.Ledger(path=None)
    with gk.Client(api_key=keys.acme, base_url=emulator.base_url, ledger=ledger, display=False) as client:
        stream = client.chat.completions.create(
            model="chat-mini", messages=[{"role": "user", "content": "tell me a long story"}], stream=True
        )
        for _chunk in stream:
            break
        stream.close()
    (row,) = ledger.rows
    assert (row["charged"], row["cost_source"]) == (None, "unknown")


def test_a_stream_the_network_broke_off_stays_unknown(emulator: Any, keys: Any) -> None:
    """A disconnect is not a Stop: the gateway may not have charged it, so nothing is estimated or counted."""
    ledger = gk.Ledger(path=None)
    with gk.Client(api_key=keys.acme, base_url=emulator.base_url, ledger=ledger, display=False, max_retries=0) as client:
        client.models.list()
        stream = client.chat.completions.create(
            model="chat-mini", messages=[{"role": "user", "content": "tell me a long story"}], stream=True,
            extra_headers={"X-Emulator-Fault": "disconnect"},
        )
        with pytest.raises(gk.GatewayError):
            for _chunk in stream:
                pass
    (row,) = ledger.rows
    assert (row["status"], row["charged"], row["cost_source"]) == ("interrupted", None, "unknown")
