"""Jobs priced from the gateway's catalog: on the offline gateway the estimate equals what was charged.

The ledger's total, estimates included, equals the account's balance change read
from the admin endpoint (``GET /_emulator/accounts``), for videos at every
resolution, several durations, with and without audio, image-to-video, and music.
"""

from __future__ import annotations

import io
from typing import Any, Iterator

import httpx
import pytest

import gatewaykit as gk

ADMIN = "estimates-admin-token"
KEY = "sk-bf-estimates-000000000000000001"
LYRICS = "[Verse]\nthe ledger hums along\n[Chorus]\nevery cent in place\n"


@pytest.fixture(scope="module")
def gateway() -> Iterator[Any]:
    """A gateway with no simulated delays and one account these tests alone use."""
    accounts = {"accounts": [{"id": "estimates", "balance_usd": 40.0,
                              "rate_limit": {"requests": 100_000, "per_seconds": 60},
                              "keys": [{"key": KEY, "status": "active", "models": "*"}]}]}  # fmt: skip
    with gk.emulator.start(accounts=accounts, time_scale=0, seed=0, admin_token=ADMIN) as running:
        yield running


def _balance(gateway: Any) -> float:
    answer = httpx.get(f"{gateway.base_url}/_emulator/accounts", headers={"Authorization": f"Bearer {ADMIN}"})
    answer.raise_for_status()
    return next(a["balance_usd"] for a in answer.json()["accounts"] if a["id"] == "estimates")


def _png() -> bytes:
    from PIL import Image

    buffer = io.BytesIO()
    Image.new("RGB", (64, 36), (30, 90, 200)).save(buffer, format="PNG")
    return buffer.getvalue()


@pytest.mark.slow
def test_catalog_estimates_equal_the_balance_change(gateway: Any) -> None:
    """Videos (resolutions, durations, audio, image-to-video) and a song: ledger total == balance change."""
    ledger = gk.Ledger(path=None)
    before = _balance(gateway)
    with gk.Client(api_key=KEY, base_url=gateway.base_url, ledger=ledger, display=False) as client:
        jobs = [
            client.videos.create(model="video-tiers", prompt="dunes", resolution="480p", duration=4),
            client.videos.create(model="video-tiers", prompt="harbour", resolution="720p", duration=6,
                                 generate_audio=True),
            client.videos.create(model="video-tiers", prompt="city", resolution="1080p", duration=8),
            client.videos.create(model="video-tiers", prompt="the same, moving", input_reference=_png()),
            client.videos.create(model="video-range", prompt="rain", duration=3, generate_audio=False),
            client.videos.create(model="video-range", prompt="snow"),  # the model's defaults: 5 s with audio
            client.music.create(model="music-song", prompt="folk", lyrics_prompt=LYRICS),
        ]
        for job in jobs:
            job.wait(timeout=120)
    change = before - _balance(gateway)
    rows = ledger.rows
    assert [row["cost_source"] for row in rows] == ["estimated"] * len(jobs)
    assert abs(ledger.total_cost - change) <= 1e-9 and change > 0


def test_without_a_price_source_jobs_stay_not_reported(gateway: Any) -> None:
    """No price table and no catalog read (validate=False): the row says 'not reported', totals leave it out."""
    ledger = gk.Ledger(path=None)
    with gk.Client(api_key=KEY, base_url=gateway.base_url, ledger=ledger, display=False, validate=False) as client:
        client.music.create(model="music-song", prompt="folk", lyrics_prompt=LYRICS).wait(timeout=120)
    assert ledger.rows[0]["cost_source"] == "not reported" and ledger.total_cost == 0.0


def test_the_users_table_wins_over_the_catalog(gateway: Any) -> None:
    """A model the price table prices is estimated from the table, not the catalog."""
    ledger = gk.Ledger(path=None, prices={"music-song": {"per_song": 0.5}})
    with gk.Client(api_key=KEY, base_url=gateway.base_url, ledger=ledger, display=False) as client:
        client.music.create(model="music-song", prompt="folk", lyrics_prompt=LYRICS).wait(timeout=120)
        assert client.music.quote(model="music-song", prompt="folk", lyrics_prompt=LYRICS).source == "price table"
    assert ledger.rows[0]["total_cost"] == 0.5
