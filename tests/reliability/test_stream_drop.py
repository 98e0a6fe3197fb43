"""A stream dropped mid-way: a clear StreamInterruptedError with the partial text, never charged."""

from __future__ import annotations

import asyncio
from typing import Any, Iterator

import pytest
from reliability_gateways import RELIABILITY_ADMIN, account_balance, one_account

import gatewaykit as gk
from gatewaykit.notebook.chat_views.live import render_async_stream, render_stream
from gatewaykit.notebook.cell_output.sinks import CapturingSink

KEY = "sk-bf-stream-drop-000000000000001"
ESSAY = [{"role": "user", "content": "Write a long paragraph about the history of lighthouses."}]
DROP = {"X-Emulator-Fault": "stream-drop"}


@pytest.fixture(scope="module")
def gateway() -> Iterator[Any]:
    with gk.emulator.start(accounts=one_account("drops", KEY), time_scale=0, admin_token=RELIABILITY_ADMIN) as running:
        yield running


def _client(gateway: Any, ledger: gk.Ledger, cls: Any = gk.Client) -> Any:
    return cls(api_key=KEY, base_url=gateway.base_url, ledger=ledger)


def test_dropped_stream_raises_a_clear_error_with_the_partial_text(gateway):
    """StreamInterruptedError says the stream broke off and carries the text received so far."""
    with _client(gateway, gk.Ledger()) as client:
        stream = client.chat.completions.create(model="chat-mini", messages=ESSAY, stream=True, extra_headers=DROP)
        with pytest.raises(gk.StreamInterruptedError, match="broke off before its end") as caught:
            stream.final()
    assert caught.value.partial.choices[0].message.content
    assert stream.completion.choices[0].message.content == caught.value.partial.choices[0].message.content


def test_dropped_stream_is_not_charged_and_the_ledger_says_so(gateway):
    """The gateway charges nothing; the ledger row is 'interrupted', charge unknown (None), counting nothing."""
    ledger = gk.Ledger()
    before = account_balance(gateway.base_url, "drops")
    with _client(gateway, ledger) as client, pytest.raises(gk.StreamInterruptedError):
        client.chat.completions.create(model="chat-mini", messages=ESSAY, stream=True, extra_headers=DROP).final()
    assert account_balance(gateway.base_url, "drops") == before
    (row,) = ledger.rows
    assert (row["status"], row["charged"], row["total_cost"]) == ("interrupted", None, None)
    assert ledger.total_cost == 0.0


def test_completed_stream_is_charged_exactly_what_it_reports(gateway):
    """The control: a stream that completes is charged its reported cost."""
    ledger = gk.Ledger()
    before = account_balance(gateway.base_url, "drops")
    with _client(gateway, ledger) as client:
        client.chat.completions.create(model="chat-mini", messages=ESSAY, stream=True).final()
    assert abs((before - account_balance(gateway.base_url, "drops")) - ledger.reported_cost) <= 1e-9
    assert ledger.reported_cost > 0


def test_live_display_keeps_the_partial_text_of_a_dropped_stream(gateway):
    """The live renderer's last output shows the partial answer and says the stream was interrupted."""
    sink = CapturingSink()
    with _client(gateway, gk.Ledger()) as client:
        stream = client.chat.completions.create(model="chat-mini", messages=ESSAY, stream=True, extra_headers=DROP)
        with pytest.raises(gk.StreamInterruptedError):
            render_stream(stream, sink=sink)
    partial = stream.completion.choices[0].message.content
    last = sink.last
    assert "stream interrupted" in last["text/plain"] and partial.split()[0] in last["text/plain"]
    assert "stream interrupted" in last["text/html"]


def test_async_dropped_stream_keeps_partial_text_and_is_not_charged(gateway):
    """The same through AsyncClient and the async live renderer."""
    ledger = gk.Ledger()
    sink = CapturingSink()
    before = account_balance(gateway.base_url, "drops")

    async def main() -> Any:
        async with _client(gateway, ledger, gk.AsyncClient) as client:
            stream = await client.chat.completions.create(model="chat-mini", messages=ESSAY, stream=True,
                                                          extra_headers=DROP)
            with pytest.raises(gk.StreamInterruptedError) as caught:
                await render_async_stream(stream, sink=sink)
            return caught.value

    error = asyncio.run(main())
    assert error.partial.choices[0].message.content and "stream interrupted" in sink.last["text/plain"]
    assert account_balance(gateway.base_url, "drops") == before and ledger.rows[0]["status"] == "interrupted"
