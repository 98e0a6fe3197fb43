"""Many requests from one notebook cell, with bounded concurrency.

The sync client uses a thread pool: plain blocking calls work inside a running
Jupyter event loop (no ``asyncio.run``, no nest-asyncio). The async client uses
a semaphore and ``asyncio.gather``. Results come back in input order; an item
that failed holds its exception instead of a value, so one failure loses nothing.
"""

from __future__ import annotations

import contextvars
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any, Awaitable, Callable, Iterable, Optional

from gatewaykit.presentation import rich_bundle

if TYPE_CHECKING:  # asyncio loads only when an async batch runs
    import asyncio

__all__ = ["BatchResult", "run_async_batch", "run_thread_batch"]


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
    with ThreadPoolExecutor(max_workers=min(concurrency, len(calls)), thread_name_prefix="gatewaykit") as pool:
        # Each call in a copy of the caller's context: ledger tags and the telemetry parent span reach the thread.
        futures = [pool.submit(contextvars.copy_context().run, _capture, call, on_done) for call in calls]
        try:
            return BatchResult(future.result() for future in futures)
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
