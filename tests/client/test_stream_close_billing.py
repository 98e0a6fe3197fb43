"""A stream closed early: the ledger never claims a certain zero the gateway contradicts (issue 14, defect 7)."""

from __future__ import annotations

import asyncio
import math
from typing import Any, Iterator

import pytest

import gatewaykit as gk

from .own_gateway import OWN_ADMIN, one_account, settled_balance

KEY = "sk-bf-test-streamclose-000000000008"


@pytest.fixture(scope="module")
def gateway() -> Iterator[Any]:
    with gk.emulator.start(accounts=one_account("streams", KEY), time_scale=0, admin_token=OWN_ADMIN) as running:
        yield running


def _agrees_with(rows: list[dict[str, Any]], change: float) -> bool:
    """Rows certain to be charged add up to at most the balance change; any rest is owned by rows marked unknown."""
    certain = math.fsum(row["total_cost"] for row in rows if row["charged"] is True)
    unknown = [row for row in rows if row["charged"] is None]
    if certain > change + 1e-9:
        return False
    return math.isclose(certain, change, abs_tol=1e-9) or bool(unknown)


class NoPrices:
    """A user's price source that prices nothing: a stopped stream's cost cannot be estimated."""

    def estimate(self, *args: Any, **kwargs: Any) -> None:
        return None

    def estimate_request(self, *args: Any, **kwargs: Any) -> None:
        return None


def test_break_then_close_is_not_a_certain_zero(gateway: Any) -> None:
    """break + close() on a fast gateway, nothing to price it with: the row is 'unknown' (charged None),
    consistent with the balance."""
    ledger = gk.Ledger(path=None, prices=NoPrices())
    before = settled_balance(gateway.base_url, "streams")
    with gk.Client(api_key=KEY, base_url=gateway.base_url, ledger=ledger) as client:
        stream = client.chat.completions.create(
            model="chat-mini", messages=[{"role": "user", "content": "tell me a long story"}], stream=True
        )
        for _chunk in stream:
            break
        stream.close()
    change = before - settled_balance(gateway.base_url, "streams")
    (row,) = ledger.rows
    assert change > 0, "the fast gateway is expected to have charged the whole stream"
    assert (row["status"], row["charged"], row["cost_source"]) == ("interrupted", None, "unknown")
    assert _agrees_with(ledger.rows, change) and "unknown" in row["note"]


def test_async_close_is_not_a_certain_zero(gateway: Any) -> None:
    """The async client: aclose() after one chunk leaves a row estimated from the catalog's price (read for the
    Stop, issue 31 item 2): charged, never more than the gateway took, never a certain zero."""
    ledger = gk.Ledger(path=None)
    before = settled_balance(gateway.base_url, "streams")

    async def run() -> None:
        async with gk.AsyncClient(api_key=KEY, base_url=gateway.base_url, ledger=ledger) as client:
            stream = await client.chat.completions.create(
                model="chat-mini", messages=[{"role": "user", "content": "a long poem"}], stream=True
            )
            async for _chunk in stream:
                break
            await stream.aclose()

    asyncio.run(run())
    change = before - settled_balance(gateway.base_url, "streams")
    (row,) = ledger.rows
    assert (row["charged"], row["cost_source"]) == (True, "estimated") and 0 < row["total_cost"] <= change


def test_unknown_rows_show_in_the_views(gateway: Any) -> None:
    """to_pandas keeps the unknown charge as <NA>, and summary counts it apart from not-charged rows."""
    ledger = gk.Ledger(path=None, prices=NoPrices())
    with gk.Client(api_key=KEY, base_url=gateway.base_url, ledger=ledger) as client:
        stream = client.chat.completions.create(model="chat-mini", messages=[{"role": "user", "content": "hi"}], stream=True)
        next(iter(stream))
        stream.close()
    frame = ledger.to_pandas()
    summary = ledger.summary().iloc[0]
    assert frame["charged"].isna().tolist() == [True]
    assert (summary["charge_unknown"], summary["not_charged"], summary["charged"]) == (1, 0, 0)


def test_unknown_charge_survives_the_database(gateway: Any, tmp_path: Any) -> None:
    """A SQLite ledger re-read by another Ledger keeps charged None (not False)."""
    path = tmp_path / "ledger.sqlite"
    with gk.Client(api_key=KEY, base_url=gateway.base_url, ledger=gk.Ledger(path=path)) as client:
        stream = client.chat.completions.create(model="chat-mini", messages=[{"role": "user", "content": "hi"}], stream=True)
        next(iter(stream))
        stream.close()
    assert [row["charged"] for row in gk.Ledger(path=path).rows] == [None]
