"""The current context read directly (``telemetry/current_context.py``) is the one the API's reads give."""

from __future__ import annotations

import contextvars
from typing import Any

import opentelemetry.context as otel_context
from opentelemetry import baggage, trace
from opentelemetry.context.context import Context, _RuntimeContext
from opentelemetry.trace import NonRecordingSpan, SpanContext

from gatewaykit.telemetry.current_context import baggage_key, current_context, span_key


def _in_a_span_with_baggage() -> tuple[Any, Any, Any]:
    """(the current span, the API's baggage, what current_context() finds) inside a span with baggage set."""
    span = NonRecordingSpan(SpanContext(0xAB, 0xCD, is_remote=False))
    token = otel_context.attach(baggage.set_baggage("team", "vision"))
    try:
        with trace.use_span(span):
            found = current_context()
            return trace.get_current_span(), dict(baggage.get_all()), (found.get(span_key), found.get(baggage_key))
    finally:
        otel_context.detach(token)


def test_the_default_runtime_context_is_read_directly_and_finds_what_the_api_finds() -> None:
    assert current_context() is otel_context.get_current()
    span, values, (found_span, found_baggage) = _in_a_span_with_baggage()
    assert found_span is span and found_baggage == values == {"team": "vision"}
    assert current_context().get(span_key) is None  # left the span: nothing current


class OwnRuntimeContext(_RuntimeContext):
    """A runtime context of a library's own (``OTEL_PYTHON_CONTEXT`` may name one): its own variable."""

    def __init__(self) -> None:
        self.variable: contextvars.ContextVar[Context] = contextvars.ContextVar("own", default=Context())
        self.asked = 0

    def attach(self, context: Context) -> object:
        return self.variable.set(context)

    def get_current(self) -> Context:
        self.asked += 1
        return self.variable.get()

    def detach(self, token: object) -> None:
        self.variable.reset(token)  # type: ignore[arg-type]


def test_another_runtime_context_is_asked_through_the_api(monkeypatch: Any) -> None:
    own = OwnRuntimeContext()
    monkeypatch.setattr(otel_context, "_RUNTIME_CONTEXT", own)
    span, values, (found_span, found_baggage) = _in_a_span_with_baggage()
    assert found_span is span and found_baggage == values == {"team": "vision"}
    assert own.asked > 0
