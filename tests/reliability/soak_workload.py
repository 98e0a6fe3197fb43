"""The soak workload: mixed requests through gk.Client / gk.AsyncClient against a faulty gateway.

Used by ``test_soak.py`` (CI size) and ``benchmarks/soak.py`` (the long setting).
Every operation either succeeds (after retries) or raises its typed
:class:`gatewaykit.GatewayError` subclass; anything else, or a job whose end was
never seen, is a *loss*. Jobs are waited to their end so the ledger can price
them from :data:`CATALOG_PRICES` (the catalog's rates) and reconcile exactly.
"""

from __future__ import annotations

import asyncio
import io
import os
import random
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Callable

import httpx

import gatewaykit as gk

ADMIN_TOKEN = "soak-admin-token"
SOAK_KEY = "sk-bf-soak-account-00000000000001"
#: The offline catalog's job prices, as a ledger price table (completed jobs report no cost).
CATALOG_PRICES = {
    "video-tiers": {"per_second": {"480p": 0.05, "720p": 0.1, "1080p": 0.25},
                    "per_second_audio": {"480p": 0.08, "720p": 0.16, "1080p": 0.4}},
    "video-range": {"per_second": 0.08, "per_second_audio": 0.12},
    "music-song": {"per_song": 0.06},
}
FAULT_KINDS = ("429", "500", "503", "disconnect", "stream-drop", "slow")
HELLO = [{"role": "user", "content": "Tell me about lighthouses in two sentences."}]
LYRICS = "[Verse]\nthe keeper lights the lamp at night\n[Chorus]\nshine, shine\n"


def soak_accounts(balance: float = 500.0) -> dict[str, Any]:
    return {"accounts": [{"id": "soak", "balance_usd": balance,
                          "rate_limit": {"requests": 10_000_000, "per_seconds": 60},
                          "keys": [{"key": SOAK_KEY, "status": "active", "models": "*"}]}]}


def start_faulty_gateway(fault_rate: float = 0.2, seed: int = 7) -> Any:
    """A gateway at time-scale 0 that injects ``fault_rate`` random faults (slow = 20 ms)."""
    return gk.emulator.start(accounts=soak_accounts(), time_scale=0, seed=seed, admin_token=ADMIN_TOKEN,
                             fault_rate=fault_rate, fault_kinds=FAULT_KINDS, slow_seconds=0.02)


def admin_get(base_url: str, path: str) -> dict[str, Any]:
    answer = httpx.get(base_url + path, headers={"Authorization": f"Bearer {ADMIN_TOKEN}"}, timeout=30)
    answer.raise_for_status()
    return answer.json()


def balance(base_url: str) -> float:
    return next(a["balance_usd"] for a in admin_get(base_url, "/_emulator/accounts")["accounts"] if a["id"] == "soak")


def open_fds() -> int:
    return len(os.listdir("/proc/self/fd"))


def tiny_png() -> bytes:
    from PIL import Image

    buffer = io.BytesIO()
    Image.new("RGB", (32, 24), (30, 90, 200)).save(buffer, format="PNG")
    return buffer.getvalue()


class CountingTransport(httpx.BaseTransport):
    """Counts every HTTP request the client really sends (first tries and retries)."""

    def __init__(self) -> None:
        self.inner = httpx.HTTPTransport()
        self.sent = 0
        self._lock = threading.Lock()

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        with self._lock:
            self.sent += 1
        return self.inner.handle_request(request)

    def close(self) -> None:
        self.inner.close()


@dataclass
class SoakReport:
    operations: int = 0
    succeeded: int = 0
    typed_errors: Counter = field(default_factory=Counter)
    losses: list[str] = field(default_factory=list)
    interrupted_streams: int = 0
    partial_texts_kept: int = 0
    jobs_created: int = 0
    jobs_unfinished: list[str] = field(default_factory=list)
    http_requests: int = 0
    billable_retries: int = 0
    elapsed: float = 0.0
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def ok(self) -> None:
        with self._lock:
            self.succeeded += 1

    def typed(self, exc: gk.GatewayError) -> None:
        with self._lock:
            self.typed_errors[type(exc).__name__] += 1
            if isinstance(exc, gk.StreamInterruptedError):
                self.interrupted_streams += 1

    def lost(self, what: str) -> None:
        with self._lock:
            self.losses.append(what)


def _policy() -> Any:
    # Generous retries with short backoff: an injected 429 still waits its Retry-After (1 s).
    return gk.RetryPolicy(max_retries=6, backoff_base=0.005, backoff_cap=0.05)


def _finish_job(client: Any, job: Any, report: SoakReport) -> None:
    """Wait for the job's end; a poll that fails for good is retried later (the job lives on)."""
    for _ in range(50):
        try:
            job.wait(timeout=60, poll_interval=0.01)
            return
        except gk.JobFailedError:
            return
        except gk.GatewayError:
            time.sleep(0.05)
    report.jobs_unfinished.append(job.id)


