"""Live Markdown view of a streamed chat, throttled, ending as static output.

``render_stream(stream)`` is what ``client.chat.ask()`` uses in a kernel: finished parts of the answer
are sent once, only the open tail is updated in place (throttled so the bytes sent stay a small
multiple of the answer), and at the end the whole answer becomes static HTML that a saved notebook
shows exactly once. All model text goes through the sanitising renderer. An interrupt or a broken
stream leaves what arrived visible, marked, and re-raises.
"""

from __future__ import annotations

import asyncio
import inspect
import time
from typing import Any, Callable, Iterable, Optional

from gatewaykit.notebook.chat_views.live_renderer import (
    FREEZE_BYTES,
    FRONTEND_BYTES_PER_SECOND,
    MARKDOWN_BUDGET_PER_TOKEN,
    MARKDOWN_INTERVAL,
    TAIL_FACTOR,
    TAIL_SLACK,
    UPDATE_INTERVAL,
    LiveChatRenderer,
)
from gatewaykit.notebook.cell_output.sinks import DisplaySink, default_sink
from gatewaykit.presentation import replayed_from_cassette
from gatewaykit.types import ChatCompletion, ChatCompletionChunk

__all__ = [
    "FREEZE_BYTES", "FRONTEND_BYTES_PER_SECOND", "MARKDOWN_BUDGET_PER_TOKEN", "MARKDOWN_INTERVAL", "TAIL_FACTOR",
    "TAIL_SLACK", "UPDATE_INTERVAL", "LiveChatRenderer", "render_async_stream", "render_stream",
]  # fmt: skip


def _close(stream: Any) -> None:
    close = getattr(stream, "close", None)
    if callable(close):
        try:
            close()
        except Exception:  # noqa: BLE001 - closing is best effort once the user interrupted
            pass


def _final(stream: Any) -> Any:
    """``stream.final()`` when the stream has one and it works, else None (the renderer's assembly is used)."""
    final = getattr(stream, "final", None)
    if not callable(final):
        return None
    try:
        return final()
    except Exception:  # noqa: BLE001 - fall back to what the renderer assembled
        return None


def render_stream(
    stream: Iterable[ChatCompletionChunk],
    *,
    sink: Optional[DisplaySink] = None,
    model: Optional[str] = None,
    interval: float = UPDATE_INTERVAL,
    clock: Callable[[], float] = time.monotonic,
) -> ChatCompletion:
    """Consume ``stream`` while showing it live; return the assembled ``ChatCompletion``.

    ``stream`` is a ``ChatStream`` (or any iterable of chunks; ``.final()``
    and ``.close()`` are used when present). Without ``sink``, output goes to
    the current cell in a kernel and nowhere otherwise.
    """
    from gatewaykit.errors import StreamInterruptedError

    renderer = LiveChatRenderer(
        sink if sink is not None else default_sink(), model=model, interval=interval, clock=clock,
        assembly=getattr(stream, "assembly", None), replayed=replayed_from_cassette(stream),
    )  # fmt: skip
    renderer.start()
    try:
        for chunk in stream:
            renderer.feed(chunk)
    except KeyboardInterrupt as interrupt:
        _close(stream)
        interrupt.partial = renderer.interrupted()  # type: ignore[attr-defined]
        raise
    except StreamInterruptedError as error:
        renderer.broke_off(error)
        raise
    except Exception as error:
        renderer.fail(error)
        raise
    return renderer.done(_final(stream))


async def _aclose(stream: Any) -> None:
    for name in ("aclose", "close"):
        close = getattr(stream, name, None)
        if callable(close):
            try:
                result = close()
                if inspect.isawaitable(result):
                    await result
            except Exception:  # noqa: BLE001 - best effort
                pass
            return


async def render_async_stream(
    stream: Any,
    *,
    sink: Optional[DisplaySink] = None,
    model: Optional[str] = None,
    interval: float = UPDATE_INTERVAL,
    clock: Callable[[], float] = time.monotonic,
) -> ChatCompletion:
    """:func:`render_stream` for an ``AsyncChatStream`` (``async for``, awaitable ``final()``).

    Task cancellation behaves like a kernel interrupt: the partial answer stays, the error propagates.
    """
    from gatewaykit.errors import StreamInterruptedError

    renderer = LiveChatRenderer(
        sink if sink is not None else default_sink(), model=model, interval=interval, clock=clock,
        assembly=getattr(stream, "assembly", None), replayed=replayed_from_cassette(stream),
    )  # fmt: skip
    renderer.start()
    try:
        async for chunk in stream:
            renderer.feed(chunk)
    except (KeyboardInterrupt, asyncio.CancelledError):
        await _aclose(stream)
        renderer.interrupted()
        raise
    except StreamInterruptedError as error:
        renderer.broke_off(error)
        raise
    except Exception as error:
        renderer.fail(error)
        raise
    result = _final(stream)
    if inspect.isawaitable(result):
        try:
            result = await result
        except Exception:  # noqa: BLE001 - fall back to what the renderer assembled
            result = None
    return renderer.done(result)
