"""``Client`` (blocking) and ``AsyncClient`` (awaitable): the same surface over two drivers.

Both share :class:`BaseClient` (configuration, request building, flows); each
adds only its transport, its flow driver, its stream class and closing.
"""

from __future__ import annotations

import functools
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Awaitable, Callable, ClassVar, Iterable, Optional, Union

from gatewaykit.client.core import observation
from gatewaykit.client.resources import job_flows
from gatewaykit.client.core.base import BaseClient
from gatewaykit.client.session_tools.batch import (
    BatchResult, batch_tag, run_async_batch, run_thread_batch, settle_batch, tagged,
)  # fmt: skip
from gatewaykit.client.resources.chat import AsyncChat, Chat
from gatewaykit.client.core.confirmation import confirmed_async_call, confirmed_call, quote_async_batch, quote_batch
from gatewaykit.client.core.config import ConnectionSettings
from gatewaykit.client.core.flows import Flow, run_async, run_sync
from gatewaykit.client.resources.images import AsyncImages, Images
from gatewaykit.client.resources.models import AsyncModels, Models
from gatewaykit.client.resources.music import AsyncMusic, Music
from gatewaykit.client.resources.pending_jobs import AsyncJobs, Jobs
from gatewaykit.client.resources.blocking_sends import close_blocking_transport
from gatewaykit.client.resources.pending_refresh import refresh_pending_rows
from gatewaykit.client.resources.stop_pricing import fetch_price_for
from gatewaykit.client.core.options import ClientOptions, takes_options
from gatewaykit.client.core.recording import Recording
from gatewaykit.client.core.streaming import AsyncChatStream, ChatStream
from gatewaykit.client.resources.videos import AsyncVideos, Videos

if TYPE_CHECKING:
    from gatewaykit.client.session_tools.comparison import Comparison
    from gatewaykit.client.session_tools.evaluation import Evaluation

__all__ = ["AsyncClient", "Client"]


def _checkpoint() -> Any:
    """:mod:`gatewaykit.client.session_tools.checkpoint`, loaded with the first batch (not with the client)."""
    from gatewaykit.client.session_tools import checkpoint

    return checkpoint


class _Surface(BaseClient):
    """The resources, and the job operations the job types call back into."""

    models: Models
    chat: Chat
    images: Images
    videos: Videos
    music: Music
    jobs: Jobs

    @takes_options(ClientOptions)
    def __init__(self, options: ClientOptions) -> None:
        """A client of the gateway (the keywords: :class:`~gatewaykit.client.core.options.ClientOptions`)."""
        self._setup(options)

    # The resource classes, by attribute; AsyncClient names the async ones.
    _resources: ClassVar[dict[str, type]] = {
        "models": Models, "chat": Chat, "images": Images, "videos": Videos, "music": Music, "jobs": Jobs,
    }  # fmt: skip

    def _setup(self, options: ClientOptions, settings: Optional[ConnectionSettings] = None) -> None:
        super()._setup(options, settings)
        for name, resource in self._resources.items():
            setattr(self, name, resource(self))

    # Called by VideoJob / MusicJob methods (types/ never touches the transport).
    def _job_refresh(self, job: Any) -> Any:
        return self._run(job_flows.refresh_flow(self, job))

    def _job_wait(self, job: Any, timeout: Optional[float], on_update: Any, poll_interval: Optional[float]) -> Any:
        return self._run(job_flows.wait_flow(self, job, timeout=timeout, on_update=on_update, poll_interval=poll_interval))

    def _job_content(self, job: Any) -> Any:
        return self._run(job_flows.content_flow(self, job))

    def _job_save(self, job: Any, path: Union[str, Path, None]) -> Any:
        return self._run(job_flows.content_flow(self, job, path=job_flows.default_save_path(job, path)))

    def _job_cancel(self, job: Any) -> Any:
        return self._run(job_flows.cancel_flow(self, job))

    def _refresh_pending_jobs(self, polled: Optional[set[str]] = None) -> None:
        """One status request per unfinished job of this client's in its ledger (the ledger calls this before
        it is shown or read: a wait stopped half-way leaves the row pending otherwise)."""
        refresh_pending_rows(self, set() if polled is None else polled)


