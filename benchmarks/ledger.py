"""Ledger benchmark: how fast rows are recorded and turned into a DataFrame.

    .venv/bin/python benchmarks/ledger.py [--rows 100000]

Prints the time to record N chat rows (target < 1 s for 100,000), the time of
``to_pandas()`` on them (target < 0.5 s), memory per row (tracemalloc, rows
kept by the ledger), and the persisted write rate with and without fsync.
"""

from __future__ import annotations

import argparse
import gc
import tempfile
import time
import tracemalloc
from pathlib import Path

from gatewaykit.costs import CostRecord, Ledger

MODELS = ("chat-mini", "chat-reasoner", "chat-vision")


def make_records(count: int) -> list[CostRecord]:
    records = []
    for i in range(count):
        usage = {
            "prompt_tokens": 100 + i % 50,
            "completion_tokens": 40 + i % 30,
            "total_tokens": 140 + i % 80,
            "prompt_tokens_details": {"cached_tokens": i % 10},
            "completion_tokens_details": {"reasoning_tokens": i % 20},
            "cost": {"total_cost": 0.000123 * (1 + i % 7), "input_tokens_cost": 0.00005, "output_tokens_cost": 0.00007},
        }
        records.append(
            CostRecord("chat", MODELS[i % 3], "ok", id=f"chatcmpl-{i}", time=1.7e9 + i, usage=usage, latency=0.2)
        )
    return records


def bench_record(records: list[CostRecord]) -> tuple[Ledger, float]:
    ledger = Ledger()
    gc.collect()
    start = time.perf_counter()
    for record in records:
        ledger.record(record)
    return ledger, time.perf_counter() - start


def bench_memory(records: list[CostRecord]) -> float:
    ledger = Ledger()
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    for record in records:
        ledger.record(record)
    after = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    return (after - before) / len(records)


def bench_persist(count: int, fsync: bool) -> float:
    records = make_records(count)
    with tempfile.TemporaryDirectory() as folder:
        ledger = Ledger(path=Path(folder) / "costs.jsonl", fsync=fsync)
        start = time.perf_counter()
        for record in records:
            ledger.record(record)
        elapsed = time.perf_counter() - start
        start = time.perf_counter()
        reloaded = Ledger(path=Path(folder) / "costs.jsonl")
        reload_time = time.perf_counter() - start
        assert len(reloaded) == count
    print(f"  reload of {count:,} persisted rows: {reload_time:.3f} s")
    return count / elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100_000)
    args = parser.parse_args()
    records = make_records(args.rows)

    ledger, record_time = bench_record(records)
    print(f"record(): {args.rows:,} rows in {record_time:.3f} s ({record_time / args.rows * 1e6:.2f} us/row; target < 1 s)")

    import pandas  # noqa: F401  (import cost is not the DataFrame's)

    start = time.perf_counter()
    frame = ledger.to_pandas()
    frame_time = time.perf_counter() - start
    print(f"to_pandas(): {len(frame):,} rows x {len(frame.columns)} columns in {frame_time:.3f} s (target < 0.5 s)")
    start = time.perf_counter()
    ledger.summary()
    print(f"summary(): {time.perf_counter() - start:.3f} s")
    start = time.perf_counter()
    ledger._repr_mimebundle_()
    print(f"notebook display: {time.perf_counter() - start:.3f} s")

    per_row = bench_memory(records)
    print(f"memory: {per_row:.0f} bytes per row (tracemalloc, rows held by the ledger)")

    for fsync in (False, True):
        count = 20_000 if not fsync else 2_000
        rate = bench_persist(count, fsync)
        print(f"persisted record() with fsync={fsync}: {rate:,.0f} rows/s ({count:,} rows)")


if __name__ == "__main__":
    main()
