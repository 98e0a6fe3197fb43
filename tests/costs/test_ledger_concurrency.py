"""Exactly one row per record() under threads and asyncio."""

from __future__ import annotations

import asyncio
import math
from concurrent.futures import ThreadPoolExecutor

from gatewaykit.costs import CostRecord, Ledger


def _record(ledger: Ledger, i: int) -> None:
    usage = {"prompt_tokens": 1, "cost": {"total_cost": 0.001 * (i % 7)}}
    ledger.record(CostRecord("chat", "chat-mini", "ok", id=f"chat-{i}", usage=usage))


def test_thousand_threads_record_thousand_rows():
    """1,000 records from 64 threads give 1,000 distinct rows and the exact total."""
    ledger = Ledger()
    with ThreadPoolExecutor(max_workers=64) as pool:
        list(pool.map(lambda i: _record(ledger, i), range(1000)))
    assert len(ledger) == 1000
    assert len({row["id"] for row in ledger.rows}) == 1000
    assert ledger.total_cost == math.fsum(0.001 * (i % 7) for i in range(1000))


def test_thousand_tasks_record_thousand_rows():
    """1,000 asyncio tasks recording concurrently give 1,000 rows."""
    ledger = Ledger()

    async def one(i: int) -> None:
        await asyncio.sleep(0)
        _record(ledger, i)

    async def main() -> None:
        await asyncio.gather(*(one(i) for i in range(1000)))

    asyncio.run(main())
    assert len(ledger) == 1000 and len({row["id"] for row in ledger.rows}) == 1000


def test_concurrent_job_updates_bill_once():
    """Many threads reporting the same completions charge each job exactly once."""
    ledger = Ledger(prices={"video-tiers": {"per_second": 0.1}})
    for i in range(50):
        ledger.record(CostRecord("video", "video-tiers", "queued", id=f"video_{i}"))
    with ThreadPoolExecutor(max_workers=16) as pool:
        list(pool.map(lambda k: ledger.update_job(f"video_{k % 50}", status="completed", seconds=2), range(1000)))
    assert ledger.total_cost == math.fsum([0.2] * 50)
    assert all(row["status"] == "completed" for row in ledger.rows)


def test_persisting_threads_write_every_row(tmp_path):
    """Threads recording into a persisted ledger leave one line per row."""
    path = tmp_path / "costs.jsonl"
    ledger = Ledger(path=path, fsync=False)
    with ThreadPoolExecutor(max_workers=16) as pool:
        list(pool.map(lambda i: _record(ledger, i), range(300)))
    assert len(path.read_text().splitlines()) == 300
    assert Ledger(path=path).rows == ledger.rows