class Client(_Surface):
    """The gateway, with blocking calls.

    ``display=``: what shows live streams, job waits, batch progress and the
    offline notice (a :class:`~gatewaykit.client.core.display.Display`); None chooses
    once (the notebook view inside an IPython kernel, nothing elsewhere), False
    turns it off.

    ``Client()`` reads ``SVC_API_KEY`` and ``SVC_BASE_URL`` (or Colab secrets
    of those names); with no key anywhere it uses the built-in offline gateway
    and warns (:class:`OfflineGatewayWarning`). ``Client(offline=True)`` asks for
    the offline gateway explicitly. A grader's ``GATEWAYKIT_OFFLINE=1`` / ``GATEWAYKIT_SEED`` /
    ``GATEWAYKIT_CASSETTE`` apply to every client whatever it is given (:mod:`gatewaykit.client.core.grading_switches`,
    docs/grading.md). Resources: ``models``, ``chat``, ``images``,
    ``videos``, ``music``, ``jobs`` (``jobs.pending()``: unfinished jobs from the ledger); ``map``/``batch``
    run many calls at once.

    ``cassette="demo.jsonl"`` records the exchanges to a file and replays them:
    ``cassette_mode="record"`` (always the network, the file rewritten),
    ``"replay"`` (never the network, no key needed; an unrecorded request raises
    :class:`CassetteMissError`) or ``"auto"`` (replay what is recorded, fetch and
    append the rest). Replayed calls are labelled ``cost_source="replayed"`` in the ledger.

    ``max_response_bytes=`` (default 128 MiB) is the most one answer may decode to in memory (a body,
    a chat stream); past it the call raises :class:`ResponseTooLargeError` without unpacking the rest.

    A client pickles, so worker processes (Dask, Ray, multiprocessing) can use it:
    the copy reconnects to the same gateway with the same settings and ledger.
    **The API key travels in the pickle**: send it only to your own workers,
    never store or share it (:mod:`gatewaykit.client.core.pickling`).
    """

    def _job_wait(self, job: Any, timeout: Optional[float], on_update: Any, poll_interval: Optional[float]) -> Any:
        # A plain job.wait() goes through the display (a live progress card in a kernel); the display
        # drives the one polling flow by calling back with its own on_update.
        if on_update is None:

            def poll(observe: Any) -> Any:
                return _Surface._job_wait(self, job, timeout, observe, poll_interval)

            return self._display.job_wait(job, poll)
        return super()._job_wait(job, timeout, on_update, poll_interval)

    def _make_transport(self, base_url: str, headers: dict[str, str], timeout: Any, http_transport: Any) -> Any:
        from gatewaykit.client.transports.http import SyncTransport  # httpx loads with the first client

        return SyncTransport(base_url, headers, timeout, http_transport, trust_env=not self._settings.offline)

    def _run(self, flow: Flow[Any]) -> Any:
        return run_sync(flow, self._transport, _sleep)

    def _open_chat_stream(self, response: Any, recording: Recording) -> ChatStream:
        recording.prices_wanted = functools.partial(fetch_price_for, self)  # a Stop is priced (stop_pricing.py)
        transport = self._transport
        return ChatStream(transport.iter_bytes(response), response.close, recording)

    def map(
        self,
        function: Callable[[Any], Any],
        items: Iterable[Any],
        *,
        concurrency: int = 8,
        checkpoint: Any = None,
        confirm: bool = False,
    ) -> BatchResult:
        """``function(item)`` for every item on up to ``concurrency`` threads; results in input order,
        a failed item holds its exception (see ``BatchResult.errors``).

        ``checkpoint="run.sqlite"``: each finished item's result is stored as it
        finishes; a re-run (after a crash or a kernel restart) returns the stored
        results and calls ``function`` only for the rest, so nothing is paid twice.
        Results are stored as data (see :mod:`gatewaykit.client.session_tools.checkpoint`); a changed call re-runs.

        With ``Client(confirm_over=)`` the whole batch is quoted once (each item
        runs up to its first paid request, which is quoted, not sent) and
        confirmed once; ``confirm=True`` skips the question.
        """
        items = list(items)
        calls = [_bind(function, item) for item in items]
        keys = _checkpoint().item_keys(items) if checkpoint is not None else []
        with observation.operation("map", items=len(calls)):
            return self._batch(calls, concurrency, checkpoint, keys, confirm)

    def compare(
        self, prompt: str, *, models: Iterable[str], concurrency: int = 8, confirm: bool = False, **params: Any
    ) -> Comparison:
        """One prompt on several models of one kind (chat, image, video or music), concurrently.

        Every id is checked against the catalog first (nothing is sent for a typo). One model
        failing shows its error in its column; the others finish. ``params`` go to every model
        (``lyrics_prompt=`` for music, ``width=`` for images ...). Returns a :class:`Comparison`
        (a grid in a notebook; ``.to_pandas()``, ``.results``, ``.cheapest``, ``.fastest``).
        With ``confirm_over=`` the whole comparison is quoted and confirmed once (``confirm=True`` skips it).
        """
        from gatewaykit.client.session_tools.comparison_runs import run_comparison  # loaded with the first comparison

        models = models if isinstance(models, str) else list(models)  # a string is refused by name below
        with observation.operation("compare", models=models):
            return run_comparison(self, prompt, models, params, concurrency, confirm)

    def evaluate(
        self,
        cases: Iterable[Any],
        *,
        models: Iterable[str],
        scorers: Any = (),
        repeats: int = 1,
        concurrency: int = 4,
        checkpoint: Any = None,
        dry_run: bool = False,
        confirm: bool = False,
        **params: Any,
    ) -> "Evaluation":
        """Every case on every model (of one kind), scored: a :class:`~gatewaykit.Evaluation`.

        ``cases``: prompts, or dicts with ``prompt`` and any fields the scorers read (``id``,
        ``expected``, ...). ``scorers``: functions ``(output, case) -> bool | float | dict`` and
        ``gk.judge(model=, rubric=)`` and ``gk.expect`` checks; a scorer that raises leaves its error in that
        cell only. Every model id is checked first (nothing is sent for a typo). ``repeats`` runs each case
        that many times, at most ``concurrency`` cells at once (without ``seed=`` the repeats of a case send
        the same request: with ``cache=True`` they are answered once; with ``seed=s`` repeat r sends
        ``seed=s + r``). ``dry_run=True`` sends nothing and
        returns the plan with its ``.quote``; with ``confirm_over=`` the whole evaluation is asked
        about once (``confirm=True`` skips it). ``checkpoint="eval.sqlite"`` keeps each finished
        cell, so a re-run (after a crash) pays each cell once; ``Client(cache=True)`` makes a re-run
        free. ``params`` go to every request. In a notebook the grid fills live.
        """
        from gatewaykit.client.session_tools.evaluation_runs import run_evaluation  # loaded with the first evaluation

        models = models if isinstance(models, str) else list(models)  # a string is refused by name below
        with observation.operation("evaluate", models=models):
            return run_evaluation(self, cases, models, scorers, repeats, concurrency, checkpoint, dry_run, confirm, params)

    def batch(
        self,
        calls: Iterable[Callable[[], Any]],
        *,
        concurrency: int = 8,
        checkpoint: Any = None,
        confirm: bool = False,
    ) -> BatchResult:
        """Run zero-argument callables (e.g. ``lambda: client.images.generate(...)``) concurrently.

        ``checkpoint=``, ``confirm=``: as for ``map``, each call keyed by its position.
        """
        calls = list(calls)
        with observation.operation("batch", items=len(calls)):
            return self._batch(calls, concurrency, checkpoint, _checkpoint().batch_keys(len(calls)), confirm)

    def _batch(
        self, calls: list[Callable[[], Any]], concurrency: int, checkpoint: Any, keys: list[str], confirm: bool = False
    ) -> BatchResult:
        if self._confirm_over is not None:
            approved = None if confirm else quote_batch(self, calls)  # one question; raises when not confirmed
            calls = [confirmed_call(call, approved) for call in calls]
        progress = self._display.batch_progress(len(calls))
        tag = batch_tag()
        try:
            with tagged(self.ledger, tag):  # each item's requests, in its worker's copy of this context
                if checkpoint is None:
                    return run_thread_batch(calls, concurrency, on_done=progress.item_done)

                def run(todo: list[Callable[[], Any]]) -> BatchResult:
                    return run_thread_batch(todo, concurrency, on_done=progress.item_done)

                return _checkpoint().run_checkpointed(checkpoint, calls, keys, run, progress.item_done, client=self)
        finally:
            settle_batch(self.ledger, tag, progress)
            progress.close()

    def close(self) -> None:
        """Close the connection pool."""
        self._closed = True  # a ledger read after this asks nothing through it (blocking_sends.py)
        self._transport.close()

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.close()


