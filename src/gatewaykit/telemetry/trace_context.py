"""The ``traceparent`` (and ``tracestate`` / ``baggage``) headers a request carries to the gateway.

OpenTelemetry's global propagator writes them; when that propagator is the
default one (W3C trace context + W3C baggage) and there is no baggage or trace
state to send, the one header it would write is ``traceparent``, which this
module formats itself: the same text, without the propagator's context object
and its two context look-ups per request (``benchmarks/telemetry.py``). Any
other propagator (B3, Jaeger, a vendor's) is always asked.
"""

from __future__ import annotations

from typing import Any, Optional

from opentelemetry import baggage, propagate, trace
from opentelemetry.baggage.propagation import W3CBaggagePropagator
from opentelemetry.propagators.composite import CompositePropagator
from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator

from gatewaykit.telemetry.current_context import baggage_key, current_context

__all__ = ["TraceHeaders"]


class TraceHeaders:
    """The headers that carry a span's context: ``headers_for(span)`` (empty for no valid context)."""

    def __init__(self) -> None:
        self._checked: Any = None  # the global propagator last looked at
        self._default = False  # ... and whether it is the default one

    def headers_for(self, span: Any) -> Optional[dict[str, str]]:
        textmap = propagate.get_global_textmap()
        if textmap is not self._checked:  # set_global_textmap() may be called at any time
            self._default = _is_default(textmap)
            self._checked = textmap
        context = span.get_span_context()
        if self._default and not context.trace_state and not _baggage():
            if not context.is_valid:
                return None
            return {"traceparent": "00-%032x-%016x-%02x" % (context.trace_id, context.span_id, context.trace_flags)}
        carrier: dict[str, str] = {}
        textmap.inject(carrier, context=trace.set_span_in_context(span))
        return carrier or None


def _baggage() -> Any:
    """The current context's baggage (empty: nothing to send), as ``baggage.get_all()`` finds it."""
    if baggage_key is None:
        return baggage.get_all()
    values = current_context().get(baggage_key)
    return values if isinstance(values, dict) else None


def _is_default(textmap: Any) -> bool:
    """Whether ``textmap`` is OpenTelemetry's default: W3C trace context, then W3C baggage, nothing else."""
    if type(textmap) is not CompositePropagator:
        return False
    kinds = [type(propagator) for propagator in getattr(textmap, "_propagators", ())]
    return kinds in ([TraceContextTextMapPropagator, W3CBaggagePropagator], [TraceContextTextMapPropagator])
