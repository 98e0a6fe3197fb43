"""Scale-out on an existing engine: a map on a Dask LocalCluster (processes), ledgers merged (issue 14)."""

from __future__ import annotations

import math
import sys
import time
from typing import Any, Iterator

import pytest

import gatewaykit as gk

from .own_gateway import OWN_ADMIN, one_account, settled_balance

KEY = "sk-bf-test-daskscale-00000000000011"
REQUESTS = 240
CHUNK = 20


def answer_chunk(client: gk.Client, prompts: list[str]) -> tuple[list[float], gk.Ledger]:
    """Runs in a Dask worker: the pickled client answers its prompts; its ledger comes back with the rows."""
    results = client.map(
        lambda prompt: client.chat.completions.create(
            model="chat-mini", messages=[{"role": "user", "content": prompt}]
        ).usage.cost.total_cost,
        prompts,
        concurrency=4,
    )
    client.close()
    return list(results.raise_first()), client.ledger


@pytest.fixture(scope="module")
def gateway() -> Iterator[Any]:
    with gk.emulator.start(accounts=one_account("dask", KEY, 1000.0), time_scale=0, admin_token=OWN_ADMIN) as running:
        yield running


@pytest.mark.slow
def test_dask_map_merged_ledger_equals_the_balance_change(gateway: Any) -> None:
    """240 chats on 2 worker processes x 2 threads; merged worker ledgers total exactly the gateway's balance change."""
    distributed = pytest.importorskip("distributed")
    import cloudpickle

    cloudpickle.register_pickle_by_value(sys.modules[__name__])  # workers cannot import the test module
    prompts = [f"Summarise item {i} in one line." for i in range(REQUESTS)]
    chunks = [prompts[i : i + CHUNK] for i in range(0, REQUESTS, CHUNK)]
    before = settled_balance(gateway.base_url, "dask")
    client = gk.Client(api_key=KEY, base_url=gateway.base_url, ledger=gk.Ledger(path=None), display=False)
    started = time.perf_counter()
    with distributed.LocalCluster(
        processes=True, n_workers=2, threads_per_worker=2, dashboard_address=None, silence_logs=50
    ) as cluster, distributed.Client(cluster) as dask:  # fmt: skip
        futures = dask.map(answer_chunk, [client] * len(chunks), chunks, pure=False)
        outcomes = dask.gather(futures)
    elapsed = time.perf_counter() - started
    merged = gk.Ledger.merged(ledger for _costs, ledger in outcomes)
    change = before - settled_balance(gateway.base_url, "dask")
    costs = [cost for chunk_costs, _ledger in outcomes for cost in chunk_costs]
    assert len(costs) == REQUESTS and len(merged) == REQUESTS
    assert math.isclose(merged.total_cost, change, abs_tol=1e-9)
    assert math.isclose(merged.total_cost, math.fsum(costs), abs_tol=1e-9)
    print(f"{REQUESTS} chats on a 2-process LocalCluster in {elapsed:.1f} s")
