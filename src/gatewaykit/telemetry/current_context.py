"""OpenTelemetry's current context, read the way its default runtime context keeps it.

``opentelemetry.trace.get_current_span()`` and ``opentelemetry.baggage.get_all()`` each reach the
context variable through four calls (``get_value`` -> ``get_current`` -> the runtime context's
``get_current`` -> ``ContextVar.get``); a request asks for both. With the default runtime context
(``ContextVarsRuntimeContext``, unless ``OTEL_PYTHON_CONTEXT`` names another) this reads its
context variable directly, checked on every call (the runtime context is a module global a test or
a library may replace); with any other, it asks the API.
"""

from __future__ import annotations

from typing import Any, Mapping

import opentelemetry.context as _api

__all__ = ["baggage_key", "current_context", "span_key"]

try:  # the keys the API files the current span and the baggage under (private names: else the API's own reads)
    from opentelemetry.baggage import _BAGGAGE_KEY as baggage_key
    from opentelemetry.context.contextvars_context import ContextVarsRuntimeContext
    from opentelemetry.trace.propagation import _SPAN_KEY as span_key
except ImportError:  # pragma: no cover - an API without them
    ContextVarsRuntimeContext = None  # type: ignore[assignment,misc]
    baggage_key = span_key = None  # type: ignore[assignment]  # their users keep the API's own reads


def current_context() -> Mapping[str, Any]:
    """The current context: ``.get(span_key)`` is the current span (None for none), ``.get(baggage_key)`` the
    baggage; what ``opentelemetry.context.get_current()`` returns."""
    runtime = getattr(_api, "_RUNTIME_CONTEXT", None)
    if type(runtime) is ContextVarsRuntimeContext:
        current = getattr(runtime, "_current_context", None)
        if current is not None:
            return current.get()
    return _api.get_current()
