"""Telemetry overhead (issue 33): a buffered chat over MockTransport with gk.instrument() off and on.

One process, the two clients run in turn round by round (so machine noise hits both alike); the
tracer is OpenTelemetry's SDK with a BatchSpanProcessor whose exporter drops the spans, and an SDK
meter, as a team's set-up would have them. Prints µs per call off and on and the ratio (goal:
tracing on costs at most 5% of a buffered chat; off costs nothing: with no observer a request
pays one module-attribute read, ``client/core/observation.py``).

Run: ``PYTHONPATH=src .venv/bin/python benchmarks/telemetry.py [--calls 2000] [--rounds 7] [--smoke]``
"""

from __future__ import annotations

import argparse
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


def per_call(call: Callable[[], Any], calls: int) -> float:
    started = time.perf_counter()
    for _ in range(calls):
        call()
    return (time.perf_counter() - started) / calls * 1e6


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
    meter_provider = MeterProvider(metric_readers=[InMemoryMetricReader()])

    transport = httpx.MockTransport(lambda request: httpx.Response(200, content=COMPLETION,
                                                                   headers={"content-type": "application/json"}))
    client = gk.Client(api_key="sk-bf-bench-000000000000", base_url="http://gateway.bench", http_transport=transport,
                       ledger=gk.Ledger(path=None), max_retries=0, display=False, validate=False)  # fmt: skip

    def chat() -> Any:
        return client.chat.completions.create(model="chat-mini", messages=MESSAGES)

    gk.instrument(tracer_provider=tracer_provider, meter_provider=meter_provider)
    on_observer = observation.current
    gk.uninstrument()
    for _ in range(max(20, calls // 10)):  # warm both paths
        chat()
    off, on = [], []
    for _ in range(rounds):
        observation.install(None)
        off.append(per_call(chat, calls))
        observation.install(on_observer)
        on.append(per_call(chat, calls))
    observation.install(None)
    tracer_provider.shutdown()
    best_off, best_on = min(off), min(on)
    median_off, median_on = statistics.median(off), statistics.median(on)
    print(f"buffered chat over MockTransport, {calls} calls x {rounds} rounds")
    print(f"  tracing off: best {best_off:7.1f} µs, median {median_off:7.1f} µs per call")
    print(f"  tracing on:  best {best_on:7.1f} µs, median {median_on:7.1f} µs per call")
    print(f"  on / off: best {best_on / best_off:.3f}x, median {median_on / median_off:.3f}x (goal: at most 1.05x)")
    if not (best_off > 0 and best_on > 0):
        raise SystemExit("no figures")


if __name__ == "__main__":
    main()
