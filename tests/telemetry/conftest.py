"""Telemetry fixtures: OpenTelemetry's SDK with in-memory exporters, installed with gk.instrument()."""

from __future__ import annotations

from typing import Any, Iterator

import pytest

import gatewaykit as gk
from gateway_accounts import ACME_KEY

pytest.importorskip("opentelemetry.sdk", reason="the [test] extra installs opentelemetry-sdk")

from opentelemetry.sdk.metrics import MeterProvider  # noqa: E402
from opentelemetry.sdk.metrics.export import InMemoryMetricReader  # noqa: E402
from opentelemetry.sdk.trace import TracerProvider  # noqa: E402
from opentelemetry.sdk.trace.export import SimpleSpanProcessor  # noqa: E402
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter  # noqa: E402


class Traces:
    """What the SDK received: finished spans and the metrics' data points."""

    def __init__(self) -> None:
        self.exporter = InMemorySpanExporter()
        self.tracer_provider = TracerProvider()
        self.tracer_provider.add_span_processor(SimpleSpanProcessor(self.exporter))
        self.reader = InMemoryMetricReader()
        self.meter_provider = MeterProvider(metric_readers=[self.reader])

    def spans(self, name_prefix: str = "") -> list[Any]:
        return [span for span in self.exporter.get_finished_spans() if span.name.startswith(name_prefix)]

    def one(self, name_prefix: str) -> Any:
        found = self.spans(name_prefix)
        assert len(found) == 1, [span.name for span in self.exporter.get_finished_spans()]
        return found[0]

    def metric_points(self, name: str) -> list[Any]:
        data = self.reader.get_metrics_data()
        points: list[Any] = []
        for resource in data.resource_metrics if data else ():
            for scope in resource.scope_metrics:
                for metric in scope.metrics:
                    if metric.name == name:
                        points.extend(metric.data.data_points)
        return points


@pytest.fixture
def traces() -> Iterator[Traces]:
    recorded = Traces()
    gk.instrument(tracer_provider=recorded.tracer_provider, meter_provider=recorded.meter_provider)
    try:
        yield recorded
    finally:
        gk.uninstrument()


@pytest.fixture
def client(emulator: Any) -> Iterator[gk.Client]:
    with gk.Client(api_key=ACME_KEY, base_url=emulator.base_url, display=False, ledger=gk.Ledger(path=None)) as made:
        yield made
