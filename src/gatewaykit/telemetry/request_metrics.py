"""The request metrics, queued on each request and recorded when a metric reader collects them.

``gen_ai.client.token.usage``, ``gen_ai.client.operation.duration`` and ``gatewaykit.client.cost``
take four instrument calls per request; a request only appends one entry to a queue, which an
observable instrument's callback feeds into the instruments when a reader collects (in the reader's
thread), or :meth:`RequestMetrics.flush` does. The queue is bounded: once it holds ``limit`` entries,
each new request records the oldest one, so a request never does more than one entry's work
however long the reader waits. Each measurement is recorded in its request span's context (exemplars).
"""

from __future__ import annotations

import threading
import weakref
from collections import deque
from typing import Any, Iterable, Optional, Protocol

from opentelemetry import trace
from opentelemetry.trace import NonRecordingSpan

from gatewaykit.telemetry import names as n

__all__ = ["RequestMetrics"]

_INPUT = {n.TOKEN_TYPE: "input"}
_OUTPUT = {n.TOKEN_TYPE: "output"}


class LaterMeasurements(Protocol):
    """A request's measurements, worked out when recorded (``observer._DroppedSpanMetrics``)."""

    span_context: Any  # the request span's context (None: none), which the exemplars point at
    seconds: float  # the request's duration

    def metric_values(self) -> tuple[Any, ...]:
        """(metric attributes, input tokens, output tokens, cost, cost source), as :meth:`RequestMetrics.add`
        takes them."""
        ...


class RequestMetrics:
    """The three request metrics of one meter, with a queue in front of them."""

    def __init__(self, meter: Any, *, limit: int = 4096) -> None:
        self._limit = limit
        self._queue: deque[Any] = deque()  # (span context, seconds, values) tuples and LaterMeasurements  # append / popleft are atomic: no lock on the request path
        self._feeding = threading.Lock()
        self._tokens = meter.create_histogram(
            n.TOKEN_USAGE_METRIC, unit="{token}", description="Input and output tokens of each request"
        )
        self._duration = meter.create_histogram(
            n.DURATION_METRIC, unit="s", description="Each request's duration (a job's: create to its end)"
        )
        self._cost = meter.create_counter(
            n.COST_METRIC, unit="USD", description="What the gateway charged (or the ledger estimated), in USD"
        )
        _feed_of(meter).add(self)

    def add(
        self,
        span: Any,
        seconds: float,
        attributes: dict[str, Any],
        input_tokens: Optional[int],
        output_tokens: Optional[int],
        cost: Optional[float],
        cost_source: Optional[str],
    ) -> None:
        """Queue one request's measurements (``attributes``: the metric attributes, not copied, not changed)."""
        self._queue_entry(span, seconds, (attributes, input_tokens, output_tokens, cost, cost_source))

    def add_later(self, entry: "LaterMeasurements") -> None:
        """Queue one request's measurements, worked out when recorded (``entry`` is queued as it is)."""
        self._make_room()
        self._queue.append(entry)

    def _queue_entry(self, span: Any, seconds: float, values: Any) -> None:
        # the span's context, not the span: all an exemplar reads of it, and an exported span is not kept alive
        self._make_room()
        self._queue.append((None if span is None else span.get_span_context(), seconds, values))

    def _make_room(self) -> None:
        """A full queue (the reader is late, or there is none): record its oldest entry, one, not all of them."""
        if len(self._queue) >= self._limit:
            try:
                entry = self._queue.popleft()
            except IndexError:  # a collection emptied it meanwhile
                return
            self._record(entry)

    def flush(self) -> None:
        """Record every queued request's measurements in the instruments now."""
        with self._feeding:  # one feeder at a time; requests keep appending meanwhile
            queue = self._queue
            while queue:
                try:
                    entry = queue.popleft()
                except IndexError:
                    break
                self._record(entry)

    def _record(self, entry: Any) -> None:
        if type(entry) is tuple:
            span_context, seconds, values = entry
        else:
            span_context, seconds, values = entry.span_context, entry.seconds, entry.metric_values()
        attributes, input_tokens, output_tokens, cost, source = values
        context = None if span_context is None else trace.set_span_in_context(NonRecordingSpan(span_context))
        self._duration.record(seconds, attributes, context=context)
        if input_tokens is not None:
            self._tokens.record(input_tokens, {**attributes, **_INPUT}, context=context)
        if output_tokens is not None:
            self._tokens.record(output_tokens, {**attributes, **_OUTPUT}, context=context)
        if cost:
            self._cost.add(cost, {**attributes, n.COST_SOURCE: source or "none"}, context=context)


# meter -> the RequestMetrics its feed instrument flushes. The SDK registers an instrument name once per
# meter and keeps the first registration's callbacks, so a later gk.instrument() on the same meter joins
# the feed the first one registered instead of registering a callback the SDK would ignore.
_feeds: "weakref.WeakKeyDictionary[Any, weakref.WeakSet[RequestMetrics]]" = weakref.WeakKeyDictionary()
_feeds_lock = threading.Lock()


def _feed_of(meter: Any) -> "weakref.WeakSet[RequestMetrics]":
    """The set of queues ``meter``'s feed instrument flushes when a reader collects (registered once)."""
    with _feeds_lock:
        try:
            fed = _feeds.get(meter)
        except TypeError:  # a meter that cannot be weakly referenced: a feed of its own each time
            fed = None
        else:
            if fed is not None:
                return fed
        fed = weakref.WeakSet()

        def collected(options: Any) -> Iterable[Any]:
            for metrics in list(fed):
                metrics.flush()
            return ()

        meter.create_observable_gauge(
            n.METRICS_FEED,
            callbacks=[collected],
            description="Reports nothing: feeds gatewaykit's queued request metrics to a collecting reader",
        )
        try:
            _feeds[meter] = fed
        except TypeError:
            pass
        return fed
