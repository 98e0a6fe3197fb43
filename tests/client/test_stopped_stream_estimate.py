"""A stopped answer is estimated and counted, not left 'unknown (not counted)' (issue 31, item 2), even when the
script never listed the models (the Stop reads the catalog's price)."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
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


def test_a_stopped_stream_with_a_picture_counts_it_as_a_picture_not_its_base64(emulator: Any, keys: Any) -> None:
    """A vision chat stopped early: its prompt is estimated as the quote counts it (a picture is 765 tokens),
    not from the length of the picture's base64 (400 KB of it read as 100,000 tokens)."""
    import base64
    import io

    from PIL import Image

    picture = io.BytesIO()
    Image.effect_noise((512, 512), 64).convert("RGB").save(picture, format="PNG")  # noise: a large PNG
    uri = "data:image/png;base64," + base64.b64encode(picture.getvalue()).decode()
    assert len(uri) > 200_000
    ledger = gk.Ledger(path=None)
    with gk.Client(api_key=keys.acme, base_url=emulator.base_url, ledger=ledger, display=False) as client:
        vision = client.models.pick("chat", needs=["vision"])
        stream = client.chat.completions.create(model=vision, stream=True, messages=[{"role": "user", "content": [
            {"type": "text", "text": "Describe this at length."}, {"type": "image_url", "image_url": {"url": uri}}]}])
        for count, _chunk in enumerate(stream):
            if count == 3:
                break
        stream.close()
    (row,) = ledger.rows
    assert row["cost_source"] == "estimated" and 765 < row["prompt_tokens"] < 900, row["prompt_tokens"]


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


# A script that never listed the models: the Stop reads the catalog's price itself.

MESSAGES = [{"role": "user", "content": "Tell me a long story about a lighthouse keeper."}]


class CountingTransport(httpx.HTTPTransport):
    """The real HTTP transport, keeping the path of every request it sends; ``refuse``: paths it cannot reach."""

    def __init__(self, refuse: tuple[str, ...] = ()) -> None:
        super().__init__()
        self.paths: list[str] = []
        self.refuse = refuse

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        self.paths.append(request.url.path)
        if request.url.path in self.refuse:
            raise httpx.ConnectError("connection refused", request=request)
        return super().handle_request(request)


def _stop_after_a_few_chunks(client: gk.Client) -> None:
    stream = client.chat.completions.create(model="chat-mini", messages=MESSAGES, stream=True)
    for number, _ in enumerate(stream):
        if number == 2:
            break
    stream.close()


def test_a_stopped_stream_is_estimated_from_the_catalogs_price(emulator: Any, keys: Any) -> None:
    """No models.list() anywhere: the Stop reads the catalog once, the row is estimated and counted."""
    ledger = gk.Ledger(path=None)
    counting = CountingTransport()
    with gk.Client(base_url=emulator.base_url, api_key=keys.acme, ledger=ledger, display=False,
                   http_transport=counting) as client:  # fmt: skip
        _stop_after_a_few_chunks(client)
        _stop_after_a_few_chunks(client)
    first, second = ledger.rows
    for row in (first, second):
        assert row["status"] == "interrupted" and row["cost_source"] == "estimated" and row["total_cost"] > 0
    assert ledger.total_cost == pytest.approx(first["total_cost"] + second["total_cost"])
    assert counting.paths.count("/v1/models") == 1  # cached for the client: the second Stop asks nothing


def test_the_estimate_counts_towards_the_budget(emulator: Any, keys: Any) -> None:
    ledger = gk.Ledger(path=None)
    with gk.Client(base_url=emulator.base_url, api_key=keys.acme, ledger=ledger, display=False) as client:
        _stop_after_a_few_chunks(client)
        ledger.budget = ledger.total_cost
        with pytest.raises(gk.BudgetExceededError) as refused:
            client.chat.completions.create(model="chat-mini", messages=MESSAGES)
    assert refused.value.spent == pytest.approx(ledger.rows[0]["total_cost"]) and refused.value.spent > 0


def test_an_async_stop_is_estimated_too(emulator: Any, keys: Any) -> None:
    ledger = gk.Ledger(path=None)

    async def main() -> None:
        async with gk.AsyncClient(base_url=emulator.base_url, api_key=keys.acme, ledger=ledger, display=False) as client:
            stream = await client.chat.completions.create(model="chat-mini", messages=MESSAGES, stream=True)
            async for _ in stream:
                break
            await stream.close()

    asyncio.run(main())
    (row,) = ledger.rows
    assert row["cost_source"] == "estimated" and row["total_cost"] > 0 and ledger.total_cost == row["total_cost"]


def test_a_catalog_that_cannot_be_read_leaves_the_stop_unknown(emulator: Any, keys: Any) -> None:
    """The models request fails: the row stays unknown (not counted), the Stop works, and it is not asked again."""
    ledger = gk.Ledger(path=None)
    counting = CountingTransport(refuse=("/v1/models",))
    with gk.Client(base_url=emulator.base_url, api_key=keys.acme, ledger=ledger, display=False,
                   http_transport=counting, max_retries=2) as client:  # fmt: skip
        _stop_after_a_few_chunks(client)
        _stop_after_a_few_chunks(client)
    assert [row["cost_source"] for row in ledger.rows] == ["unknown", "unknown"] and ledger.total_cost == 0
    assert counting.paths.count("/v1/models") == 1  # once, no retries, and not again for the second Stop


def test_a_cost_reported_before_the_stop_is_kept_and_no_catalog_is_read(emulator: Any, keys: Any) -> None:
    """The usage chunk (with its cost) arrived before the close: the reported cost stands, nothing is fetched."""
    ledger = gk.Ledger(path=None)
    counting = CountingTransport()
    with gk.Client(base_url=emulator.base_url, api_key=keys.acme, ledger=ledger, display=False,
                   http_transport=counting) as client:  # fmt: skip
        stream = client.chat.completions.create(model="chat-mini", messages=MESSAGES, stream=True)
        for chunk in stream:
            if chunk.usage is not None:
                break  # before [DONE]: the stream is still open, so this is a close by the caller
        stream.close()
    (row,) = ledger.rows
    assert row["status"] == "interrupted" and row["cost_source"] == "reported" and row["total_cost"] > 0
    assert "/v1/models" not in counting.paths


def test_a_cached_stream_stopped_early_costs_nothing_and_asks_nothing(emulator: Any, keys: Any) -> None:
    """Answered by the response cache: the Stop needs no price (the row costs $0), so no catalog is read."""
    ledger = gk.Ledger(path=None)
    counting = CountingTransport()
    with gk.Client(base_url=emulator.base_url, api_key=keys.acme, ledger=ledger, display=False,
                   http_transport=counting, cache=True) as client:  # fmt: skip
        client.chat.completions.create(model="chat-mini", messages=MESSAGES, stream=True).final()  # now cached
        assert "/v1/models" not in counting.paths
        _stop_after_a_few_chunks(client)
    assert ledger.rows[-1]["cost_source"] == "cached" and "/v1/models" not in counting.paths
