"""Telemetry overhead (issue 33): a buffered chat over MockTransport with gk.instrument() off and on.

One process, the two clients run in turn round by round (so machine noise hits both alike); the
tracer is OpenTelemetry's SDK with a BatchSpanProcessor whose exporter drops the spans, and an SDK
meter, as a team's set-up would have them. Prints µs per call (wall and this process's CPU) with
tracing off, off plus one empty SDK span per call (the floor: no instrumentation can cost less
than the SDK's cheapest span) and on, the ratios to off of each round's pair, and what the
request metrics cost when the reader collects them (``telemetry/request_metrics.py``). Goal:
tracing on costs at most 5% of a buffered chat; off costs nothing (with no observer a request
pays one module-attribute read, ``client/core/observation.py``).

Run: ``PYTHONPATH=src .venv/bin/python benchmarks/telemetry.py [--calls 2000] [--rounds 7] [--smoke]``
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from typing import Any, Callable, Sequence

import httpx

import gatewaykit as gk
from gatewaykit.client.core import observation

COMPLETION = (
    b'{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"chat-mini","choices":[{"index":0,'
    b'"finish_reason":"stop","message":{"role":"assistant","content":"Hello there! Hello there!"}}],'
    b'"usage":{"prompt_tokens":9,"completion_tokens":24,"total_tokens":33,"cost":{"total_cost":0.0000153}}}'
)
MESSAGES = [{"role": "user", "content": "Say hello"}]


class DroppingExporter:
    """A span exporter that sends nowhere (what the processor does is still paid)."""

    def export(self, spans: Sequence[Any]) -> Any:
        from opentelemetry.sdk.trace.export import SpanExportResult

        return SpanExportResult.SUCCESS

    def shutdown(self) -> None:
        pass

    def force_flush(self, timeout_millis: int = 0) -> bool:
        return True


def attributes_of_one_span(client: Any) -> dict[str, Any]:
    """The attributes gk.instrument() puts on the span of one of the benchmark's chats."""
    from opentelemetry.sdk.metrics import MeterProvider
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    gk.instrument(tracer_provider=provider, meter_provider=MeterProvider())
    try:
        client.chat.completions.create(model="chat-mini", messages=MESSAGES)
    finally:
        gk.uninstrument()
    (span,) = exporter.get_finished_spans()
    return dict(span.attributes or {})


def per_call(call: Callable[[], Any], calls: int) -> tuple[float, float]:
    """(wall µs, this process's CPU µs) per call: CPU time is what machine load disturbs least."""
    wall, cpu = time.perf_counter(), time.process_time()
    for _ in range(calls):
        call()
    return (time.perf_counter() - wall) / calls * 1e6, (time.process_time() - cpu) / calls * 1e6


def report(label: str, figures: list[tuple[float, float]], base: list[tuple[float, float]]) -> None:
    walls, cpus = [wall for wall, _ in figures], [cpu for _, cpu in figures]
    line = f"  {label:<22} wall best {min(walls):6.1f} median {statistics.median(walls):6.1f} µs"
    line += f" | CPU best {min(cpus):6.1f} median {statistics.median(cpus):6.1f} µs"
    if figures is not base:
        ratios = [f[0] / b[0] for f, b in zip(figures, base)]  # the same round's pair: load hits both alike
        cpu_ratios = [f[1] / b[1] for f, b in zip(figures, base)]
        line += f" | x{statistics.median(ratios):.3f} wall, x{statistics.median(cpu_ratios):.3f} CPU (median of rounds)"
    print(line)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--smoke", action="store_true", help="a few calls: checks the script still runs")
    args = parser.parse_args()
    calls, rounds = (50, 2) if args.smoke else (args.calls, args.rounds)

    from opentelemetry.sdk.metrics import MeterProvider
    from opentelemetry.sdk.metrics.export import InMemoryMetricReader
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor

    tracer_provider = TracerProvider()
    tracer_provider.add_span_processor(BatchSpanProcessor(DroppingExporter()))  # type: ignore[arg-type]
    reader = InMemoryMetricReader()
    meter_provider = MeterProvider(metric_readers=[reader])
    bare_tracer = tracer_provider.get_tracer("floor")

    transport = httpx.MockTransport(lambda request: httpx.Response(200, content=COMPLETION,
                                                                   headers={"content-type": "application/json"}))
    client = gk.Client(api_key="sk-bf-bench-000000000000", base_url="http://gateway.bench", http_transport=transport,
                       ledger=gk.Ledger(path=None), max_retries=0, display=False, validate=False)  # fmt: skip

    def chat() -> Any:
        return client.chat.completions.create(model="chat-mini", messages=MESSAGES)

    def chat_in_an_empty_span() -> Any:  # the floor: the SDK's cheapest span, no attributes, no metrics
        bare_tracer.start_span("chat").end()
        return chat()

    attributes = attributes_of_one_span(client)

    def chat_in_a_span_with_our_attributes() -> Any:  # what the SDK asks for a span with the attributes ours carry
        bare_tracer.start_span("chat", attributes=attributes).end()
        return chat()

    gk.instrument(tracer_provider=tracer_provider, meter_provider=meter_provider)
    on_observer = observation.current
    gk.uninstrument()
    for _ in range(max(20, calls // 10)):  # warm both paths
        chat()
    off: list[tuple[float, float]] = []
    on: list[tuple[float, float]] = []
    floor: list[tuple[float, float]] = []
    attributed: list[tuple[float, float]] = []
    collect: list[float] = []
    for _ in range(rounds):
        observation.install(None)
        off.append(per_call(chat, calls))
        floor.append(per_call(chat_in_an_empty_span, calls))
        attributed.append(per_call(chat_in_a_span_with_our_attributes, calls))
        observation.install(on_observer)
        on.append(per_call(chat, calls))
        started = time.process_time()
        reader.get_metrics_data()  # a reader's collection: the queued request metrics are recorded here
        collect.append((time.process_time() - started) / calls * 1e6)
    observation.install(None)
    tracer_provider.shutdown()
    print(f"buffered chat over MockTransport, {calls} calls x {rounds} rounds, load average {os.getloadavg()[0]:.2f}"
          f" on {os.cpu_count()} CPUs")  # fmt: skip
    report("tracing off", off, off)
    report("off + one empty span", floor, off)
    report(f"off + span, {len(attributes)} attrs", attributed, off)
    report("tracing on", on, off)
    print(f"  metrics recorded at collection: CPU best {min(collect):.1f} median {statistics.median(collect):.1f} µs"
          " per request (in the reader's collection, not on the request)")  # fmt: skip
    print("  goal: tracing on at most x1.05; the floor is the SDK's empty span")
    if not (min(off)[0] > 0 and min(on)[0] > 0):
        raise SystemExit("no figures")


if __name__ == "__main__":
    main()
