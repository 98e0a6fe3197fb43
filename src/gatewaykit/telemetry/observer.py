"""The request observer that turns gatewaykit's requests into OpenTelemetry spans and metrics.

One span per request (``chat gpt-x``, ``generate_content video-model``), a
child of whatever span is current (``map``, ``compare``, a session's turn);
a video or music job's span runs from its create to its terminal state, with
every poll and a cancel as events. The cost on a span is the ledger row's
amount (so the spans of a run add up to ``ledger.total_cost``), labelled
``provider`` when the gateway reported it and ``local`` when estimated.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from typing import Any, Optional

from opentelemetry.trace import SpanKind

from gatewaykit.telemetry import names as n
from gatewaykit.telemetry.request_metrics import RequestMetrics
from gatewaykit.telemetry.span_attributes import (
    captured_input, cost_of, error_type_of, mark_error, request_attributes, response_attributes,
    server_of, token_counts,
)  # fmt: skip
from gatewaykit.telemetry.trace_context import TraceHeaders
from gatewaykit.types import is_finished

__all__ = ["GatewayTelemetry"]

# The ledger's kind of request -> (gen_ai.operation.name, gen_ai.output.type)
_OPERATIONS = {
    "chat": ("chat", "text"),
    "image": ("generate_content", "image"),
    "video": ("generate_content", "video"),
    "music": ("generate_content", "audio"),
}
_JOB_KINDS = frozenset({"video", "music"})
_FAILED = frozenset({"error", "interrupted"})
_SHAPES_KEPT = 256  # (kind, model, base URL) shapes whose attributes are kept built
_SPAN_AS_OPERATION = {
    "chat_session": "invoke_agent",
}  # every other operation (map, batch, compare, evaluate) is an invoke_workflow


@dataclass(slots=True)
class _Running:
    """What the observer keeps of one request while it runs."""

    span: Any
    started: float
    metric_attributes: dict[str, Any]  # shared by every request of its shape: copied before any change
    observer: Any = None  # the observer that started it ends it, even after uninstrument()
    polls: int = 0


class GatewayTelemetry:
    """A :class:`gatewaykit.client.core.observation.RequestObserver` over a tracer and a meter."""

    def __init__(self, tracer: Any, meter: Any, *, capture_content: bool = False, propagate_context: bool = True) -> None:
        self._tracer = tracer
        self._capture = capture_content
        self._headers = TraceHeaders() if propagate_context else None
        self._jobs: dict[str, _Running] = {}
        self._lock = threading.Lock()
        self._metrics = RequestMetrics(meter)
        self._shapes: dict[tuple[Any, ...], tuple[str, dict[str, Any], dict[str, Any]]] = {}

    # -- a request ---------------------------------------------------------------------------------
    def request_started(self, recording: Any, request: Any, body: dict[str, Any]) -> Any:
        model = body.get("model") or recording.model
        response_format = body.get("response_format")
        structured = isinstance(response_format, dict) and response_format.get("type") in ("json_object", "json_schema")
        key = (recording.kind, model, recording.base_url, structured)
        shape = self._shapes.get(key) or self._shape(key)
        name, attributes, metric_attributes = shape
        attributes = {**attributes, **request_attributes(body)}
        if self._capture:
            attributes.update(captured_input(body))
        span = self._tracer.start_span(name, kind=SpanKind.CLIENT, attributes=attributes)
        recording.observed = _Running(span, time.perf_counter(), metric_attributes, self)
        if self._headers is not None:
            carrier = self._headers.headers_for(span)
            if carrier:  # the request is this call's own (request_pipeline.encode): set on it, not copied
                request.headers = {**request.headers, **carrier} if request.headers else carrier
        return request

    def _shape(self, key: tuple[Any, ...]) -> tuple[str, dict[str, Any], dict[str, Any]]:
        """A request shape's span name, span attributes and metric attributes (kept: built once per shape)."""
        kind, model, base_url, structured = key
        operation, output = _OPERATIONS.get(kind.split(".", 1)[0], ("generate_content", None))
        common: dict[str, Any] = {n.OPERATION_NAME: operation, n.PROVIDER_NAME: n.PROVIDER}
        if model:
            common[n.REQUEST_MODEL] = str(model)
        address, port = server_of(base_url)
        if address:
            common[n.SERVER_ADDRESS] = address
            if port:
                common[n.SERVER_PORT] = port
        attributes = {**common, n.CALL: kind}
        if output is not None:
            attributes[n.OUTPUT_TYPE] = "json" if output == "text" and structured else output
        shape = (f"{operation} {model}" if model else operation, attributes, common)
        if len(self._shapes) >= _SHAPES_KEPT:
            self._shapes.clear()
        self._shapes[key] = shape
        return shape

    def request_finished(
        self, recording: Any, handle: _Running, status: str, fields: dict[str, Any], row: Any
    ) -> None:
        span = handle.span
        if status not in _FAILED and recording.kind not in _JOB_KINDS and not span.is_recording():
            # A span a sampler dropped keeps nothing: only its metrics are worked out, when collected.
            seconds = time.perf_counter() - handle.started
            span.end()
            self._metrics.add_later(
                _DroppedSpanMetrics(fields, row, handle.metric_attributes, span.get_span_context(), seconds)
            )
            return
        usage = fields.get("usage") or {}
        tokens = token_counts(usage)
        values = answer_values(status, recording.attempts, tokens, recording.result, fields.get("images"), self._capture,
                               span.is_recording())  # fmt: skip
        if status == "error":
            mark_error(span, fields.get("error_code") or fields.get("error_type") or "error", fields)
        elif status == "interrupted":
            mark_error(span, "interrupted", fields)
        job_id = fields.get("id")
        if recording.kind in _JOB_KINDS and job_id and status not in _FAILED:
            values[n.JOB_ID] = str(job_id)
            span.add_event(n.JOB_CREATED, {n.JOB_STATUS: status})
            if not is_finished(status):
                span.set_attributes(values)
                with self._lock:
                    self._jobs[str(job_id)] = handle
                return  # the span ends with the job (job_finished)
        self._end(handle, status, row, usage, tokens, values)

    # -- a job ---------------------------------------------------------------------------------
    def job_seen(self, job: Any) -> None:
        with self._lock:
            handle = self._jobs.get(str(job.id))
        if handle is None:
            return
        handle.polls += 1
        if handle.polls > 1:  # the first view is the create's answer, already an event
            handle.span.add_event(n.JOB_POLL, {n.JOB_STATUS: str(job.status)})

    def job_event(self, job: Any, name: str) -> None:
        with self._lock:
            handle = self._jobs.get(str(job.id))
        if handle is not None:
            handle.span.add_event(name, {n.JOB_STATUS: str(job.status)})

    def job_finished(self, job: Any, status: str, row: Any) -> None:
        with self._lock:
            handle = self._jobs.pop(str(job.id), None)
        if handle is None:
            return
        span = handle.span
        values: dict[str, Any] = {n.JOB_STATUS: str(status), n.STATUS: str(status)}
        seconds = getattr(job, "seconds", None)
        try:
            if seconds is not None:
                values[n.JOB_SECONDS] = float(seconds)
        except (TypeError, ValueError):
            pass
        if str(status) == "failed":
            error = getattr(job, "error", None)
            mark_error(span, "job_failed", {"error_message": getattr(error, "message", None)})
        self._end(handle, str(status), row, {}, (None, None), values)

    def job_headers(self, job: Any) -> Optional[dict[str, str]]:
        """The trace headers of a running job's span (its polls and cancel carry them), or None."""
        with self._lock:
            handle = self._jobs.get(str(job.id))
        if handle is None or self._headers is None:
            return None
        return self._headers.headers_for(handle.span)

    # -- parent spans ----------------------------------------------------------------------------
    def operation(self, name: str, attributes: dict[str, Any]) -> Any:
        operation = _SPAN_AS_OPERATION.get(name, "invoke_workflow")
        values: dict[str, Any] = {n.OPERATION_NAME: operation, n.PROVIDER_NAME: n.PROVIDER, n.OPERATION: name}
        if name == "chat_session":
            values[n.AGENT_NAME] = "ChatSession"
            if attributes.get("model"):
                values[n.REQUEST_MODEL] = str(attributes["model"])
        if "items" in attributes:
            values[n.ITEMS] = int(attributes["items"])
        models = attributes.get("models")
        if models and not isinstance(models, str):  # a string is refused by compare/evaluate themselves
            values[n.MODELS] = [str(model) for model in models]
        if attributes.get("cases") is not None:
            values[n.ITEMS] = int(attributes["cases"])
        return self._tracer.start_as_current_span(f"{operation} {name}", kind=SpanKind.INTERNAL, attributes=values)

    def tool_call(self, name: str, call_id: Optional[str]) -> Any:
        values: dict[str, Any] = {n.OPERATION_NAME: "execute_tool", n.TOOL_NAME: name, n.TOOL_TYPE: "function"}
        if call_id:
            values[n.TOOL_CALL_ID] = str(call_id)
        return self._tracer.start_as_current_span(f"execute_tool {name}", kind=SpanKind.INTERNAL, attributes=values)

    def end_open_jobs(self) -> None:
        """End the spans of jobs still running (``uninstrument()``): marked as not seen to the end."""
        with self._lock:
            handles, self._jobs = list(self._jobs.values()), {}
        for handle in handles:
            handle.span.set_attribute(n.STATUS, "not followed to the end")
            handle.span.end()

    def flush(self) -> None:
        """Record the queued request metrics now (``uninstrument()``; a reader's collection does it too)."""
        self._metrics.flush()

    # -- the end of a span -------------------------------------------------------------------------
    def _end(
        self, handle: _Running, status: str, row: Any, usage: dict[str, Any],
        tokens: tuple[Optional[int], Optional[int]], values: dict[str, Any],
    ) -> None:
        span = handle.span
        amount, source = cost_values(values, row, usage)
        span.set_attributes(values)
        seconds = time.perf_counter() - handle.started
        span.end()
        failed = status in ("error", "interrupted", "failed")
        error_type = (error_type_of(span) or status) if failed else None
        metric_attributes = metric_attributes_of(handle.metric_attributes, row, error_type)
        self._metrics.add(span, seconds, metric_attributes, tokens[0], tokens[1], amount, source)


