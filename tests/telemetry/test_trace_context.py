"""Trace context on the wire: the headers each request carries, and a job's polls inside the job's trace."""

from __future__ import annotations

import logging
from typing import Any, Iterator

import pytest

import gatewaykit as gk
from opentelemetry import baggage, context, propagate
from opentelemetry.propagators.composite import CompositePropagator
from opentelemetry.propagators.textmap import TextMapPropagator
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.trace import NonRecordingSpan, SpanContext, TraceFlags, TraceState

from gatewaykit.telemetry.trace_context import TraceHeaders


def _what_the_propagator_writes(span: Any) -> dict[str, str]:
    from opentelemetry import trace

    carrier: dict[str, str] = {}
    propagate.inject(carrier, context=trace.set_span_in_context(span))
    return carrier


@pytest.fixture
def span() -> Iterator[Any]:
    made = TracerProvider().get_tracer("test").start_span("chat")
    yield made
    made.end()


def test_the_default_propagator_s_traceparent_is_written_as_it_would_write_it(span: Any) -> None:
    """Sampled, unsampled and trace-state spans: the headers are exactly what propagate.inject writes."""
    headers = TraceHeaders()
    assert headers.headers_for(span) == _what_the_propagator_writes(span)
    ids = span.get_span_context()
    unsampled = NonRecordingSpan(SpanContext(ids.trace_id, ids.span_id, is_remote=False, trace_flags=TraceFlags(0)))
    assert headers.headers_for(unsampled) == _what_the_propagator_writes(unsampled)
    assert headers.headers_for(unsampled)["traceparent"].endswith("-00")
    stated = NonRecordingSpan(SpanContext(ids.trace_id, ids.span_id, is_remote=False,
                                          trace_flags=TraceFlags(1), trace_state=TraceState([("vendor", "x1")])))  # fmt: skip
    assert headers.headers_for(stated) == _what_the_propagator_writes(stated)
    assert headers.headers_for(stated)["tracestate"] == "vendor=x1"
    assert headers.headers_for(NonRecordingSpan(SpanContext(0, 0, is_remote=False))) is None


def test_baggage_in_the_context_is_sent_too(span: Any) -> None:
    """With baggage set the default propagator's baggage header goes with the traceparent."""
    token = context.attach(baggage.set_baggage("team", "vision"))
    try:
        sent = TraceHeaders().headers_for(span)
    finally:
        context.detach(token)
    assert sent is not None and sent["baggage"] == "team=vision" and "traceparent" in sent


class _VendorPropagator(TextMapPropagator):
    """A propagator of another format (as B3 or a vendor's would be)."""

    def extract(self, carrier: Any, context: Any = None, getter: Any = None) -> Any:
        return context

    def inject(self, carrier: Any, context: Any = None, setter: Any = None) -> None:
        from opentelemetry import trace

        carrier["x-vendor-trace"] = format(trace.get_current_span(context).get_span_context().trace_id, "032x")

    @property
    def fields(self) -> set[str]:
        return {"x-vendor-trace"}


def test_another_global_propagator_is_always_asked(span: Any) -> None:
    """set_global_textmap(...) after the first request: the next request's headers are that propagator's."""
    headers = TraceHeaders()
    assert "traceparent" in (headers.headers_for(span) or {})
    default = propagate.get_global_textmap()
    propagate.set_global_textmap(CompositePropagator([_VendorPropagator()]))
    try:
        sent = headers.headers_for(span)
    finally:
        propagate.set_global_textmap(default)
    assert sent == {"x-vendor-trace": format(span.get_span_context().trace_id, "032x")}


def _logged(caplog: Any, method: str, path: str) -> list[Any]:
    return [record for record in caplog.records
            if record.name == "gatewaykit.emulator.trace" and record.getMessage().startswith(f"{method} {path} ")]  # fmt: skip


def test_a_job_s_polls_carry_the_job_s_span_and_the_gateway_logs_them_in_its_trace(
    traces: Any, client: gk.Client, caplog: Any
) -> None:
    """Every GET of a video job while it runs carries the job span's traceparent; the gateway logs that trace."""
    with caplog.at_level(logging.INFO, logger="gatewaykit.emulator.trace"):
        job = client.videos.create(model=client.models.pick("video"), prompt="waves on rocks")
        job.wait(timeout=60)
    span = traces.one("generate_content")
    trace_id, span_id = format(span.context.trace_id, "032x"), format(span.context.span_id, "016x")
    polls = _logged(caplog, "GET", f"/v1/videos/{job.id}")
    assert len(polls) >= 1, [record.getMessage() for record in caplog.records]
    assert all(record.trace_id == trace_id and record.span_id == span_id for record in polls)
    (create,) = _logged(caplog, "POST", "/v1/videos")
    assert (create.trace_id, create.span_id) == (trace_id, span_id)


def test_a_job_s_cancel_is_sent_in_the_job_s_trace(traces: Any, caplog: Any) -> None:
    """The DELETE of a running job carries its span's traceparent too (a gateway whose jobs take real time)."""
    with gk.emulator.start(time_scale=1.0) as gateway, gk.Client(
        api_key=gateway.api_key, base_url=gateway.base_url, display=False, ledger=gk.Ledger(path=None)
    ) as slow:
        with caplog.at_level(logging.INFO, logger="gatewaykit.emulator.trace"):
            job = slow.videos.create(model=slow.models.pick("video"), prompt="a slow sunrise")
            job.refresh()
            assert job.status in ("queued", "in_progress"), job.status
            job.cancel()
    span = traces.one("generate_content")
    trace_id = format(span.context.trace_id, "032x")
    (cancel,) = _logged(caplog, "DELETE", f"/v1/videos/{job.id}")
    assert cancel.trace_id == trace_id and cancel.span_id == format(span.context.span_id, "016x")
    assert [record.trace_id for record in _logged(caplog, "GET", f"/v1/videos/{job.id}")] == [trace_id]


def test_no_trace_headers_on_polls_of_a_job_not_followed(client: gk.Client, caplog: Any) -> None:
    """Telemetry off: a job's polls carry no traceparent (the gateway logs none)."""
    with caplog.at_level(logging.INFO, logger="gatewaykit.emulator.trace"):
        job = client.videos.create(model=client.models.pick("video"), prompt="waves")
        job.wait(timeout=60)
    assert _logged(caplog, "GET", f"/v1/videos/{job.id}") == []
