"""The ledger against the real offline gateway: its reported total equals the
account's balance change, to 1e-9, for a mixed session through the client.

Each test uses its own account on gateways started for this module, so nothing
else in the suite moves the balances measured here: the mixed session runs at
time-scale 0.25 (a video job is still running when it is cancelled), the
concurrency and budget tests at time-scale 0.
"""

from __future__ import annotations

import asyncio
import io
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Iterator

import httpx
import pytest

import gatewaykit as gk

ADMIN = "ledger-admin-token"
ACCOUNTS = ("mixed", "threads", "tasks", "budget", "jobs")


def _key(account: str) -> str:
    return f"sk-bf-ledger-{account}-000000000000"


def _start(time_scale: float) -> Any:
    accounts = {
        "accounts": [
            {
                "id": name,
                "balance_usd": 40.0,
                "rate_limit": {"requests": 1_000_000, "per_seconds": 60},
                "keys": [{"key": _key(name), "status": "active", "models": "*"}],
            }
            for name in ACCOUNTS
        ]
    }
    return gk.emulator.start(accounts=accounts, time_scale=time_scale, seed=0, admin_token=ADMIN)


@pytest.fixture(scope="module")
def paced_gateway() -> Iterator[Any]:
    """A gateway with jobs slow enough to cancel, one well-funded account per test."""
    with _start(0.25) as running:
        yield running


@pytest.fixture(scope="module")
def gateway() -> Iterator[Any]:
    """A gateway with no simulated delays, one well-funded account per test."""
    with _start(0.0) as running:
        yield running


def _balance(gateway: Any, account: str) -> float:
    answer = httpx.get(f"{gateway.base_url}/_emulator/accounts", headers={"Authorization": f"Bearer {ADMIN}"})
    answer.raise_for_status()
    return next(a["balance_usd"] for a in answer.json()["accounts"] if a["id"] == account)


def _client(gateway: Any, account: str, ledger: gk.Ledger, cls: Any = gk.Client, **options: Any) -> Any:
    return cls(base_url=gateway.base_url, api_key=_key(account), ledger=ledger, max_retries=1, **options)


def _png() -> bytes:
    from PIL import Image

    buffer = io.BytesIO()
    Image.new("RGB", (64, 48), (200, 80, 40)).save(buffer, format="PNG")
    return buffer.getvalue()


HELLO = [{"role": "user", "content": "Say hello to the ledger."}]


@pytest.mark.slow
def test_mixed_session_reconciles_with_the_balance(paced_gateway):
    """Chats, streams, images, edits, 400s, 429s, failed and cancelled jobs: reported total == balance change."""
    ledger = gk.Ledger()
    before = _balance(paced_gateway, "mixed")
    with _client(paced_gateway, "mixed", ledger) as client:
        client.chat.completions.create(model="chat-mini", messages=HELLO)
        client.chat.completions.create(model="chat-reasoner", messages=HELLO, reasoning_effort="high")
        for model in ("chat-mini", "chat-reasoner"):
            with client.chat.completions.create(model=model, messages=HELLO, stream=True) as stream:
                for _ in stream:
                    pass
                stream.final()
        client.images.generate(model="image-pixels", prompt="a lighthouse at dusk", width=256, height=256)
        client.images.generate(model="image-gpt", prompt="two foxes", n=2, quality="low")
        client.images.edit(model="image-pixels", prompt="make it blue", image=[_png()])
        with pytest.raises(gk.BadRequestError):
            client.chat.completions.create(model="chat-mini", messages=HELLO, temperature=7, validate=False)
        with pytest.raises(gk.RateLimitError):
            client.chat.completions.create(model="chat-mini", messages=HELLO, extra_headers={"X-Emulator-Fault": "429"})
        with pytest.raises(gk.RateLimitError):
            client.images.generate(model="image-pixels", prompt="x", extra_headers={"X-Emulator-Fault": "429"})
        failing = client.videos.create(
            model="video-range", prompt="a storm", duration=2, extra_headers={"X-Emulator-Fault": "job-fail"}
        )
        cancelled = client.videos.create(model="video-tiers", prompt="a long parade", duration=8, resolution="1080p")
        cancelled.cancel()
        with pytest.raises(gk.JobFailedError):
            failing.wait(timeout=120)

    change = before - _balance(paced_gateway, "mixed")
    assert change > 0
    assert abs(ledger.reported_cost - change) <= 1e-9
    assert abs(ledger.total_cost - change) <= 1e-9

    kinds = [row["kind"] for row in ledger.rows]
    assert kinds.count("chat") == 4 and kinds.count("chat.stream") == 2
    assert kinds.count("image.generate") == 3 and kinds.count("image.edit") == 1 and kinds.count("video") == 2
    by_status: dict[str, list] = {}
    for row in ledger.rows:
        by_status.setdefault(row["status"], []).append(row)
    assert len(by_status["ok"]) == 7 and all(r["cost_source"] == "reported" for r in by_status["ok"])
    assert sorted(r["http_status"] for r in by_status["error"]) == [400, 429, 429]
    assert all(r["attempts"] == 2 for r in by_status["error"] if r["http_status"] == 429)
    assert [r["id"] for r in by_status["failed"]] == [failing.id]
    assert [r["id"] for r in by_status["cancelled"]] == [cancelled.id]
    assert all(r["offline"] for r in ledger.rows)
    assert all(r["total_cost"] == 0.0 for r in by_status["error"] + by_status["failed"] + by_status["cancelled"])


