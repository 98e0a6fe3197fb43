"""Live Markdown view of a streamed chat, throttled, ending as static output.

``render_stream(stream)`` is what ``client.chat.ask()`` uses in a kernel:

* the answer is shown as a row of outputs in the current cell that read as
  one panel: each finished part of the answer (about :data:`FREEZE_BYTES` of
  HTML of finished Markdown blocks) is sent once, as its own output, and only
  the open tail (the last output) is replaced in place (``display_id``
  updates);
* the tail is updated at most every :data:`UPDATE_INTERVAL` seconds (about
  15 messages per second; Jupyter's server drops messages past 1000/s over
  3 s, and the dropped one can be the final state), and only while the bytes
  those updates resend stay within :data:`TAIL_FACTOR` times the bytes
  of answer so far (plus :data:`TAIL_SLACK`): a long open block updates
  less often, so the bytes sent stay a small multiple of the answer's size
  (``benchmarks/render_stream.py`` reports the ratio);
* at the end the parts are emptied and the first output becomes the
  complete answer as static HTML (the same bundle the returned
  ``ChatCompletion`` displays), so a saved notebook, nbconvert and GitHub show
  it exactly once, without a kernel or widget state;
* per token the renderer only appends to a list and reads the clock; at
  each update, Markdown is rendered incrementally
  (:class:`~gatewaykit.notebook.markdown_html.markdown_stream.IncrementalMarkdown`):
  finished blocks are parsed and sanitised once; the open last block is
  parsed again at most every :data:`MARKDOWN_INTERVAL` seconds, at once when
  a blank line may have finished a block, and only while that costs less than
  :data:`MARKDOWN_BUDGET_PER_TOKEN` of CPU per token received; the updates in
  between show the text that arrived since as escaped plain text inside the
  same block, formatted at the next parse;
* a sink without ``open`` (an HTML widget) gets the whole view in every
  update, throttled to :data:`FRONTEND_BYTES_PER_SECOND`;
* all model text goes through the sanitising renderer, live and final.

Interruptions: on ``KeyboardInterrupt`` (kernel interrupt) the stream is
closed, what arrived stays as static output marked "interrupted", and the
``KeyboardInterrupt`` is re-raised, so a loop over prompts stops too; the
partial answer is on the exception as ``partial``. On
``StreamInterruptedError`` the partial text stays visible with an error note
and the error is re-raised. Any other error replaces the live view with the
error and is re-raised.

An answer the client's cassette replayed (:func:`~gatewaykit.presentation.replayed_from_cassette`)
says so in its status line and its final footer ("replayed from a cassette: not charged",
with the recorded cost) instead of showing the recorded cost as if it were paid again.
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
