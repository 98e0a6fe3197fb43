"""Multi-step behaviour written once, as generators, and the two drivers that run them.

A *flow* is a generator (like httpx's ``auth_flow``) that yields instructions
and receives their results:

- an :class:`ApiRequest` -> the response (or the translated transport error is thrown in),
- :class:`Sleep` -> None,
- :class:`ReadEvents` -> the list of SSE events of a streamed response,
- :class:`Download` -> the number of bytes written to a file.

Its ``return`` value is the result of the whole operation. :func:`run_sync`
drives a flow with blocking I/O, :func:`run_async` with awaitables; retries and
job polling are written once, in :func:`send_with_retries` and ``jobs.py``.
"""

from __future__ import annotations

import os
import random
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Generator, TypeVar

from gatewaykit.client.api_request import ApiRequest
from gatewaykit.client.core.sse import SSEDecoder, ServerSentEvent
from gatewaykit.errors import APIConnectionError, GatewayError, parse_retry_after

__all__ = [
    "Download",
    "Flow",
    "ReadEvents",
    "RetryPolicy",
    "Sleep",
    "run_async",
    "run_sync",
    "send_with_retries",
]

T = TypeVar("T")
Flow = Generator[Any, Any, T]


@dataclass(slots=True)
class Sleep:
    seconds: float


@dataclass(slots=True)
class ReadEvents:
    """Read a streamed response to its end; the result is its list of SSE events."""

    response: Any


@dataclass(slots=True)
class Download:
    """Stream a response body to ``path`` (via a temporary file, renamed when complete)."""

    response: Any
    path: Path


@dataclass(frozen=True)
class RetryPolicy:
    """When and how long to wait before sending a request again.

    Backoff is exponential with full jitter: attempt *k* waits a random time in
    ``[0, min(backoff_cap, backoff_base * 2**(k-1))]``. A ``Retry-After`` answer
    is waited for exactly when it is at most ``retry_after_cap`` seconds; a
    longer one is not waited for (the error is raised, carrying ``retry_after``).
    """

    max_retries: int = 2
    backoff_base: float = 0.5
    backoff_cap: float = 8.0
    retry_after_cap: float = 20.0

    def backoff(self, attempt: int, rand: Callable[[], float] = random.random) -> float:
        return rand() * min(self.backoff_cap, self.backoff_base * 2 ** (attempt - 1))


_LOST_JOB = (
    "The connection broke after the job request was sent, so the gateway may have created "
    "the job (it bills on completion). It was not sent again, so as not to create and pay "
    "for a second one. Original error: {}"
)
_LOST_POST = (
    "The answer was lost after the request was sent; the gateway may have processed and "
    "charged it, so it was not sent again. Original error: {}"
)


def send_with_retries(request: ApiRequest, policy: RetryPolicy) -> Flow[tuple[Any, int]]:
    """Send ``request``; retry 429, 5xx and connection failures. Returns ``(response, attempts)``.

    Never retries other statuses (the caller maps them to errors). A request
    whose answer was lost after it was sent is retried only if ``replay_safe``.
    """
    attempt = 0
    while True:
        try:
            response = yield request
        except APIConnectionError as exc:
            sent = getattr(exc, "request_sent", True)
            exc.attempts = attempt + 1  # type: ignore[attr-defined]  # the ledger records how many were sent
            if sent and not request.replay_safe:
                lost = _annotated(exc, _LOST_JOB if request.creates_job else _LOST_POST)
                lost.attempts = attempt + 1  # type: ignore[attr-defined]
                raise lost from exc
            if attempt >= policy.max_retries:
                raise
            attempt += 1
            yield Sleep(policy.backoff(attempt))
            continue
        status = response.status_code
        if (status == 429 or status >= 500) and attempt < policy.max_retries:
            retry_after = parse_retry_after(response.headers)
            if retry_after is not None and retry_after > policy.retry_after_cap:
                return response, attempt + 1
            attempt += 1
            yield Sleep(retry_after if retry_after is not None else policy.backoff(attempt))
            continue
        return response, attempt + 1


