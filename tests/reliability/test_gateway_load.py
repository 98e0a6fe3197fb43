"""The gateway under load: 32 concurrent clients for a bounded time, then retention frees what finished.

GATEWAYKIT_LOAD_SECONDS sets the time (default 8 s). Throughput and memory are
printed; ``benchmarks/gateway_load.py`` runs it longer.
"""

from __future__ import annotations

import os
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Iterator

import httpx
import pytest
from reliability_gateways import RELIABILITY_ADMIN, account_balance, admin_json, one_account
from soak_workload import CATALOG_PRICES, LYRICS

import gatewaykit as gk

KEY = "sk-bf-load-account-00000000000001"
OTHER_KEY = "sk-bf-load-other-000000000000002"
SECONDS = float(os.environ.get("GATEWAYKIT_LOAD_SECONDS", "8"))
CLIENTS = 32
RETENTION = 1.0
HELLO = [{"role": "user", "content": "One sentence about harbours."}]


def rss_mb() -> float:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


@dataclass
class LoadRun:
    answered: Counter = field(default_factory=Counter)
    failures: list[str] = field(default_factory=list)
    job_ids: list[tuple[str, str]] = field(default_factory=list)
    elapsed: float = 0.0
    balance_change: float = 0.0
    rss_before: float = 0.0
    rss_after: float = 0.0
    stats_after_load: dict[str, Any] = field(default_factory=dict)
    stats_after_retention: dict[str, Any] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)


def _worker(base_url: str, number: int, deadline: float, ledger: gk.Ledger, run: LoadRun) -> None:
    with gk.Client(api_key=KEY, base_url=base_url, ledger=ledger, max_retries=0) as client:
        step = number
        while time.monotonic() < deadline:
            kind = ("chat", "stream", "chat", "image", "stream", "video", "chat", "music")[step % 8]
            try:
                if kind == "chat":
                    client.chat.completions.create(model="chat-mini", messages=HELLO)
                elif kind == "stream":
                    client.chat.completions.create(model="chat-mini", messages=HELLO, stream=True).final()
                elif kind == "image":
                    client.images.generate(model="image-pixels", prompt="a harbour", width=256, height=256, seed=1)
                elif kind == "video":
                    job = client.videos.create(model="video-range", prompt="boats", duration=2,
                                               generate_audio=False, seed=1).wait(timeout=60, poll_interval=0.02)
                    with run.lock:
                        run.job_ids.append(("video", job.id))
                else:
                    job = client.music.create(model="music-song", prompt="sea shanty", lyrics_prompt=LYRICS,
                                              ).wait(timeout=60, poll_interval=0.02)
                    with run.lock:
                        run.job_ids.append(("music", job.id))
                with run.lock:
                    run.answered[kind] += 1
            except Exception as exc:  # noqa: BLE001 - under load without faults, nothing may fail
                with run.lock:
                    run.failures.append(f"{kind}: {type(exc).__name__}: {exc}")
            step += 1


@pytest.fixture(scope="module")
def load() -> Iterator[tuple[LoadRun, Any, gk.Ledger]]:
    accounts = one_account("load", KEY, balance=10_000.0)
    accounts["accounts"].append(one_account("other", OTHER_KEY)["accounts"][0])
    with gk.emulator.start(accounts=accounts, time_scale=0, admin_token=RELIABILITY_ADMIN,
                           retention_seconds=RETENTION) as gateway:
        run, ledger = LoadRun(), gk.Ledger(prices=CATALOG_PRICES)
        run.rss_before = rss_mb()
        before = account_balance(gateway.base_url, "load")
        began = time.monotonic()
        threads = [threading.Thread(target=_worker, args=(gateway.base_url, n, began + SECONDS, ledger, run))
                   for n in range(CLIENTS)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        run.elapsed = time.monotonic() - began
        run.balance_change = before - account_balance(gateway.base_url, "load")
        run.rss_after = rss_mb()
        run.stats_after_load = admin_json(gateway.base_url, "/_emulator/stats")
        time.sleep(RETENTION + 1.1)  # past retention and the sweep interval
        yield run, gateway, ledger


def test_every_request_under_load_is_answered(load):
    """32 clients for the whole time: every request answered, none failed."""
    run, _, _ = load
    total = sum(run.answered.values())
    print(f"\nload: {CLIENTS} clients, {total} requests in {run.elapsed:.1f} s = {total / run.elapsed:.0f}/s "
          f"{dict(run.answered)}; RSS {run.rss_before:.0f} -> {run.rss_after:.0f} MB; "
          f"retained after load {run.stats_after_load['jobs_retained']} jobs, "
          f"{run.stats_after_load['media_bytes_retained'] / 1e6:.1f} MB")
    assert run.failures == []
    assert total >= CLIENTS and set(run.answered) == {"chat", "stream", "image", "video", "music"}


def test_balance_change_under_load_is_exact(load):
    """The ledger (reported + catalog-priced jobs) equals the balance change to 1e-9."""
    run, _, ledger = load
    assert abs(ledger.total_cost - run.balance_change) <= 1e-9


def test_finished_jobs_and_media_expire_after_retention(load):
    """After the retention time, finished jobs answer *_not_found and retained media drops to zero."""
    run, gateway, _ = load
    headers = {"Authorization": f"Bearer {KEY}"}
    for kind, job_id in (run.job_ids[0], run.job_ids[-1]):
        path = f"/v1/videos/{job_id}" if kind == "video" else f"/v1/audio/generations/{job_id}"
        answer = httpx.get(gateway.base_url + path, headers=headers)
        assert answer.status_code == 404
        assert answer.json()["error"]["code"] == ("video_not_found" if kind == "video" else "audio_not_found")
    stats = admin_json(gateway.base_url, "/_emulator/stats")
    assert run.stats_after_load["jobs_retained"] > 0
    assert stats["jobs_retained"] == 0 and stats["media_bytes_retained"] == 0


def test_memory_stays_bounded_under_load(load):
    """The process grows by less than 200 MB over the run (media is cached by content and expires)."""
    run, _, _ = load
    assert run.rss_after - run.rss_before < 200
