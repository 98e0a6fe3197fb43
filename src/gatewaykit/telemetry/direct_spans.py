"""Request spans handed straight to the SDK's span processors, when the SDK would do nothing more.

OpenTelemetry's SDK spends about 15 µs (no attributes) to 25 µs (ours) of the caller's thread on
``tracer.start_span(...).end()``: locks, ``BoundedAttributes`` cleaning each value twice, an
``on_start`` round through every processor, a second span object for ``on_end``. A request's span
here is built with the SDK's own steps and no more: the parent from the current context, the ids
from the provider's id generator, the provider's sampler asked through ``should_sample`` (its
decision, attributes and trace state used as the SDK uses them; the SDK's own samplers,
``ParentBased(ALWAYS_ON)`` (the default) and ``ParentBased(TraceIdRatioBased(rate))`` among them, answered
here as they answer, without their context look-ups), the tracer's resource and
instrumentation scope; when it ends, the span itself, a ``ReadableSpan`` nothing changes any more,
goes to the processors' ``on_end``. Its attributes are cleaned when first read, and the answer's
(tokens, cost, finish reasons) are worked out then too (:meth:`DirectSpan.end_later`): behind a
batch processor, in its export thread, not in the request's. What reaches an exporter is the span
the SDK would have made (``tests/telemetry/test_direct_spans.py`` exports both and compares them).

Only where nothing else could notice the difference (checked on every request, a few attribute
reads); anything else keeps the SDK's ``start_span`` (``observer.py``):

- the tracer is the SDK's own ``Tracer`` class (a ``ProxyTracer`` once it has resolved to one),
  enabled; not Logfire's, not a wrapper, not the API's no-op;
- its processor is the SDK's ``SynchronousMultiSpanProcessor`` over ``BatchSpanProcessor`` /
  ``SimpleSpanProcessor`` only, exactly those classes: their ``on_start`` and ``_on_ending`` do
  nothing, so skipping them changes nothing; any other processor sees every span start;
- span limits are honoured: values are cleaned (and cut to ``max_span_attribute_length``) by the
  SDK's own cleaner; a count limit a request could reach keeps the SDK's ``BoundedAttributes``.

The SDK's private names (``_active_span_processor`` is the tracer's public ``span_processor``;
``_span_processors``, ``_tracer_config``, ``_tracer_metrics``, ``_span_limits``,
``_instrumentation_scope``) are read with ``getattr`` and a default that turns this path off, so
a change in the SDK only sends requests back to ``start_span``.
"""

from __future__ import annotations

import logging
import random
import threading
import traceback
from time import time_ns
from types import MappingProxyType
from typing import Any, Callable, Mapping, Optional

from opentelemetry import trace as trace_api
from opentelemetry.trace import NonRecordingSpan, SpanContext, SpanKind, Status, StatusCode, TraceFlags

from gatewaykit.telemetry.current_context import current_context, span_key

__all__ = ["DirectSpan", "DirectSpans"]

logger = logging.getLogger(__name__)

_MOST_OWN_ATTRIBUTES = 64  # more than a request's span ever carries (about 30 with content capture)
_PLAIN = frozenset({str, int, float, bool, bytes, type(None)})  # values the SDK's cleaner returns unchanged
_SEQUENCES = frozenset({list, tuple})
_KEYS = frozenset({str})
_FLAGS = {  # (sampled, random trace id) -> the span's trace flags, as Tracer.start_span makes them
    (sampled, random): TraceFlags((TraceFlags.SAMPLED if sampled else TraceFlags.DEFAULT)
                                  | (TraceFlags.RANDOM_TRACE_ID if random else 0))
    for sampled in (False, True) for random in (False, True)
}  # fmt: skip
_UNSET = Status(StatusCode.UNSET)
# One lock for every direct span (a lock of its own is one more object per span a garbage collection walks).
# Held only for a few dictionary steps, or to work in one span's attributes (an exporter's thread, a few µs);
# nothing run under it calls back into a span.
_LOCK = threading.Lock()

