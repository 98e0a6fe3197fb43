"""The state of one gateway instance, passed to every route (never global)."""

from __future__ import annotations

import random
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable, TypeVar

from gatewaykit.emulator.accounts import AccountBook
from gatewaykit.emulator.catalog import CATALOG, ModelSpec
from gatewaykit.emulator.faults import FaultPlan
from gatewaykit.emulator.request_ids import RequestIds
from gatewaykit.emulator.settings import Settings

T = TypeVar("T")

#: Threads for CPU-heavy work a waiting request needs (chat answers, drawing images, inspecting uploads):
#: enough that one big image or schema does not hold up the small requests behind it.
REQUEST_WORKERS = 8
#: Threads that render video and music jobs. Jobs queue for these only, so however many renders are
#: queued, a synchronous request never waits behind them (no head-of-line blocking).
JOB_WORKERS = 2
#: Request-pool threads one account's heavy work (decoding images, drawing images, writing chat answers) may
#: take at once: however many big requests one caller sends, the other accounts keep
#: REQUEST_WORKERS - ACCOUNT_WORKERS threads, and its own requests queue behind each other.
ACCOUNT_WORKERS = 2
#: The same limit, under the name image decoding had before drawing and chats shared it.
ACCOUNT_DECODE_WORKERS = ACCOUNT_WORKERS
#: Request-pool threads one account's --script matching may take at once (each is bounded in time too).
ACCOUNT_SCRIPT_WORKERS = 2


class Gateway:
    """Accounts, catalog, jobs, caches and the two worker pools (requests, jobs) of one gateway instance."""

    def __init__(self, settings: Settings) -> None:
        from gatewaykit.emulator.jobs import JobStore
        from gatewaykit.emulator.media_cache import MediaCache
        from gatewaykit.emulator.prompt_cache import PromptCache

        self.settings = settings
        self.book = AccountBook(settings.accounts)
        self.catalog: dict[str, ModelSpec] = CATALOG
        self.faults = FaultPlan(settings)
        self.jobs = JobStore(self)
        self.media_cache = MediaCache()
        self.vision_cache: dict[str, Any] = {}
        self.prompt_cache = PromptCache(settings.prompt_cache_blocks,
                                        retention_seconds={"in-memory": settings.prompt_cache_memory_seconds})
        self.executor = ThreadPoolExecutor(max_workers=REQUEST_WORKERS, thread_name_prefix="gatewaykit-media")
        self.job_executor = ThreadPoolExecutor(max_workers=JOB_WORKERS, thread_name_prefix="gatewaykit-jobs")
        self._account_slots: dict[str, Any] = {}  # account id -> asyncio.Semaphore (made in the server's loop)
        self._script_slots: dict[str, Any] = {}
        self._seed_rng = random.Random(f"seeds-{settings.seed}")
        self.ids = RequestIds(settings.seed, settings.reproducible)
        self._seed_lock = threading.Lock()

    def start_workers(self) -> None:
        """Start every worker thread now (pools start them lazily), so a running gateway's thread count
        stays constant: a later thread is a leak, never a pool growing."""
        import concurrent.futures

        for executor, count in ((self.executor, REQUEST_WORKERS), (self.job_executor, JOB_WORKERS)):
            barrier = threading.Barrier(count)  # each task waits for the others: one thread per task
            concurrent.futures.wait([executor.submit(barrier.wait, 5) for _ in range(count)])

    def random_seed(self, basis: Any = None) -> int:
        """A seed for requests that omit one: random, but reproducible for a given ``--seed``.

        ``basis`` (what the request asked): a reproducible gateway derives the seed from it, so concurrent
        requests get the same seeds whatever order they arrive in."""
        if self.ids.reproducible and basis is not None:
            return self.ids.seed_for(basis)
        with self._seed_lock:
            return self._seed_rng.randrange(2**31)

    async def run_in_worker(self, function: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """Run CPU-heavy work a request waits for (images, image inspection) off the event loop."""
        return await self._run(self.executor, function, *args, **kwargs)

    async def run_for_account(self, account_id: str, function: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """Run an account's heavy work (drawing images, writing chat answers, decoding uploads) in the request
        pool, at most ACCOUNT_WORKERS of that account's at a time: the rest wait for a slot, and another
        account's requests keep the other threads. Hold the request's price before calling this
        (:class:`.holds.Hold`): work waiting here has been paid for."""
        return await self._run_limited(self._account_slots, ACCOUNT_WORKERS, account_id, function, *args, **kwargs)

    async def run_decoding(self, account_id: str, function: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """Decode or inspect an account's uploaded images: :meth:`run_for_account` (the same slots)."""
        return await self.run_for_account(account_id, function, *args, **kwargs)

    async def run_script_match(self, account_id: str, function: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """Match a message against the --script patterns in the request pool, at most ACCOUNT_SCRIPT_WORKERS
        per account: one caller's slow matches never take the threads other accounts need."""
        return await self._run_limited(self._script_slots, ACCOUNT_SCRIPT_WORKERS, account_id, function, *args,
                                       **kwargs)

    async def _run_limited(self, slots_by_account: dict[str, Any], count: int, account_id: str,
                           function: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        import asyncio

        import functools

        slots = slots_by_account.get(account_id)
        if slots is None:
            slots = slots_by_account[account_id] = asyncio.Semaphore(count)
        await slots.acquire()
        loop = asyncio.get_running_loop()
        try:
            work = self.executor.submit(functools.partial(function, *args, **kwargs))
        except BaseException:
            slots.release()
            raise

        def give_back(_: Any) -> None:  # when the thread is done, not when the request gives up on it
            try:
                loop.call_soon_threadsafe(slots.release)
            except RuntimeError:  # the loop closed (shutdown): nobody waits for the slot any more
                pass

        # A request that is cancelled (its client left) stops waiting at once, but the slot stays taken
        # until the thread really finishes: dropping connections cannot start more than ``count`` threads.
        work.add_done_callback(give_back)
        return await asyncio.wrap_future(work)

    async def run_job_render(self, function: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """Render a video or music job, in the job pool (never in the pool requests wait on)."""
        return await self._run(self.job_executor, function, *args, **kwargs)

    @staticmethod
    async def _run(executor: ThreadPoolExecutor, function: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        import asyncio
        import functools

        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(executor, functools.partial(function, *args, **kwargs))

    def scaled(self, seconds: float) -> float:
        return seconds * self.settings.time_scale

    def log_bug(self, where: str) -> None:
        import logging

        logging.getLogger("gatewaykit.emulator").exception("offline gateway bug in %s", where)

    def close(self) -> None:
        self.jobs.close()
        self.executor.shutdown(wait=False, cancel_futures=True)
        self.job_executor.shutdown(wait=False, cancel_futures=True)
