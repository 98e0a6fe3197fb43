"""Many requests from one notebook cell, with bounded concurrency.

The sync client uses a thread pool: plain blocking calls work inside a running
Jupyter event loop (no ``asyncio.run``, no nest-asyncio); a browser page's Python
(Pyodide), which cannot start a thread, runs them one after another. The async client uses
a semaphore and ``asyncio.gather``. Results come back in input order; an item
that failed holds its exception instead of a value, so one failure loses nothing.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import logging
import math
import os
import sys
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any, Awaitable, Callable, ContextManager, Iterable, Optional

from gatewaykit.presentation import rich_bundle

if TYPE_CHECKING:  # asyncio loads only when an async batch runs
    import asyncio

__all__ = ["BatchResult", "batch_tag", "run_async_batch", "run_each", "run_thread_batch", "settle_batch", "tagged"]

logger = logging.getLogger("gatewaykit")


class BatchResult(list):
    """A list of results in input order; failed items hold their exception."""

    @property
    def errors(self) -> list[tuple[int, BaseException]]:
        """``(index, exception)`` for every item that failed."""
        return [(index, item) for index, item in enumerate(self) if isinstance(item, BaseException)]

    @property
    def values(self) -> list[Any]:
        """The successful results, in order (failed items left out)."""
        return [item for item in self if not isinstance(item, BaseException)]

    @property
    def ok(self) -> bool:
        return not self.errors

    def raise_first(self) -> "BatchResult":
        """Raise the first item's exception, if any failed; else return self."""
        for item in self:
            if isinstance(item, BaseException):
                raise item
        return self

    def __repr__(self) -> str:
        failed = len(self.errors)
        return f"BatchResult({len(self)} result{'' if len(self) == 1 else 's'}, {failed} failed)"

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        """A table of every result (status and a short preview) from the presentation layer."""
        return rich_bundle(self)


OnDone = Optional[Callable[[Any], None]]


def _capture(call: Callable[[], Any], on_done: OnDone = None) -> Any:
    try:
        result = call()
    except Exception as exc:  # noqa: BLE001 - kept in the result, by design
        result = exc
    if on_done is not None:
        on_done(result)
    return result


def run_thread_batch(calls: Iterable[Callable[[], Any]], concurrency: int = 8, on_done: OnDone = None) -> BatchResult:
    """Run ``calls`` on up to ``concurrency`` threads; ``on_done(result)`` as each one finishes."""
    calls = list(calls)
    if concurrency < 1:
        raise ValueError("concurrency must be at least 1")
    if not calls:
        return BatchResult()
    return BatchResult(run_each([functools.partial(_capture, call, on_done) for call in calls], concurrency))


def run_each(calls: list[Callable[[], Any]], concurrency: int, name: str = "gatewaykit") -> list[Any]:
    """Every call's value, in order, on up to ``concurrency`` threads (the first exception is raised, the calls
    not started are cancelled); each call in a copy of the caller's context, so ledger tags and the telemetry
    parent span reach it. Where no thread can start (Pyodide, ``sys.platform == "emscripten"``): one by one."""
    if sys.platform == "emscripten":
        return [contextvars.copy_context().run(call) for call in calls]
    with ThreadPoolExecutor(max_workers=max(1, min(concurrency, len(calls))), thread_name_prefix=name) as pool:
        futures = [pool.submit(contextvars.copy_context().run, call) for call in calls]
        try:
            return [future.result() for future in futures]
        except BaseException:
            for future in futures:
                future.cancel()
            raise


async def run_async_batch(
    calls: Iterable[Callable[[], Awaitable[Any]]],
    concurrency: int = 8,
    semaphore: Optional["asyncio.Semaphore"] = None,
    on_done: OnDone = None,
) -> BatchResult:
    if concurrency < 1:
        raise ValueError("concurrency must be at least 1")
    import asyncio

    gate = semaphore or asyncio.Semaphore(concurrency)

    async def one(call: Callable[[], Awaitable[Any]]) -> Any:
        async with gate:
            try:
                result = await call()
            except Exception as exc:  # noqa: BLE001
                result = exc
        if on_done is not None:
            on_done(result)
        return result

    return BatchResult(await asyncio.gather(*(one(call) for call in calls)))


def batch_tag() -> str:
    """A ledger tag unique to one ``map``/``batch``: its rows are what it cost (:func:`settle_batch`)."""
    return f"batch-{os.urandom(4).hex()}"


def tagged(ledger: Any, tag: str) -> ContextManager[Any]:
    """``ledger.tag(tag)``, or nothing for a ledger that keeps no tags (a user's own ledger object)."""
    tag_rows = getattr(ledger, "tag", None)
    return tag_rows(tag) if callable(tag_rows) else contextlib.nullcontext()


def settle_batch(ledger: Any, tag: str, progress: Any) -> None:
    """Tell ``progress`` (its optional ``settle``) what the batch's ledger rows cost: every request its items
    made, whatever they returned (a function returning text, say), and $0 for answers not paid for now."""
    settle = getattr(progress, "settle", None)
    rows_of = getattr(ledger, "rows_as_recorded", None)
    if settle is None or rows_of is None:
        return
    try:
        costs = [row.get("total_cost") for row in rows_of(tag)]
        known = [cost for cost in costs if isinstance(cost, (int, float))]
        if known:
            settle(math.fsum(known))
    except Exception:  # noqa: BLE001 - a view's figure never fails the batch it summarises
        logger.debug("gatewaykit: could not settle a batch's cost from the ledger", exc_info=True)