try:  # the SDK's pieces; without any of them this path stays off
    from opentelemetry.attributes import BoundedAttributes, _clean_attribute_value
    from opentelemetry.sdk.trace import Event, ReadableSpan, SynchronousMultiSpanProcessor, Tracer
    from opentelemetry.sdk.trace.export import BatchSpanProcessor, SimpleSpanProcessor
    from opentelemetry.sdk.trace.id_generator import RandomIdGenerator
    from opentelemetry.sdk.trace.sampling import Decision, ParentBased, StaticSampler, TraceIdRatioBased
    from opentelemetry.sdk.util import BoundedList

    _QUIET_PROCESSORS: frozenset[type] = frozenset({BatchSpanProcessor, SimpleSpanProcessor})
    # A DirectSpan is read as a ReadableSpan without its __init__: an SDK whose ReadableSpan keeps a field
    # DirectSpan does not set would have exporters read a missing one, so such an SDK keeps start_span.
    _READABLE_FIELDS = frozenset(vars(ReadableSpan("probe", resource=False)))  # type: ignore[arg-type]
except ImportError:  # pragma: no cover - an SDK without them, or only the API installed (gatewaykit[otel])
    Tracer = None  # type: ignore[assignment,misc]
    RandomIdGenerator = None  # type: ignore[assignment,misc]
    ReadableSpan = object  # type: ignore[assignment,misc]  # DirectSpan's base: never made without the SDK
    Decision = ParentBased = StaticSampler = TraceIdRatioBased = None  # type: ignore[assignment,misc]
    _QUIET_PROCESSORS = frozenset()
    _READABLE_FIELDS = frozenset()


def _span_context(trace_id: int, span_id: int, flags: TraceFlags, trace_state: Any) -> SpanContext:
    """``SpanContext(trace_id, span_id, is_remote=False, ...)`` for ids known to be valid (drawn, or a valid
    parent's): the tuple its constructor makes, without its checks (a third of a request's span start)."""
    return _tuple_new(SpanContext, (trace_id, span_id, False, flags, trace_state or _NO_TRACE_STATE, True))


def _span_context_checked(trace_id: int, span_id: int, flags: TraceFlags, trace_state: Any) -> SpanContext:
    return SpanContext(trace_id, span_id, is_remote=False, trace_flags=flags, trace_state=trace_state)


_tuple_new = tuple.__new__
_NO_TRACE_STATE = SpanContext(1, 1, False).trace_state  # the API's shared empty TraceState
if SpanContext(5, 7, False, _FLAGS[True, True], None) != _span_context(5, 7, _FLAGS[True, True], None) or any(
    getattr(SpanContext(5, 7, False), name) != value
    for name, value in (("trace_id", 5), ("span_id", 7), ("is_remote", False), ("is_valid", True))
):  # an API whose SpanContext is not that tuple any more: its constructor, always
    _span_context = _span_context_checked  # noqa: F811


