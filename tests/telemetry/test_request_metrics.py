"""The request metrics are queued on the request and recorded when a reader collects them: nothing lost."""

from __future__ import annotations

from typing import Any

import gatewaykit as gk
from gatewaykit.client.core import observation

from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader

from gatewaykit.telemetry import names
from gatewaykit.telemetry.request_metrics import RequestMetrics

CHAT = [{"role": "user", "content": "Name a lake"}]


def _metric_names(reader: InMemoryMetricReader) -> set[str]:
    data = reader.get_metrics_data()
    return {metric.name for resource in (data.resource_metrics if data else ())
            for scope in resource.scope_metrics for metric in scope.metrics}  # fmt: skip


def test_a_request_only_queues_its_metrics_until_a_reader_collects(traces: Any, client: gk.Client) -> None:
    """After a chat its measurements wait in the queue; a collection records all of them, once."""
    queue = observation.current._metrics._queue  # type: ignore[union-attr]
    client.chat.completions.create(model="chat-mini", messages=CHAT)
    client.chat.completions.create(model="chat-mini", messages=CHAT)
    assert len(queue) == 2
    (duration,) = traces.metric_points(names.DURATION_METRIC)
    assert duration.count == 2 and len(queue) == 0
    (again,) = traces.metric_points(names.DURATION_METRIC)
    assert again.count == 2  # cumulative: not recorded twice


def test_the_feeding_instrument_reports_no_metric_of_its_own(traces: Any, client: gk.Client) -> None:
    """Only the three request metrics are exported; the observable instrument that feeds them yields nothing."""
    client.chat.completions.create(model="chat-mini", messages=CHAT)
    assert _metric_names(traces.reader) == {names.TOKEN_USAGE_METRIC, names.DURATION_METRIC, names.COST_METRIC}


def test_each_measurement_s_exemplar_points_at_its_request_s_span(traces: Any, client: gk.Client) -> None:
    """Recorded later, but in the request span's context: the SDK's exemplars name that span."""
    client.chat.completions.create(model="chat-mini", messages=CHAT)
    span = traces.one("chat")
    (duration,) = traces.metric_points(names.DURATION_METRIC)
    assert [(exemplar.trace_id, exemplar.span_id) for exemplar in duration.exemplars] == [
        (span.context.trace_id, span.context.span_id)
    ]


def test_a_queue_no_reader_collects_stays_at_its_limit_and_loses_nothing() -> None:
    """With no collection (a no-op meter, a reader never asked) the queue stays at its limit; sums are whole."""
    reader = InMemoryMetricReader()
    metrics = RequestMetrics(MeterProvider(metric_readers=[reader]).get_meter("test"), limit=3)
    attributes = {names.REQUEST_MODEL: "chat-mini"}
    for _ in range(7):
        metrics.add(None, 0.25, attributes, 10, 20, 0.001, "provider")
    assert len(metrics._queue) == 3  # the 4 oldest recorded, one by each request that found the queue full
    metrics.flush()
    assert len(metrics._queue) == 0
    points = {metric.name: metric.data.data_points for resource in reader.get_metrics_data().resource_metrics
              for scope in resource.scope_metrics for metric in scope.metrics}  # fmt: skip
    (duration,) = points[names.DURATION_METRIC]
    assert duration.count == 7
    assert sorted(point.sum for point in points[names.TOKEN_USAGE_METRIC]) == [70, 140]
    (cost,) = points[names.COST_METRIC]
    assert abs(cost.value - 0.007) < 1e-12 and cost.attributes[names.COST_SOURCE] == "provider"


class _Counted:
    """A request's measurements that count how often they are worked out (the work a request may be given)."""

    worked = 0
    span_context = None
    seconds = 0.25

    def metric_values(self) -> tuple[Any, ...]:
        _Counted.worked += 1
        return {names.REQUEST_MODEL: "chat-mini"}, 10, 20, 0.001, "provider"


def test_a_request_that_finds_the_queue_full_records_one_entry_not_the_whole_queue() -> None:
    """Above limit / 60 s requests per second (the SDK's reader) each request does one entry's work, never a
    whole queue's (4096 entries on one unlucky request: 12% of a 20,000-call loop)."""
    metrics = RequestMetrics(MeterProvider(metric_readers=[InMemoryMetricReader()]).get_meter("test"), limit=50)
    most = 0
    for _ in range(200):
        before = _Counted.worked
        metrics.add_later(_Counted())
        most = max(most, _Counted.worked - before)
    assert most == 1 and len(metrics._queue) == 50


def test_uninstrument_records_what_is_queued(client: gk.Client) -> None:
    """gk.uninstrument() feeds the queue in: a request made just before it is in the next collection."""
    reader = InMemoryMetricReader()
    provider = MeterProvider(metric_readers=[reader])
    gk.instrument(meter_provider=provider)
    try:
        client.chat.completions.create(model="chat-mini", messages=CHAT)
        queue = observation.current._metrics._queue  # type: ignore[union-attr]
        assert len(queue) == 1
    finally:
        gk.uninstrument()
    assert len(queue) == 0
    assert names.DURATION_METRIC in _metric_names(reader)