class AsyncClient(_Surface):
    """The same surface as :class:`Client`, every call awaitable (streams: ``async for``)."""

    _is_async = True  # the cassette wraps an async transport
    _resources = {
        "models": AsyncModels, "chat": AsyncChat, "images": AsyncImages, "videos": AsyncVideos, "music": AsyncMusic,
        "jobs": AsyncJobs,
    }  # fmt: skip

    if TYPE_CHECKING:
        models: AsyncModels
        chat: AsyncChat
        images: AsyncImages
        videos: AsyncVideos
        music: AsyncMusic
        jobs: AsyncJobs

    def _make_transport(self, base_url: str, headers: dict[str, str], timeout: Any, http_transport: Any) -> Any:
        from gatewaykit.client.transports.http import AsyncTransport

        return AsyncTransport(base_url, headers, timeout, http_transport, trust_env=not self._settings.offline)

    def _run(self, flow: Flow[Any]) -> Awaitable[Any]:
        return run_async(flow, self._transport)

    def _open_chat_stream(self, response: Any, recording: Recording) -> AsyncChatStream:
        recording.prices_wanted = functools.partial(fetch_price_for, self)
        return AsyncChatStream(self._transport.iter_bytes(response), response.aclose, recording)

    async def map(
        self,
        function: Callable[[Any], Awaitable[Any]],
        items: Iterable[Any],
        *,
        concurrency: int = 8,
        checkpoint: Any = None,
        confirm: bool = False,
    ) -> BatchResult:
        """``await function(item)`` for every item, at most ``concurrency`` at a time; in input order.

        ``checkpoint=``, ``confirm=``: as for :meth:`Client.map`.
        """
        items = list(items)
        calls = [_bind(function, item) for item in items]
        keys = _checkpoint().item_keys(items) if checkpoint is not None else []
        with observation.operation("map", items=len(calls)):
            return await self._batch(calls, concurrency, checkpoint, keys, confirm)

    async def compare(
        self, prompt: str, *, models: Iterable[str], concurrency: int = 8, confirm: bool = False, **params: Any
    ) -> Comparison:
        """``await aclient.compare(...)``: as :meth:`Client.compare`, the models as concurrent tasks."""
        from gatewaykit.client.session_tools.comparison_runs import run_comparison_async

        models = models if isinstance(models, str) else list(models)  # a string is refused by name below
        with observation.operation("compare", models=models):
            return await run_comparison_async(self, prompt, models, params, concurrency, confirm)

    async def evaluate(
        self,
        cases: Iterable[Any],
        *,
        models: Iterable[str],
        scorers: Any = (),
        repeats: int = 1,
        concurrency: int = 4,
        checkpoint: Any = None,
        dry_run: bool = False,
        confirm: bool = False,
        **params: Any,
    ) -> "Evaluation":
        """``await aclient.evaluate(...)``: as :meth:`Client.evaluate`, the cells as concurrent tasks."""
        from gatewaykit.client.session_tools.evaluation_runs import run_evaluation_async

        models = models if isinstance(models, str) else list(models)  # a string is refused by name below
        with observation.operation("evaluate", models=models):
            return await run_evaluation_async(
                self, cases, models, scorers, repeats, concurrency, checkpoint, dry_run, confirm, params
            )

    async def batch(
        self,
        calls: Iterable[Callable[[], Awaitable[Any]]],
        *,
        concurrency: int = 8,
        checkpoint: Any = None,
        confirm: bool = False,
    ) -> BatchResult:
        calls = list(calls)
        with observation.operation("batch", items=len(calls)):
            return await self._batch(calls, concurrency, checkpoint, _checkpoint().batch_keys(len(calls)), confirm)

    async def _batch(
        self, calls: list[Any], concurrency: int, checkpoint: Any, keys: list[str], confirm: bool = False
    ) -> BatchResult:
        if self._confirm_over is not None:
            approved = None if confirm else await quote_async_batch(self, calls)
            calls = [confirmed_async_call(call, approved) for call in calls]
        progress = self._display.batch_progress(len(calls))
        tag = batch_tag()
        try:
            with tagged(self.ledger, tag):  # each item's requests (its task inherits this context)
                if checkpoint is None:
                    return await run_async_batch(calls, concurrency, on_done=progress.item_done)

                async def run(todo: list[Any]) -> BatchResult:
                    return await run_async_batch(todo, concurrency, on_done=progress.item_done)

                return await _checkpoint().run_checkpointed_async(checkpoint, calls, keys, run, progress.item_done,
                                                                  client=self)  # fmt: skip
        finally:
            settle_batch(self.ledger, tag, progress)
            progress.close()

    async def close(self) -> None:
        self._closed = True
        close_blocking_transport(self)  # made if a ledger read or a Stop sent from synchronous code
        await self._transport.close()

    aclose = close

    async def __aenter__(self) -> "AsyncClient":
        return self

    async def __aexit__(self, *exc_info: Any) -> None:
        await self.close()


def _bind(function: Callable[[Any], Any], item: Any) -> Callable[[], Any]:
    return lambda: function(item)


def _sleep(seconds: float) -> None:
    time.sleep(seconds)