class DirectSpans:
    """Starts request spans without the SDK's ``start_span`` when the tracer allows it (else ``None``)."""

    def __init__(self, tracer: Any) -> None:
        self._tracer = tracer
        self._fixed: Any = None  # (the SDK tracer, what it keeps for its life: processor, limits ...); False: not one
        self._checked_processors: Any = None  # the processor tuple last looked at ...
        self._quiet = False  # ... and whether every one of them is a quiet one
        self._planned: Any = None  # the sampler last looked at ...
        self._plan: Optional[tuple[Any, ...]] = None  # ... and how it decides (_plan_for), None: ask it

    def start(self, name: str, kind: SpanKind, attributes: dict[str, Any]) -> Any:
        """A started span (a :class:`DirectSpan`, or the SDK's ``NonRecordingSpan`` when not sampled), or
        ``None``: this tracer needs ``start_span`` (nothing was done; ask the tracer)."""
        fixed = self._fixed
        if fixed is None:
            fixed = self._fix()
        if not fixed:
            return None
        tracer, processor, limits, scope, info, tracer_metrics = fixed
        if not (tracer._tracer_config.is_enabled and self._processors_quiet(processor)):
            return None
        # From here on, Tracer.start_span's steps, in its order.
        current = current_context().get(span_key)  # trace_api.get_current_span(), without its four calls
        parent: Optional[SpanContext] = None if current is None else current.get_span_context()
        if parent is not None and type(parent) is not SpanContext:
            return None  # the SDK raises on anything but a SpanContext (and a subclass may be odd): let it
        ids = tracer.id_generator
        random_ids = type(ids) is RandomIdGenerator  # its ids drawn here as it draws them, without two calls
        if parent is None or not parent.is_valid:
            parent = None
            trace_id = (random.getrandbits(128) or ids.generate_trace_id()) if random_ids else ids.generate_trace_id()
            random_trace_id = random_ids or ids.is_trace_id_random()
        else:
            trace_id = parent.trace_id
            random_trace_id = parent.trace_flags.random_trace_id
        sampler = tracer.sampler
        plan = self._plan if sampler is self._planned else self._plan_for(sampler)
        if plan is not None:  # the SDK's own samplers: their answer, without their context look-ups
            decision = _decided(plan, parent, trace_id)
            span_attributes = None if decision is Decision.DROP else attributes
            trace_state = None if parent is None else parent.trace_state
        else:
            sampling = sampler.should_sample(None, trace_id, name, kind, attributes, ())
            decision, span_attributes, trace_state = sampling.decision, sampling.attributes, sampling.trace_state
        flags = _FLAGS[decision.is_sampled(), bool(random_trace_id)]
        span_id = (random.getrandbits(64) or ids.generate_span_id()) if random_ids else ids.generate_span_id()
        context = (_span_context if random_ids else _span_context_checked)(trace_id, span_id, flags, trace_state)
        record_end_metrics = tracer_metrics.start_span(parent, decision)
        if not decision.is_recording():
            return NonRecordingSpan(context=context)
        return DirectSpan(
            name, context, parent, kind, tracer.resource, scope, info, span_attributes, limits, processor,
            record_end_metrics,
        )  # fmt: skip

    def _fix(self) -> Any:
        """The SDK ``Tracer`` behind ours and what it keeps for its life; False (kept) for any other tracer,
        None (asked again next time) while a ``ProxyTracer`` has not resolved to one."""
        tracer = self._tracer
        if Tracer is None or span_key is None or not _READABLE_FIELDS <= _SET_BY_DIRECT_SPAN:
            self._fixed = False
            return False
        if type(tracer) is not Tracer:
            if not isinstance(tracer, trace_api.ProxyTracer):
                self._fixed = False
                return False
            tracer = getattr(tracer, "_real_tracer", None)  # resolved once a provider is set
            if tracer is None:
                return None
            if type(tracer) is not Tracer:
                self._fixed = False
                return False
        fixed: Any = (
            tracer, getattr(tracer, "span_processor", None), getattr(tracer, "_span_limits", None),
            getattr(tracer, "_instrumentation_scope", None), getattr(tracer, "instrumentation_info", None),
            getattr(tracer, "_tracer_metrics", None),
        )  # fmt: skip
        if any(part is None for part in fixed) or not hasattr(getattr(tracer, "_tracer_config", None), "is_enabled"):
            fixed = False  # an SDK without the names this path reads: start_span, always
        self._fixed = fixed
        return fixed

    def _plan_for(self, sampler: Any) -> Optional[tuple[Any, ...]]:
        """How ``sampler`` decides, when it is one the SDK's classes make and nothing more (:func:`_decided`),
        kept until the tracer's sampler changes; None: any other sampler, asked through ``should_sample``."""
        plan = _plan_of(sampler)
        self._plan = plan  # first: a thread that sees ``_planned`` is this sampler reads this plan
        self._planned = sampler
        return plan

    def _processors_quiet(self, processor: Any) -> bool:
        """Whether ``processor`` is the SDK's multi-processor over quiet processors only (BatchSpanProcessor ...)."""
        if type(processor) is not SynchronousMultiSpanProcessor:
            return False
        processors = getattr(processor, "_span_processors", None)  # a new tuple on each add_span_processor
        if processors is not self._checked_processors:
            self._quiet = isinstance(processors, tuple) and all(type(each) in _QUIET_PROCESSORS for each in processors)
            self._checked_processors = processors
        return self._quiet


