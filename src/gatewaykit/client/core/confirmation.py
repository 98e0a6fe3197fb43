"""``Client(confirm_over=usd)``: a request quoted above the threshold is confirmed before it is sent.

Right before a paid request is sent (before the budget check, so a cancelled
request leaves no row), :func:`confirm_flow` quotes it (the price table, else
the gateway's catalog, read once per client). Past the threshold it asks the
client's display: in a kernel a card with the quote and Confirm / Cancel
(:meth:`KernelDisplay.confirm`); a display that cannot ask (terminals,
scripts, ``display=False``) raises :class:`ConfirmationRequiredError` naming
``confirm=True``. Cancel raises the same error with ``cancelled=True``:
nothing was sent, nothing recorded. A video or music request nothing can
price asks too (the most expensive calls are never waved through unknown);
an unpriced chat or image is sent.

``client.map`` / ``client.batch`` ask once for the whole batch: each call is
run up to its first paid request, which is quoted instead of sent
(:func:`collect_quote` raises :class:`QuotedInstead` there, a
``BaseException`` so a user's ``except Exception`` does not swallow it), the
quotes are added up, and once confirmed every item runs with its requests
already confirmed (:func:`confirmed_call`).
"""

from __future__ import annotations

import contextvars
import math
from typing import TYPE_CHECKING, Any, Awaitable, Callable, Optional

from gatewaykit.costs.quotes import Quote
from gatewaykit.errors import ConfirmationRequiredError

if TYPE_CHECKING:
    from gatewaykit.client.core.flows import Flow
    from gatewaykit.client.core.recording import Recording

# The client (``BaseClient``) is typed loosely here: base.py builds on this module.
BaseClient = Any

__all__ = [
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
_CONFIRMED: contextvars.ContextVar[bool] = contextvars.ContextVar("gatewaykit_confirmed", default=False)
_COLLECTING: contextvars.ContextVar[Optional[list]] = contextvars.ContextVar("gatewaykit_quotes", default=None)


class QuotedInstead(BaseException):
    """A batch is being quoted: this call's first paid request was quoted, not sent."""


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


def confirm_flow(client: BaseClient, recording: "Recording") -> "Flow[None]":
    """Quote the request about to be sent; ask when it passes ``confirm_over`` (see the module docstring)."""
    threshold = client._confirm_over
    collecting = _COLLECTING.get()
    if collecting is None and (threshold is None or recording.confirmed or recording.replayed or _CONFIRMED.get()):
        return
    if client._catalog is None:
        yield from client._catalog_entry(recording.model)  # read once: the catalog's prices
    quote = client._quote(recording.kind, recording.model, recording.body or recording.request)
    if collecting is not None:
        collecting.append(quote)
        raise QuotedInstead
    assert threshold is not None
    if needs_confirmation(quote, threshold):
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


def quote_batch(client: BaseClient, calls: list[Callable[[], Any]]) -> None:
    """Ask once for a whole batch (nothing when ``confirm_over`` is unset); raises when not confirmed."""
    threshold = client._confirm_over
    if threshold is None or _CONFIRMED.get():
        return
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
    _ask_for_batch(client, quotes, threshold)


async def quote_async_batch(client: BaseClient, calls: list[Callable[[], Awaitable[Any]]]) -> None:
    """:func:`quote_batch` for coroutine functions."""
    threshold = client._confirm_over
    if threshold is None or _CONFIRMED.get():
        return
    quotes: list[Quote] = []
    token = _COLLECTING.set(quotes)
    try:
        for call in calls:
            try:
                await call()
            except QuotedInstead:
                pass
            except Exception:  # noqa: BLE001
                pass
    finally:
        _COLLECTING.reset(token)
    _ask_for_batch(client, quotes, threshold)


def collect_quote(client: BaseClient, calls: list[Callable[[], Any]]) -> Optional[Quote]:
    """What ``calls`` would cost together (each run up to its first paid request, quoted, not sent); None if none.

    Works with or without ``confirm_over`` (``client.evaluate(dry_run=True)`` shows it).
    """
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
    return _combine(quotes) if quotes else None


async def collect_async_quote(client: BaseClient, calls: list[Callable[[], Awaitable[Any]]]) -> Optional[Quote]:
    """:func:`collect_quote` for coroutine functions."""
    quotes: list[Quote] = []
    token = _COLLECTING.set(quotes)
    try:
        for call in calls:
            try:
                await call()
            except QuotedInstead:
                pass
            except Exception:  # noqa: BLE001
                pass
    finally:
        _COLLECTING.reset(token)
    return _combine(quotes) if quotes else None


def confirm_quote(client: BaseClient, quote: Optional[Quote], how: str = "confirm=True") -> None:
    """Ask once about a whole run's quote when it passes ``confirm_over``; raises when not confirmed."""
    threshold = client._confirm_over
    if threshold is None or quote is None or _CONFIRMED.get():
        return
    if needs_confirmation(quote, threshold):
        ask(client, quote, threshold, how=how)


def _ask_for_batch(client: BaseClient, quotes: list[Quote], threshold: float) -> None:
    if not quotes:
        return
    combined = _combine(quotes)
    if needs_confirmation(combined, threshold):
        ask(client, combined, threshold, how="confirm=True to map/batch")


def confirmed_call(call: Callable[[], Any]) -> Callable[[], Any]:
    """``call`` with its requests already confirmed (on whatever thread runs it)."""

    def run() -> Any:
        token = _CONFIRMED.set(True)
        try:
            return call()
        finally:
            _CONFIRMED.reset(token)

    return run


def confirmed_async_call(call: Callable[[], Awaitable[Any]]) -> Callable[[], Awaitable[Any]]:
    """:func:`confirmed_call` for a coroutine function."""

    async def run() -> Any:
        token = _CONFIRMED.set(True)
        try:
            return await call()
        finally:
            _CONFIRMED.reset(token)

    return run