class _DroppedSpanMetrics:
    """A request whose span a sampler dropped: its metric values, worked out when the queue is fed
    (:meth:`RequestMetrics.add_later`), from the few plain values kept here (never the answer)."""

    __slots__ = ("_input_tokens", "_output_tokens", "_usage", "_row", "_metric_base", "span_context", "seconds")

    def __init__(
        self, fields: dict[str, Any], row: Any, metric_base: dict[str, Any], span_context: Any, seconds: float
    ) -> None:  # fmt: skip
        usage = fields.get("usage") or {}
        self._input_tokens, self._output_tokens = token_counts(usage)
        self._usage = usage if row is None else None  # the cost is the row's when there is one
        self._row = row
        self._metric_base = metric_base
        self.span_context = span_context  # what the metrics' exemplars point at (not sampled: none)
        self.seconds = seconds

    def metric_values(self) -> tuple[Any, ...]:
        """(metric attributes, input tokens, output tokens, cost, cost source)."""
        amount, source = cost_values({}, self._row, self._usage or {})
        attributes = metric_attributes_of(self._metric_base, self._row, None)
        return attributes, self._input_tokens, self._output_tokens, amount, source


def answer_values(
    status: str, attempts: Any, tokens: tuple[Optional[int], Optional[int]], result: Any, images: Any,
    capture: bool, recording: bool,
) -> dict[str, Any]:  # fmt: skip
    """The attributes a request's end sets on its span (``recording``: the span keeps attributes; ``images``:
    how many images it made, if any)."""
    values: dict[str, Any] = {n.STATUS: status}  # all set at once: the SDK cleans and locks per call
    if attempts and attempts > 1:  # absent: sent once
        values[n.ATTEMPTS] = attempts
    if tokens[0] is not None:
        values[n.USAGE_INPUT_TOKENS] = tokens[0]
    if tokens[1] is not None:
        values[n.USAGE_OUTPUT_TOKENS] = tokens[1]
    if result is not None and recording:  # a span a sampler dropped keeps nothing
        response_attributes(values, result, capture)
    if images is not None:
        values[n.IMAGE_COUNT] = images
    return values


def cost_values(values: dict[str, Any], row: Any, usage: dict[str, Any]) -> tuple[Optional[float], Optional[str]]:
    """Add the cost attributes to ``values``; (amount, the proposal's source) for the metrics."""
    amount, source, ledger_source = cost_of(row, usage)
    if ledger_source is not None and (source is None or amount is None):  # what the proposal's source cannot say
        values[n.LEDGER_COST_SOURCE] = ledger_source
    if amount is not None:
        values[n.COST_AMOUNT] = amount
        values[n.COST_CURRENCY] = n.CURRENCY
        if source is not None:
            values[n.COST_SOURCE] = source
    return amount, source


def metric_attributes_of(base: dict[str, Any], row: Any, error_type: Optional[str]) -> dict[str, Any]:
    """A request's metric attributes: its shape's (shared: copied before a change), the row's model, the error."""
    model = getattr(row, "model", None) if row is not None else None
    if error_type is None and not (model and n.REQUEST_MODEL not in base):
        return base
    attributes = dict(base)
    if model:
        attributes.setdefault(n.REQUEST_MODEL, model)
    if error_type is not None:
        attributes[n.ERROR_TYPE] = error_type
    return attributes
