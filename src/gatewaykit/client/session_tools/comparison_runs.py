"""``Client.compare`` / ``AsyncClient.compare``: every model at once, each column shown as it goes.

Each model runs in its own worker (a thread for :class:`Client`, a task for
:class:`AsyncClient`), its requests tagged in the ledger. The client's display
opens a :class:`~gatewaykit.client.core.comparison_view.ComparisonView` first (in a
notebook: the grid, at once) and is told each column's progress from the
workers: the chat answer chunk by chunk (chat columns are then requested as
streams), each poll of a job, the column's end with its latency, tokens and
cost. The view only records in the workers, so the models stay concurrent.
With ``confirm_over=`` the whole comparison is quoted and confirmed once.
"""

from __future__ import annotations

import functools
from typing import Any, Callable, Iterable

from gatewaykit.client.session_tools.comparison import Comparison, ComparisonEntry, Timer, new_tag, plan_comparison, settle
from gatewaykit.client.core.comparison_view import GuardedComparisonView, comparison_view_of

__all__ = ["run_comparison", "run_comparison_async", "send_prompt"]


def send_prompt(client: Any, kind: str, model: str, prompt: str, params: dict[str, Any], stream: bool) -> Any:
    """One prompt to one model of ``kind`` (a chat as one user message, streamed when ``stream``)."""
    if kind == "chat":
        messages = [{"role": "user", "content": prompt}]
        if stream:
            return client.chat.completions.create(model=model, messages=messages, stream=True, **params)
        return client.chat.completions.create(model=model, messages=messages, **params)
    if kind == "image":
        return client.images.generate(model=model, prompt=prompt, **params)
    resource = client.videos if kind == "video" else client.music
    return resource.create(model=model, prompt=prompt, **params)


def _sends(
    client: Any, kind: str, entries: list[ComparisonEntry], prompt: str, params: dict[str, Any], stream: bool
) -> dict[str, Callable[[], Any]]:
    """Each column's request as a call (a quote runs them without ``stream``: the price is the same)."""
    return {e.model: functools.partial(send_prompt, client, kind, e.model, prompt, dict(params), stream) for e in entries}


def _columns(client: Any, prompt: Any, catalog: Any, models: Iterable[str], params: dict[str, Any]) -> Any:
    """The plan: the kind, the empty columns (in order), the comparison's ledger tag, the params."""
    kind, ids = plan_comparison(catalog, prompt, models)
    if "stream" in params:
        raise TypeError("compare() takes no stream=: chat columns stream by themselves where a display shows them")
    tag = new_tag()
    entries = [ComparisonEntry(model=model_id, kind=kind, tag=f"{tag}-{i}") for i, model_id in enumerate(ids)]
    return kind, entries, tag, params


def _finish(client: Any, entry: ComparisonEntry, timer: Timer, view: GuardedComparisonView) -> None:
    entry.latency_s = timer.stop()
    settle(entry, client.ledger.rows_as_recorded(entry.tag))
    view.finished(entry)


def _done(client: Any, prompt: str, kind: str, entries: list[ComparisonEntry], view: GuardedComparisonView) -> Comparison:
    comparison = Comparison(prompt=prompt, kind=kind, entries=entries)
    try:
        rows = client.ledger.rows_as_recorded()
        for entry in entries:
            settle(entry, rows)
    finally:
        view.close(comparison)
    return comparison


def run_comparison(
    client: Any, prompt: Any, models: Iterable[str], params: dict[str, Any], concurrency: int, confirm: bool = False
) -> Comparison:
    """``Client.compare``: every model in its own thread, each tagged in the ledger; one quote for them all."""
    from gatewaykit.client.session_tools.batch import run_each

    from gatewaykit.client.core.confirmation import confirmed_call, quote_batch

    catalog = client.models.cached or client.models.list()
    kind, entries, tag, params = _columns(client, prompt, catalog, models, params)
    confirming = getattr(client, "_confirm_over", None) is not None
    if confirming and not confirm:  # confirm_over: the whole comparison is quoted, and asked about, once
        quote_batch(client, list(_sends(client, kind, entries, prompt, params, False).values()))
    view = comparison_view_of(client._display, prompt, kind, entries)  # the grid, once it is sure to run
    streams = kind == "chat" and view.streams
    sends = _sends(client, kind, entries, prompt, params, streams)
    if confirming:
        sends = {model: confirmed_call(send) for model, send in sends.items()}

    def one(entry: ComparisonEntry) -> None:
        view.started(entry)
        timer = Timer()
        try:
            with client.ledger.tag(tag, entry.tag):
                result = sends[entry.model]()
                if streams:
                    for chunk in result:
                        view.chunk(entry, chunk)
                    result = result.final()
                elif kind in ("video", "music"):
                    result = result.wait(on_update=functools.partial(view.job_update, entry))
            entry.result = result
        except Exception as exc:  # noqa: BLE001 - one model failing is shown in its column
            entry.error = exc
        _finish(client, entry, timer, view)

    try:
        run_each([functools.partial(one, entry) for entry in entries], concurrency, "gatewaykit-compare")
    except BaseException:  # an interrupt: the view stops where the columns are
        view.close(Comparison(prompt=prompt, kind=kind, entries=entries))
        raise
    return _done(client, prompt, kind, entries, view)


async def run_comparison_async(
    client: Any, prompt: Any, models: Iterable[str], params: dict[str, Any], concurrency: int, confirm: bool = False
) -> Comparison:
    """``AsyncClient.compare``: every model as a task, each tagged in the ledger; one quote for them all."""
    import asyncio

    from gatewaykit.client.core.confirmation import confirmed_async_call, quote_async_batch

    catalog = client.models.cached or await client.models.list()
    kind, entries, tag, params = _columns(client, prompt, catalog, models, params)
    confirming = getattr(client, "_confirm_over", None) is not None
    if confirming and not confirm:
        await quote_async_batch(client, list(_sends(client, kind, entries, prompt, params, False).values()))
    view = comparison_view_of(client._display, prompt, kind, entries)
    streams = kind == "chat" and view.streams
    gate = asyncio.Semaphore(max(1, concurrency))
    sends = _sends(client, kind, entries, prompt, params, streams)
    if confirming:
        sends = {model: confirmed_async_call(send) for model, send in sends.items()}

    async def one(entry: ComparisonEntry) -> None:
        async with gate:
            view.started(entry)
            timer = Timer()
            try:
                with client.ledger.tag(tag, entry.tag):
                    result = await sends[entry.model]()
                    if streams:
                        async for chunk in result:
                            view.chunk(entry, chunk)
                        result = await result.final()
                    elif kind in ("video", "music"):
                        result = await result.wait(on_update=functools.partial(view.job_update, entry))
                entry.result = result
            except Exception as exc:  # noqa: BLE001
                entry.error = exc
            _finish(client, entry, timer, view)

    try:
        await asyncio.gather(*(one(entry) for entry in entries))
    except BaseException:  # cancelled: the view stops where the columns are
        view.close(Comparison(prompt=prompt, kind=kind, entries=entries))
        raise
    return _done(client, prompt, kind, entries, view)
