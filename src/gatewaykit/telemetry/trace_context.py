"""The trace headers a request carries to the gateway (``traceparent``, and ``tracestate`` / ``baggage``).

OpenTelemetry's global propagator decides them. When it writes W3C trace context as the default
one does (checked once per propagator, through its public ``fields`` and ``inject``) and there is no
trace state or baggage to send, ``traceparent`` is formatted here: the same text, without the
propagator's context object and look-ups (a sixth of a traced request's cost in the caller's thread).
"""

from __future__ import annotations

from typing import Any, Optional

from opentelemetry import baggage, propagate, trace
from opentelemetry.context import Context
from opentelemetry.trace import NonRecordingSpan, SpanContext, TraceFlags

__all__ = ["TraceHeaders"]

_W3C_FIELDS = ({"traceparent", "tracestate"}, {"traceparent", "tracestate", "baggage"})
_PROBE = SpanContext(0x0AF7651916CD43DD8448EB211C80319C, 0xB7AD6B7169203331, is_remote=False,
                     trace_flags=TraceFlags(TraceFlags.SAMPLED))  # fmt: skip


class TraceHeaders:
    """The headers that carry a span's context: ``headers_for(span)`` (None when the propagator writes none)."""

    def __init__(self) -> None:
        self._checked: Any = None  # the global propagator last looked at ...
        self._w3c = False  # ... and whether it writes traceparent as formatted here

    def headers_for(self, span: Any) -> Optional[dict[str, str]]:
        textmap = propagate.get_global_textmap()
        if textmap is not self._checked:  # set_global_textmap() may be called at any time
            self._w3c = _writes_w3c(textmap)
            self._checked = textmap
        context = span.get_span_context()
        if self._w3c and not context.trace_state and not baggage.get_all():
            return {"traceparent": _traceparent(context)} if context.is_valid else None
        carrier: dict[str, str] = {}
        textmap.inject(carrier, context=trace.set_span_in_context(span))
        return carrier or None


def _traceparent(context: SpanContext) -> str:
    return "00-%032x-%016x-%02x" % (context.trace_id, context.span_id, context.trace_flags)


def _writes_w3c(textmap: Any) -> bool:
    """Whether ``textmap`` names W3C's fields only and writes a probe span's ``traceparent`` as formatted here."""
    try:
        if set(textmap.fields) not in _W3C_FIELDS:
            return False
        carrier: dict[str, str] = {}
        textmap.inject(carrier, context=trace.set_span_in_context(NonRecordingSpan(_PROBE), Context()))
    except Exception:  # noqa: BLE001 - a propagator of the user's that fails here is simply always asked
        return False
    return carrier == {"traceparent": _traceparent(_PROBE)}
