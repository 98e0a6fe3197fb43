"""``Client(confirm_over=usd)``: a request quoted above the threshold is confirmed before it is sent.

Right before a paid request is sent (before the budget check, so a cancelled one leaves no row),
:func:`confirm_flow` quotes it and, past the threshold, asks the client's display (a card in a
kernel); a display that cannot ask makes it a :class:`~gatewaykit.ConfirmationRequiredError` naming
``confirm=True``. Details: ``docs/internals.md``.
"""

from __future__ import annotations

import contextvars
import math
import threading
from typing import TYPE_CHECKING, Any, Awaitable, Callable, Mapping, Optional, Union

from gatewaykit.costs.quotes import Quote
from gatewaykit.errors import ConfirmationRequiredError

if TYPE_CHECKING:
    from gatewaykit.client.core.flows import Flow
    from gatewaykit.client.core.recording import Recording

# The client (``BaseClient``) is typed loosely here: base.py builds on this module.
BaseClient = Any

__all__ = [
    "BatchApproval",
    "QuotedInstead",
    "collect_async_quote",
    "collect_quote",
    "confirm_flow",
    "confirm_quote",
    "confirm_threshold",
    "confirmed_async_call",
    "confirmed_call",
    "needs_confirmation",
    "quote_async_batch",
    "quote_batch",
]

_JOB_KINDS = frozenset({"video", "music"})
_CONFIRMED: contextvars.ContextVar[Union[bool, "_ItemApproval"]] = contextvars.ContextVar(
    "gatewaykit_confirmed", default=False
)  # True: everything confirmed; an _ItemApproval: a confirmed batch's item
_COLLECTING: contextvars.ContextVar[Optional[list]] = contextvars.ContextVar("gatewaykit_quotes", default=None)


class QuotedInstead(BaseException):
    """A batch is being quoted: this call's first paid request was quoted, not sent."""


class BatchApproval:
    """What a batch's confirmation covered (the first paid request of each item), and what came after.

    Thread-safe: the items of a ``map`` run on several threads.
    """

    def __init__(self, quotes: list[Quote]) -> None:
        self._lock = threading.Lock()
        self._quotes = list(quotes)

    def add(self, quote: Quote) -> Quote:
        """Count one more request of the batch; the batch's quote with it."""
        with self._lock:
            self._quotes.append(quote)
            return _combine(self._quotes)


class _ItemApproval:
    """One item of a confirmed batch: its first paid request is the one the batch quoted."""

    __slots__ = ("batch", "quoted_used")

    def __init__(self, batch: BatchApproval) -> None:
        self.batch = batch
        self.quoted_used = False

    def take_quoted(self) -> bool:
        """True once: the item's first paid request (already in the batch's quote)."""
        if self.quoted_used:
            return False
        self.quoted_used = True
        return True