def _plan_of(sampler: Any) -> Optional[tuple[Any, ...]]:
    """(no parent, remote sampled, remote not sampled, local sampled, local not sampled): the ``Decision`` or
    the ``TraceIdRatioBased`` that decides a span with each kind of parent, for the SDK's ``StaticSampler``
    (``ALWAYS_ON``, ``ALWAYS_OFF``), ``TraceIdRatioBased`` and a ``ParentBased`` over them (the default,
    ``ParentBased(ALWAYS_ON)``, and ``ParentBased(TraceIdRatioBased(rate))``, the usual one at volume);
    exactly those classes: a subclass may decide otherwise. None for any other sampler."""

    def deciding(each: Any) -> Any:
        if type(each) is StaticSampler and isinstance(getattr(each, "_decision", None), Decision):
            return each._decision
        if (type(each) is TraceIdRatioBased and isinstance(getattr(each, "_bound", None), int)
                and getattr(TraceIdRatioBased, "TRACE_ID_LIMIT", None) == _TRACE_ID_LOW_BITS):
            return each
        return None

    if Decision is None:  # pragma: no cover - no SDK
        return None
    if type(sampler) is not ParentBased:
        alone = deciding(sampler)  # the same answer whatever the parent (a ratio sampler reads the trace id)
        return None if alone is None else (alone,) * 5
    delegates = [getattr(sampler, name, None) for name in ("_root", "_remote_parent_sampled",
                 "_remote_parent_not_sampled", "_local_parent_sampled", "_local_parent_not_sampled")]  # fmt: skip
    plan = tuple(map(deciding, delegates))
    return None if any(each is None for each in plan) else plan


def _decided(plan: tuple[Any, ...], parent: Optional[SpanContext], trace_id: int) -> Any:
    """The ``Decision`` the planned sampler makes for a span of ``trace_id`` under ``parent`` (None: a root),
    as its ``should_sample`` makes it."""
    if parent is None:
        which = plan[0]
    elif parent.is_remote:
        which = plan[1] if parent.trace_flags.sampled else plan[2]
    else:
        which = plan[3] if parent.trace_flags.sampled else plan[4]
    if type(which) is Decision:
        return which
    return Decision.RECORD_AND_SAMPLE if trace_id & _TRACE_ID_LOW_BITS < which._bound else Decision.DROP


_TRACE_ID_LOW_BITS = (1 << 64) - 1  # TraceIdRatioBased.TRACE_ID_LIMIT: it decides on a trace id's low 64 bits