def test_a_second_instrument_on_the_same_meter_is_still_collected(traces: Any, client: gk.Client) -> None:
    """gk.instrument() again with the same providers: the SDK keeps the first feed instrument's callback,
    and the new observer's queue is fed through it, not left until 4096 requests or uninstrument()."""
    client.chat.completions.create(model="chat-mini", messages=CHAT)
    gk.instrument(tracer_provider=traces.tracer_provider, meter_provider=traces.meter_provider)
    client.chat.completions.create(model="chat-mini", messages=CHAT)
    queue = observation.current._metrics._queue  # type: ignore[union-attr]
    assert len(queue) == 1
    (duration,) = traces.metric_points(names.DURATION_METRIC)
    assert duration.count == 2 and len(queue) == 0


def test_a_request_whose_span_a_sampler_dropped_still_counts_in_every_metric(emulator: Any) -> None:
    """Sampling thins traces, never the metrics: tokens, duration and cost as with a span, and no exemplar."""
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.sampling import ALWAYS_OFF

    from gateway_accounts import ACME_KEY

    points: dict[str, Any] = {}
    for label, provider in (("sampled", TracerProvider()), ("dropped", TracerProvider(sampler=ALWAYS_OFF))):
        reader = InMemoryMetricReader()
        gk.instrument(tracer_provider=provider, meter_provider=MeterProvider(metric_readers=[reader]))
        try:
            with gk.Client(api_key=ACME_KEY, base_url=emulator.base_url, display=False,
                           ledger=gk.Ledger(path=None)) as client:  # fmt: skip
                answer = client.chat.completions.create(model="chat-mini", messages=CHAT, seed=7)
                assert observation.current._metrics._queue  # type: ignore[union-attr]  # queued, not recorded yet
            data = reader.get_metrics_data()
        finally:
            gk.uninstrument()
        found = {metric.name: list(metric.data.data_points) for resource in data.resource_metrics
                 for scope in resource.scope_metrics for metric in scope.metrics}  # fmt: skip
        points[label] = found
        (cost,) = found[names.COST_METRIC]
        assert cost.value == answer.usage.cost.total_cost
        tokens = sorted(point.sum for point in found[names.TOKEN_USAGE_METRIC])
        assert tokens == sorted([answer.usage.prompt_tokens, answer.usage.completion_tokens])
    sampled, dropped = points["sampled"], points["dropped"]
    assert {name: sorted(str(sorted(p.attributes.items())) for p in found) for name, found in dropped.items()} == {
        name: sorted(str(sorted(p.attributes.items())) for p in found) for name, found in sampled.items()}
    (duration,) = dropped[names.DURATION_METRIC]
    assert duration.count == 1 and duration.exemplars == []  # no sampled span to point at


def test_a_queued_request_keeps_neither_its_exported_span_nor_its_answer(client: gk.Client) -> None:
    """Metrics wait for a collection (every 60 s in the SDK's periodic reader), thousands of requests at volume:
    an entry keeps its span's context and its worked-out values, not the exported span, its row or its fields,
    which would otherwise stay alive (and lengthen every garbage collection) until the reader comes."""
    import gc
    import weakref

    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExportResult

    exported: list[Any] = []

    class Reading:  # reads each span as an encoder does and keeps only a weak reference to it
        def export(self, spans: Any) -> Any:
            for span in spans:
                dict(span.attributes or {})
                exported.append((weakref.ref(span), span.context))
            return SpanExportResult.SUCCESS

        def shutdown(self) -> None:
            pass

        def force_flush(self, timeout_millis: int = 0) -> bool:
            return True

    tracer_provider = TracerProvider()
    tracer_provider.add_span_processor(BatchSpanProcessor(Reading()))  # type: ignore[arg-type]
    reader = InMemoryMetricReader()
    gk.instrument(tracer_provider=tracer_provider, meter_provider=MeterProvider(metric_readers=[reader]))
    try:
        answer = client.chat.completions.create(model="chat-mini", messages=CHAT)
        tracer_provider.force_flush()
        ((span_ref, context),) = exported
        ((span_context, _, _),) = observation.current._metrics._queue  # type: ignore[union-attr]
        gc.collect()
        assert span_ref() is None and span_context == context
        data = reader.get_metrics_data()
    finally:
        gk.uninstrument()
        tracer_provider.shutdown()
    found = {metric.name: list(metric.data.data_points) for resource in data.resource_metrics
             for scope in resource.scope_metrics for metric in scope.metrics}  # fmt: skip
    (cost,) = found[names.COST_METRIC]
    assert cost.value == answer.usage.cost.total_cost  # the values survived letting the answer go
    (duration,) = found[names.DURATION_METRIC]
    assert [(e.trace_id, e.span_id) for e in duration.exemplars] == [(context.trace_id, context.span_id)]