def _operations(png: bytes) -> list[tuple[str, int, Callable[[Any, int, SoakReport], None]]]:
    def chat(client: Any, i: int, report: SoakReport) -> None:
        client.chat.completions.create(model="chat-mini", messages=HELLO, seed=i % 5)

    def stream(client: Any, i: int, report: SoakReport) -> None:
        model = "chat-reasoner" if i % 3 == 0 else "chat-mini"
        try:
            with client.chat.completions.create(model=model, messages=HELLO, stream=True) as chunks:
                chunks.final()
        except gk.StreamInterruptedError as exc:
            if exc.partial is not None and exc.partial.choices and exc.partial.choices[0].message.content:
                with report._lock:
                    report.partial_texts_kept += 1
            raise

    def image(client: Any, i: int, report: SoakReport) -> None:
        client.images.generate(model="image-pixels", prompt="a lighthouse", width=256, height=256, seed=i % 3,
                               stream=(i % 4 == 0))

    def edit(client: Any, i: int, report: SoakReport) -> None:
        client.images.edit(model="image-pixels", prompt="make it blue", image=[png], width=256, height=256, seed=1)

    def video(client: Any, i: int, report: SoakReport) -> None:
        if i % 2:
            job = client.videos.create(model="video-range", prompt="rain on a window", duration=2,
                                       generate_audio=False, seed=3)
        else:
            job = client.videos.create(model="video-tiers", prompt="waves", duration=4, resolution="480p",
                                       generate_audio=False, seed=3)
        with report._lock:
            report.jobs_created += 1
        _finish_job(client, job, report)

    def music(client: Any, i: int, report: SoakReport) -> None:
        job = client.music.create(model="music-song", prompt="folk", lyrics_prompt=LYRICS)
        with report._lock:
            report.jobs_created += 1
        _finish_job(client, job, report)

    return [("chat", 30, chat), ("stream", 25, stream), ("image", 15, image), ("edit", 10, edit),
            ("video", 10, video), ("music", 10, music)]


def _run_one(operation: Callable[..., None], name: str, client: Any, i: int, report: SoakReport) -> None:
    try:
        operation(client, i, report)
        report.ok()
    except gk.GatewayError as exc:
        report.typed(exc)
    except Exception as exc:  # noqa: BLE001 - anything untyped is a loss
        report.lost(f"{name} #{i}: {type(exc).__name__}: {exc}")


async def _run_async_share(base_url: str, ledger: gk.Ledger, count: int, report: SoakReport, seed: int) -> None:
    """A share of plain and streamed chats through an AsyncClient."""
    rng = random.Random(seed)

    async def one(client: Any, i: int) -> None:
        try:
            if rng.random() < 0.5:
                await client.chat.completions.create(model="chat-mini", messages=HELLO)
            else:
                stream = await client.chat.completions.create(model="chat-mini", messages=HELLO, stream=True)
                async with stream:
                    await stream.final()
            report.ok()
        except gk.GatewayError as exc:
            report.typed(exc)
        except Exception as exc:  # noqa: BLE001
            report.lost(f"async #{i}: {type(exc).__name__}: {exc}")

    async with gk.AsyncClient(api_key=SOAK_KEY, base_url=base_url, ledger=ledger, retry_policy=_policy(),
                              timeout=30) as client:
        semaphore = asyncio.Semaphore(8)

        async def limited(i: int) -> None:
            async with semaphore:
                await one(client, i)

        await asyncio.gather(*(limited(i) for i in range(count)))


def run_soak(base_url: str, requests: int, ledger: gk.Ledger, *, seed: int = 11, threads: int = 8) -> SoakReport:
    """``requests`` operations (a fifth of them through an AsyncClient), ``threads`` at a time."""
    report = SoakReport(operations=requests)
    rng = random.Random(seed)
    operations = _operations(tiny_png())
    weights = [weight for _, weight, _ in operations]
    async_share = requests // 5
    plan = [rng.choices(operations, weights)[0] for _ in range(requests - async_share)]
    counting = CountingTransport()
    began = time.monotonic()
    with gk.Client(api_key=SOAK_KEY, base_url=base_url, ledger=ledger, retry_policy=_policy(), timeout=30,
                   http_transport=counting) as client:
        worker = threading.Thread(target=lambda: asyncio.run(
            _run_async_share(base_url, ledger, async_share, report, seed)), name="soak-async")
        worker.start()
        with ThreadPoolExecutor(max_workers=threads, thread_name_prefix="soak") as pool:
            list(pool.map(lambda item: _run_one(item[1][2], item[1][0], client, item[0], report),
                          enumerate(plan)))
        worker.join()
    report.elapsed = time.monotonic() - began
    report.http_requests = counting.sent
    report.billable_retries = sum(row["attempts"] - 1 for row in ledger.rows)
    return report