def confirm_threshold(value: Any) -> Optional[float]:
    """``confirm_over=`` as USD (None: never ask), or a ValueError naming it."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
        raise ValueError(f"confirm_over must be a non-negative number of USD (e.g. 0.50), not {value!r}")
    return float(value)


def needs_confirmation(quote: Quote, threshold: float) -> bool:
    """Past the threshold, or a video/music request (or a batch holding one) of unknown cost."""
    if quote.exceeds(threshold):
        return True
    unknown_job = quote.kind in _JOB_KINDS and quote.total_cost is None
    return unknown_job or (quote.kind == "batch" and bool(quote.assumptions.get("unpriced_jobs")))


def ask(client: BaseClient, quote: Quote, threshold: float, how: str = "confirm=True") -> None:
    """Ask the display to confirm ``quote``; raise ConfirmationRequiredError unless it was confirmed."""
    confirm = getattr(client.display, "confirm", None)
    answer = confirm(quote, threshold) if callable(confirm) else None
    if answer is None:  # nobody to ask
        raise ConfirmationRequiredError(
            f"{quote.summary}, over this client's confirm_over of ${threshold:.2f}; "
            f"nothing was sent. Pass {how} to send it anyway",
            quote=quote, threshold=threshold, param="confirm",
        )  # fmt: skip
    if not answer:
        error = ConfirmationRequiredError(
            f"cancelled at the confirmation: {quote.summary}; nothing was sent",
            quote=quote, threshold=threshold, param="confirm",
        )  # fmt: skip
        error.cancelled = True  # type: ignore[attr-defined]
        raise error


def confirm_flow(client: BaseClient, recording: "Recording", body: Optional[Mapping[str, Any]] = None) -> "Flow[None]":
    """Quote the request about to be sent (``body``: the whole of it, a chat's messages included); ask when it
    passes ``confirm_over`` (see the module docstring)."""
    threshold = client._confirm_over
    collecting = _COLLECTING.get()
    approval = _CONFIRMED.get()
    if collecting is None:
        if isinstance(approval, _ItemApproval) and approval.take_quoted():
            return  # the request the batch's quote stopped at (replayed or not, as when it was quoted)
        if threshold is None or recording.confirmed or recording.replayed or approval is True:
            return
    if client._catalog is None:
        yield from client._catalog_entry(recording.model)  # read once: the catalog's prices
    quote = client._quote(recording.kind, recording.model, body or recording.body or recording.request)
    if collecting is not None:
        collecting.append(quote)
        raise QuotedInstead
    assert threshold is not None
    if isinstance(approval, _ItemApproval):  # a later request of a confirmed batch's item: it adds up
        batch = approval.batch.add(quote)
        if needs_confirmation(quote, threshold) or needs_confirmation(batch, threshold):
            ask(client, batch, threshold, how="confirm=True to map/batch")
    elif needs_confirmation(quote, threshold):
        ask(client, quote, threshold)


def _combine(quotes: list[Quote]) -> Quote:
    combined = Quote.combine(quotes)
    if any(q.kind in _JOB_KINDS and q.total_cost is None for q in quotes):
        combined = Quote(
            kind=combined.kind, model=combined.model, total_cost=combined.total_cost, source=combined.source,
            assumptions={**combined.assumptions, "unpriced_jobs": True}, requests=combined.requests,
            unpriced=combined.unpriced,
        )  # fmt: skip
    return combined


def quote_batch(client: BaseClient, calls: list[Callable[[], Any]]) -> Optional[BatchApproval]:
    """Ask once for a whole batch; raises when not confirmed.

    Returns what was approved (for :func:`confirmed_call`), or None when nothing is
    asked (``confirm_over`` unset, or inside a call confirmed as a whole).
    """
    threshold = client._confirm_over
    if threshold is None or _CONFIRMED.get() is True:
        return None
    quotes = _quotes_of(calls)
    _ask_for_batch(client, quotes, threshold)
    return BatchApproval(quotes)


async def quote_async_batch(
    client: BaseClient, calls: list[Callable[[], Awaitable[Any]]]
) -> Optional[BatchApproval]:
    """:func:`quote_batch` for coroutine functions."""
    threshold = client._confirm_over
    if threshold is None or _CONFIRMED.get() is True:
        return None
    quotes = await _quotes_of_async(calls)
    _ask_for_batch(client, quotes, threshold)
    return BatchApproval(quotes)


def collect_quote(client: BaseClient, calls: list[Callable[[], Any]]) -> Optional[Quote]:
    """What ``calls`` would cost together (each run up to its first paid request, quoted, not sent); None if none.

    Works with or without ``confirm_over`` (``client.evaluate(dry_run=True)`` shows it).
    """
    quotes = _quotes_of(calls)
    return _combine(quotes) if quotes else None


async def collect_async_quote(client: BaseClient, calls: list[Callable[[], Awaitable[Any]]]) -> Optional[Quote]:
    """:func:`collect_quote` for coroutine functions."""
    quotes = await _quotes_of_async(calls)
    return _combine(quotes) if quotes else None


def confirm_quote(client: BaseClient, quote: Optional[Quote], how: str = "confirm=True") -> None:
    """Ask once about a whole run's quote when it passes ``confirm_over``; raises when not confirmed."""
    threshold = client._confirm_over
    if threshold is None or quote is None or _CONFIRMED.get():
        return
    if needs_confirmation(quote, threshold):
        ask(client, quote, threshold, how=how)


def _quotes_of(calls: list[Callable[[], Any]]) -> list[Quote]:
    """Run each call up to its first paid request, which is quoted instead of sent; the quotes."""
    quotes: list[Quote] = []
    token = _COLLECTING.set(quotes)
    try:
        for call in calls:
            try:
                call()
            except QuotedInstead:
                pass
            except Exception:  # noqa: BLE001 - the real run reports it, in its place
                pass
    finally:
        _COLLECTING.reset(token)
    return quotes


async def _quotes_of_async(calls: list[Callable[[], Awaitable[Any]]]) -> list[Quote]:
    """:func:`_quotes_of` for coroutine functions."""
    quotes: list[Quote] = []
    token = _COLLECTING.set(quotes)
    try:
        for call in calls:
            try:
                await call()
            except QuotedInstead:
                pass
            except Exception:  # noqa: BLE001 - the real run reports it, in its place
                pass
    finally:
        _COLLECTING.reset(token)
    return quotes


def _ask_for_batch(client: BaseClient, quotes: list[Quote], threshold: float) -> None:
    if not quotes:
        return
    combined = _combine(quotes)
    if needs_confirmation(combined, threshold):
        ask(client, combined, threshold, how="confirm=True to map/batch")


def _approval(batch: Optional[BatchApproval]) -> Union[bool, _ItemApproval]:
    return True if batch is None else _ItemApproval(batch)


def confirmed_call(call: Callable[[], Any], batch: Optional[BatchApproval] = None) -> Callable[[], Any]:
    """``call`` run as a confirmed batch's item (on whatever thread runs it).

    ``batch``: what :func:`quote_batch` approved (the item's later requests still count);
    None: every request of ``call`` is confirmed (``confirm=True``).
    """

    def run() -> Any:
        token = _CONFIRMED.set(_approval(batch))
        try:
            return call()
        finally:
            _CONFIRMED.reset(token)

    return run


def confirmed_async_call(
    call: Callable[[], Awaitable[Any]], batch: Optional[BatchApproval] = None
) -> Callable[[], Awaitable[Any]]:
    """:func:`confirmed_call` for a coroutine function."""

    async def run() -> Any:
        token = _CONFIRMED.set(_approval(batch))
        try:
            return await call()
        finally:
            _CONFIRMED.reset(token)

    return run