def _annotated(exc: APIConnectionError, template: str) -> APIConnectionError:
    new = type(exc)(template.format(exc.message))
    new.request_sent = True  # type: ignore[attr-defined]
    return new


def run_sync(flow: Flow[T], transport: Any, sleep: Callable[[float], None] = time.sleep) -> T:
    """Drive ``flow`` with blocking I/O."""
    try:
        instruction = next(flow)
        while True:
            try:
                if type(instruction) is ApiRequest:
                    result = transport.send(instruction)
                elif type(instruction) is Sleep:
                    sleep(instruction.seconds)
                    result = None
                elif type(instruction) is ReadEvents:
                    result = _read_events_sync(transport, instruction.response)
                elif type(instruction) is Download:
                    result = _download_sync(transport, instruction)
                else:  # pragma: no cover - a programming error in a flow
                    raise TypeError(f"unknown flow instruction {instruction!r}")
            except GatewayError as exc:
                instruction = flow.throw(exc)
                continue
            instruction = flow.send(result)
    except StopIteration as stop:
        return stop.value
    finally:
        flow.close()


async def run_async(flow: Flow[T], transport: Any) -> T:
    """Drive ``flow`` with awaitables (the same flows as :func:`run_sync`)."""
    try:
        instruction = next(flow)
        while True:
            try:
                if type(instruction) is ApiRequest:
                    result = await transport.send(instruction)
                elif type(instruction) is Sleep:
                    await _async_sleep(instruction.seconds)
                    result = None
                elif type(instruction) is ReadEvents:
                    result = await _read_events_async(transport, instruction.response)
                elif type(instruction) is Download:
                    result = await _download_async(transport, instruction)
                else:  # pragma: no cover
                    raise TypeError(f"unknown flow instruction {instruction!r}")
            except GatewayError as exc:
                instruction = flow.throw(exc)
                continue
            instruction = flow.send(result)
    except StopIteration as stop:
        return stop.value
    finally:
        flow.close()


def _read_events_sync(transport: Any, response: Any) -> list[ServerSentEvent]:
    decoder = SSEDecoder()
    events: list[ServerSentEvent] = []
    try:
        for chunk in transport.iter_bytes(response):
            events.extend(decoder.feed(chunk))
        events.extend(decoder.finish())
    finally:
        transport.close_response(response)
    return events


async def _read_events_async(transport: Any, response: Any) -> list[ServerSentEvent]:
    decoder = SSEDecoder()
    events: list[ServerSentEvent] = []
    try:
        async for chunk in transport.iter_bytes(response):
            events.extend(decoder.feed(chunk))
        events.extend(decoder.finish())
    finally:
        await transport.close_response(response)
    return events


def _temporary_beside(path: Path) -> tuple[int, str]:
    path.parent.mkdir(parents=True, exist_ok=True)
    return tempfile.mkstemp(prefix=f".{path.name}.", suffix=".part", dir=path.parent)


def _download_sync(transport: Any, download: Download) -> int:
    written = 0
    fd, tmp = _temporary_beside(download.path)
    try:
        with os.fdopen(fd, "wb") as file:
            for chunk in transport.iter_bytes(download.response, capped=False):  # a file on disk, not in memory
                file.write(chunk)
                written += len(chunk)
        os.replace(tmp, download.path)
    except BaseException:
        _remove_quietly(tmp)
        raise
    finally:
        transport.close_response(download.response)
    return written


async def _download_async(transport: Any, download: Download) -> int:
    written = 0
    fd, tmp = _temporary_beside(download.path)
    try:
        with os.fdopen(fd, "wb") as file:
            async for chunk in transport.iter_bytes(download.response, capped=False):  # a file on disk, not in memory
                file.write(chunk)
                written += len(chunk)
        os.replace(tmp, download.path)
    except BaseException:
        _remove_quietly(tmp)
        raise
    finally:
        await transport.close_response(download.response)
    return written


def _remove_quietly(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


async def _async_sleep(seconds: float) -> None:
    import asyncio

    await asyncio.sleep(seconds)
