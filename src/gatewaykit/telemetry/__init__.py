"""OpenTelemetry for gatewaykit: ``gk.instrument()`` / ``gk.uninstrument()`` (extra ``gatewaykit[otel]``).

A span per request with the GenAI semantic conventions' attributes and the gateway's own cost,
parent spans for ``map``/``batch``/``compare``/``evaluate`` and a session's turns, the conventions'
token and duration metrics plus ``gatewaykit.client.cost``, and ``traceparent`` on every request; all
through OpenTelemetry's public API. Prompts and answers are recorded only when asked
(``capture_content=True`` or ``OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true``). Nothing here
is imported until ``instrument()`` is called; it sits above the client (``client.core.observation``).
"""

from __future__ import annotations

import os
import threading
from typing import Any, Optional

from gatewaykit._version import __version__
from gatewaykit.client.core import observation
from gatewaykit.errors import ConfigurationError

__all__ = ["instrument", "instrumented", "uninstrument"]

_CAPTURE_VARIABLE = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"
_lock = threading.Lock()


def instrument(
    tracer_provider: Any = None, meter_provider: Any = None, *, capture_content: Optional[bool] = None
) -> None:
    """Trace every gatewaykit request in this process (all clients, sync and async).

    ``tracer_provider`` / ``meter_provider``: where spans and metrics go (the
    global providers when omitted, as every instrumentation does). Calling it
    again replaces the providers. ``capture_content``: record prompts and
    answers on the spans (off unless asked; default from
    ``OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT``).
    """
    try:
        from opentelemetry import metrics, trace
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ConfigurationError(
            "gk.instrument() needs OpenTelemetry's API: pip install 'gatewaykit[otel]'"
        ) from exc
    from gatewaykit.telemetry.observer import GatewayTelemetry

    if capture_content is None:
        capture_content = os.environ.get(_CAPTURE_VARIABLE, "").strip().lower() in ("1", "true", "yes")
    tracer = trace.get_tracer("gatewaykit", __version__, tracer_provider=tracer_provider)
    meter = metrics.get_meter("gatewaykit", __version__, meter_provider=meter_provider)
    with _lock:
        _retire(observation.current)
        observation.install(GatewayTelemetry(tracer, meter, capture_content=bool(capture_content)))


def uninstrument() -> None:
    """Stop tracing: requests from now on make no spans (open job spans are ended, queued metrics recorded)."""
    with _lock:
        retired = observation.current
        observation.install(None)
        _retire(retired)


def instrumented() -> bool:
    """Whether :func:`instrument` is in force."""
    return observation.current is not None


def _retire(observer: Any) -> None:
    """An observer being replaced: its open job spans ended, its queued metrics recorded."""
    for method in ("end_open_jobs", "flush"):
        call = getattr(observer, method, None)
        if call is not None:
            call()