class DirectSpan(trace_api.Span, ReadableSpan):
    """A recording span with the SDK ``Span``'s behaviour for what a request's span is asked, and the
    ``ReadableSpan`` the processors' ``on_end`` gets when it ends (itself: nothing changes it once ended).

    Its attributes are kept as they are given (the start's, each ``set_attributes``, and at most one
    :meth:`end_later` callable) and worked into the SDK's cleaned mapping the first time anything reads
    them: an exporter, in the batch processor's thread, or the metrics' collection. What they come to is
    what setting them in that order would have made; a request pays for none of the cleaning. With a
    count limit a request could reach, the SDK's ``BoundedAttributes`` take each value as it comes.
    """

    __slots__ = (
        "_name", "_context", "_parent", "_kind", "_resource", "_instrumentation_scope", "_instrumentation_info",
        "_limits", "_processor", "_record_end_metrics", "_status", "_events", "_links", "_start_time", "_end_time",
        "_given", "_later", "_bounded", "_store",
    )  # fmt: skip

    def __init__(
        self, name: str, context: SpanContext, parent: Optional[SpanContext], kind: SpanKind, resource: Any,
        scope: Any, info: Any, attributes: Optional[Mapping[str, Any]], limits: Any, processor: Any,
        record_end_metrics: Any,
    ) -> None:  # fmt: skip
        self._name = name
        self._context = context
        self._parent = parent
        self._kind = kind
        self._resource = resource
        self._instrumentation_scope = scope
        self._instrumentation_info = info
        self._limits = limits
        self._processor = processor
        self._record_end_metrics = record_end_metrics
        self._status = _UNSET
        self._events: Any = ()
        self._links = ()
        self._end_time: Optional[int] = None
        # What was set and is not worked in yet: the start's attributes (a mapping), or a list once more are
        # set; and ``end_later``'s callable. A request's span holds no other object of its own until it is
        # exported: thousands wait in a batch processor's queue, and each object they hold lengthens every
        # garbage collection meanwhile (``benchmarks/telemetry.py``).
        self._given: Any = attributes if attributes else None
        self._later: Optional[Callable[[], Mapping[str, Any]]] = None
        self._bounded = False  # True: the SDK's BoundedAttributes take each value as it comes
        self._store: Any = None  # the cleaned attributes once worked out
        count_limit = limits.max_span_attributes
        if count_limit is not None and len(attributes or ()) + _MOST_OWN_ATTRIBUTES > count_limit:
            # a limit a request could reach: the SDK's own container, which drops the oldest as it does
            self._store = BoundedAttributes(
                count_limit, attributes, immutable=False, max_value_len=limits.max_span_attribute_length
            )
            self._given, self._bounded = None, True
        self._start_time = time_ns()

    # -- what the observer asks of a span ------------------------------------------------------------
    def get_span_context(self) -> SpanContext:
        return self._context  # type: ignore[return-value]  # always set here (ReadableSpan's may be None)

    def is_recording(self) -> bool:
        return self._end_time is None

    @property  # what ReadableSpan's properties, to_json and exporters read (theirs is a plain attribute)
    def _attributes(self) -> Any:  # type: ignore[override]
        if self._given is not None or self._later is not None:
            self._work_in()
        store = self._store
        return {} if store is None else store

    @property
    def attributes(self) -> Mapping[str, Any]:
        return MappingProxyType(self._attributes)

    def set_attributes(self, attributes: Mapping[str, Any]) -> None:
        with _LOCK:
            ended = self._end_time is not None
            if ended:
                pass
            elif self._bounded:
                self._store._set_items(attributes)
            else:
                given, copy = self._given, dict(attributes)  # the caller's mapping may change after this call
                if given is None:
                    self._given = copy
                elif type(given) is list:
                    given.append(copy)
                else:
                    self._given = [given, copy]
        if ended:
            logger.warning("Setting attribute on ended span.")

    def set_attribute(self, key: str, value: Any) -> None:
        self.set_attributes({key: value})

    def set_status(self, status: Any, description: Optional[str] = None) -> None:
        if self._end_time is not None:
            logger.warning("Calling set_status on an ended span.")
            return
        if isinstance(status, Status):  # the SDK's rules: OK is final, UNSET is ignored
            if self._status.status_code is StatusCode.OK or status.status_code is StatusCode.UNSET:
                return
            if description is not None:
                logger.warning(
                    "Description %s ignored. Use either `Status` or `(StatusCode, Description)`", description
                )
            self._status = status
        elif isinstance(status, StatusCode):
            if self._status.status_code is StatusCode.OK or status is StatusCode.UNSET:
                return
            self._status = Status(status, description)

    def add_event(self, name: str, attributes: Any = None, timestamp: Optional[int] = None) -> None:
        limits = self._limits
        event = Event(
            name=name,
            attributes=BoundedAttributes(
                limits.max_event_attributes, attributes, max_value_len=limits.max_attribute_length, immutable=True
            ),
            timestamp=timestamp,
        )
        with _LOCK:
            ended = self._end_time is not None
            if not ended:
                if not self._events:
                    self._events = BoundedList(limits.max_events)
                self._events.append(event)
        if ended:
            logger.warning("Calling add_event on an ended span.")

    def end(self, end_time: Optional[int] = None) -> None:
        self._end(None, end_time)

    def end_later(self, last_attributes: Callable[[], Mapping[str, Any]]) -> None:
        """End now; ``last_attributes()`` (the answer's values) is set last, when the attributes are first read.

        It must give the same values whenever it is called, and not fail (a failure is logged and its values
        left out): it may run in an exporter's thread."""
        self._end(last_attributes, None)

    def _end(self, last_attributes: Optional[Callable[[], Mapping[str, Any]]], end_time: Optional[int]) -> None:
        with _LOCK:
            ended = self._end_time is not None
            if not ended:
                self._end_time = end_time if end_time is not None else time_ns()
                if not self._bounded:
                    self._later = last_attributes
        if ended:
            logger.warning("Calling end() on an ended span.")
            return
        if self._bounded:  # the SDK's container: its values now, then frozen, as the SDK does (nothing else
            if last_attributes is not None:  # changes an ended span, so no lock is needed)
                self._store._set_items(_values_of(last_attributes))
            self._store._immutable = True
        self._record_end_metrics()
        self._processor.on_end(self)

    def _work_in(self) -> None:
        """Clean what was given into the store, in the order it was given (once; from any thread)."""
        with _LOCK:
            given, later = self._given, self._later
            if given is None and later is None:
                return
            if self._store is None:
                self._store = {}
            if given is not None:
                for each in given if type(given) is list else (given,):
                    self._set(each)
            if later is not None:
                self._set(_values_of(later))
            if self._end_time is not None and type(self._store) is not dict:
                self._store._immutable = True  # ended: frozen, as the SDK's is
            self._given = self._later = None  # only now: a reader that saw them waits on the lock, then reads all

    # -- the rest of the Span API (a request's span is not asked these; kept correct all the same) -----
    def update_name(self, name: str) -> None:
        if self._end_time is None:
            self._name = name

    def record_exception(
        self, exception: BaseException, attributes: Any = None, timestamp: Optional[int] = None, escaped: bool = False
    ) -> None:
        module, name = type(exception).__module__, type(exception).__qualname__
        values = {  # the SDK's exception event
            "exception.type": f"{module}.{name}" if module and module != "builtins" else name,
            "exception.message": str(exception),
            "exception.stacktrace": "".join(traceback.format_exception(exception)),
            "exception.escaped": str(escaped),
        }
        self.add_event("exception", {**values, **(attributes or {})}, timestamp)

    # -- the SDK's cleaning of attribute values ------------------------------------------------------
    def _set(self, attributes: Mapping[str, Any]) -> None:
        """``BoundedAttributes._set_items`` without a count limit: values cleaned, a key set again moves last."""
        store = self._store
        if type(store) is not dict:  # the SDK's container
            store._set_items(attributes)
            return
        max_length = self._limits.max_span_attribute_length
        if (
            max_length is None and _PLAIN.issuperset(map(type, attributes.values()))
            and store.keys().isdisjoint(attributes) and _KEYS.issuperset(map(type, attributes)) and "" not in attributes
        ):  # the common case, checked in C: plain values, new string keys (what the loop below would do)
            store.update(attributes)
            return
        for key, value in attributes.items():
            if type(key) is not str or not key:  # a key the SDK drops or converts (and counts): its container
                self._store = BoundedAttributes(
                    self._limits.max_span_attributes, store, immutable=False, max_value_len=max_length
                )
                self._store._set_items(attributes)
                return
            kind = type(value)
            if kind in _SEQUENCES and max_length is None and _PLAIN.issuperset(map(type, value)):
                value = tuple(value)  # a list of plain values: the tuple the SDK's cleaner makes of it
            elif kind not in _PLAIN or (max_length is not None and kind is str):
                value = _clean_attribute_value(value, max_length)  # anything else, long strings cut: the SDK's
            if key in store:
                del store[key]
            store[key] = value


_SET_BY_DIRECT_SPAN = frozenset(DirectSpan.__slots__) | {"_attributes"}  # what ReadableSpan's readers may read


def _values_of(last_attributes: Callable[[], Mapping[str, Any]]) -> Mapping[str, Any]:
    """What an ``end_later`` callable gives; nothing (logged) if it fails: a span is never lost to it."""
    try:
        return last_attributes()
    except Exception:  # noqa: BLE001 - it may run in an exporter's thread, which must go on
        logger.exception("gatewaykit: a request span's last attributes could not be worked out")
        return {}