def test_thousand_threaded_requests_give_thousand_rows(gateway):
    """1,000 chats from 32 threads through one client: 1,000 rows, total == balance change."""
    ledger = gk.Ledger()
    before = _balance(gateway, "threads")
    with _client(gateway, "threads", ledger) as client, ThreadPoolExecutor(max_workers=32) as pool:
        list(pool.map(lambda i: client.chat.completions.create(model="chat-mini", messages=HELLO), range(1000)))
    assert len(ledger) == 1000 and len({row["id"] for row in ledger.rows}) == 1000
    assert abs(ledger.total_cost - (before - _balance(gateway, "threads"))) <= 1e-9


def test_thousand_asyncio_requests_give_thousand_rows(gateway):
    """1,000 concurrent chats on an AsyncClient: 1,000 rows, each tagged by its task, total == balance change."""
    ledger = gk.Ledger()
    before = _balance(gateway, "tasks")

    async def one(client: Any, i: int) -> None:
        with ledger.tag(f"task-{i % 4}"):
            await client.chat.completions.create(model="chat-mini", messages=HELLO)

    async def main() -> None:
        semaphore = asyncio.Semaphore(100)
        async with _client(gateway, "tasks", ledger, gk.AsyncClient) as client:

            async def limited(i: int) -> None:
                async with semaphore:
                    await one(client, i)

            await asyncio.gather(*(limited(i) for i in range(1000)))

    asyncio.run(main())
    assert len(ledger) == 1000
    assert sorted(ledger.summary(by="tag").requests.tolist()) == [250, 250, 250, 250]
    assert abs(ledger.total_cost - (before - _balance(gateway, "tasks"))) <= 1e-9


def test_budget_blocks_without_sending(gateway):
    """Past its budget the ledger stops the request: BudgetExceededError, balance unchanged, no row."""
    ledger = gk.Ledger(budget=1e-9)
    with _client(gateway, "budget", ledger) as client:
        with pytest.warns(gk.costs.BudgetWarning):
            client.chat.completions.create(model="chat-mini", messages=HELLO)
        before = _balance(gateway, "budget")
        with pytest.raises(gk.BudgetExceededError):
            client.chat.completions.create(model="chat-mini", messages=HELLO)
        with pytest.raises(gk.BudgetExceededError):
            client.videos.create(model="video-tiers", prompt="x", duration=4)
    assert _balance(gateway, "budget") == before and len(ledger) == 1


def test_completed_jobs_are_estimated_from_a_price_table(gateway):
    """Completed jobs bill with no amount; a price table matching the catalog estimates the balance change."""
    prices = {
        "music-song": {"per_song": 0.06},
        "video-range": {"per_second": 0.08, "per_second_audio": 0.12},
    }
    ledger = gk.Ledger(prices=prices)
    unpriced = gk.Ledger()
    before = _balance(gateway, "jobs")
    with _client(gateway, "jobs", ledger) as client:
        song = client.music.create(model="music-song", prompt="folk", lyrics_prompt="[Verse]\nla la la, the ledger sings\n")
        video = client.videos.create(model="video-range", prompt="rain", duration=3, generate_audio=False)
        song.wait(timeout=120)
        video.wait(timeout=120)
    with _client(gateway, "jobs", unpriced, validate=False) as client:  # no catalog read: no price source
        client.videos.create(model="video-range", prompt="snow", duration=2, generate_audio=True).wait(timeout=120)
    change = before - _balance(gateway, "jobs")
    rows = ledger.rows
    assert [(r["status"], r["cost_source"]) for r in rows] == [("completed", "estimated")] * 2
    assert rows[1]["seconds"] == 3.0 and ledger.reported_cost == 0.0
    assert unpriced.rows[0]["cost_source"] == "not reported" and unpriced.total_cost == 0.0
    assert abs(ledger.total_cost + 2 * 0.12 - change) <= 1e-9
