"""Traced gatewaykit against traced openai: a buffered chat per call, both traced, side by side in one process.

gatewaykit is traced by ``gk.instrument()``; the openai SDK by OpenTelemetry's own
``opentelemetry-instrumentation-openai-v2``. Both clients send to one ``httpx.MockTransport`` that
answers the same completion, both tracers are one SDK ``TracerProvider`` with a ``BatchSpanProcessor``
whose exporter reads every span as an encoder would, and one SDK meter. Every round runs each variant
once, in a rotated order. Prints per call the caller thread's CPU, the wall time and the process's CPU
(adds the batch export thread), medians and min-max over rounds, and the figure that matters:
traced gatewaykit / traced openai per round (goal: at most 0.2). Figures: docs/telemetry.md.

Run: ``PYTHONPATH=src .venv/bin/python benchmarks/telemetry.py [--calls 2000] [--rounds 7] [--as-built] [--smoke]``
"""

from __future__ import annotations

import argparse
import gc
import os
import shutil
import statistics
import tempfile
import time
from typing import Any, Callable, Sequence

import httpx

import gatewaykit as gk

COMPLETION = (
    b'{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"chat-mini","choices":[{"index":0,'
    b'"finish_reason":"stop","message":{"role":"assistant","content":"Hello there! Hello there!"}}],'
    b'"usage":{"prompt_tokens":9,"completion_tokens":24,"total_tokens":33,"cost":{"total_cost":0.0000153}}}'
)
MESSAGES = [{"role": "user", "content": "Say hello"}]
KEY = "sk-bf-bench-000000000000"
VARIANTS = ("gatewaykit", "gatewaykit traced", "openai", "openai traced")
GOAL = 0.2  # traced gatewaykit at most a fifth of traced openai, per call


class ReadingExporter:
    """A span exporter that reads each span as an exporter's encoder does, then sends nowhere."""

    def export(self, spans: Sequence[Any]) -> Any:
        from opentelemetry.sdk.trace.export import SpanExportResult

        for span in spans:
            (span.name, span.context, span.parent, span.kind, span.status, span.start_time, span.end_time,
             dict(span.attributes or {}), list(span.events), list(span.links), span.resource, span.dropped_attributes)  # fmt: skip
        return SpanExportResult.SUCCESS

    def shutdown(self) -> None:
        pass

    def force_flush(self, timeout_millis: int = 0) -> bool:
        return True


def per_call(call: Callable[[], Any], calls: int, settle: Callable[[], Any]) -> tuple[float, float, float]:
    """(this thread's CPU, wall, this process's CPU) µs per call; ``settle`` exports what is still queued."""
    wall, thread, process = time.perf_counter(), time.thread_time(), time.process_time()
    for _ in range(calls):
        call()
    wall, thread = time.perf_counter() - wall, time.thread_time() - thread
    settle()
    process = time.process_time() - process
    return thread / calls * 1e6, wall / calls * 1e6, process / calls * 1e6


def measure(calls: int, rounds: int, as_built: bool) -> dict[str, list[tuple[float, float, float]]]:
    """Every variant once per round, rotated; {variant: [(thread, wall, process) per round]}."""
    import openai
    from opentelemetry.instrumentation.openai_v2 import OpenAIInstrumentor
    from opentelemetry.sdk.metrics import MeterProvider
    from opentelemetry.sdk.metrics.export import InMemoryMetricReader
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor

    tracer_provider = TracerProvider()
    tracer_provider.add_span_processor(BatchSpanProcessor(ReadingExporter()))  # type: ignore[arg-type]
    reader = InMemoryMetricReader()
    meter_provider = MeterProvider(metric_readers=[reader])
    transport = httpx.MockTransport(lambda request: httpx.Response(200, content=COMPLETION,
                                                                   headers={"content-type": "application/json"}))
    folder = tempfile.mkdtemp(prefix="gatewaykit-bench-") if as_built else ""
    instrumentor = OpenAIInstrumentor()

    def chat_of(variant: str) -> tuple[Callable[[], Any], Callable[[], None]]:
        """A fresh client's chat call for ``variant`` and how to close it (a fresh ledger: no rows carried over)."""
        if variant.startswith("openai"):
            client = openai.OpenAI(api_key=KEY, base_url="http://gateway.bench/v1", max_retries=0,
                                   http_client=httpx.Client(transport=transport))  # fmt: skip
            return (lambda: client.chat.completions.create(model="chat-mini", messages=MESSAGES)), client.close  # type: ignore[arg-type]
        if as_built:  # as a user builds it: requests validated, every row written to the ledger's database
            options: dict[str, Any] = {"ledger": gk.Ledger(path=os.path.join(folder, f"{time.perf_counter_ns()}.sqlite"))}
        else:
            options = {"ledger": gk.Ledger(path=None), "validate": False}
        ours = gk.Client(api_key=KEY, base_url="http://gateway.bench", http_transport=transport, max_retries=0,
                         display=False, **options)  # fmt: skip
        return (lambda: ours.chat.completions.create(model="chat-mini", messages=MESSAGES)), ours.close

    def run(variant: str) -> tuple[float, float, float]:
        call, close = chat_of(variant)
        if variant == "gatewaykit traced":
            gk.instrument(tracer_provider=tracer_provider, meter_provider=meter_provider)
        elif variant == "openai traced":
            instrumentor.instrument(tracer_provider=tracer_provider, meter_provider=meter_provider)
        try:
            for _ in range(max(20, calls // 20)):  # warm this client
                call()
            tracer_provider.force_flush()
            gc.collect()
            return per_call(call, calls, tracer_provider.force_flush)
        finally:
            if variant == "gatewaykit traced":
                gk.uninstrument()
            elif variant == "openai traced":
                instrumentor.uninstrument()
            close()

    figures: dict[str, list[tuple[float, float, float]]] = {name: [] for name in VARIANTS}
    for round_number in range(rounds):
        turn = round_number % len(VARIANTS)  # each round starts with another variant: drift hits all alike
        for variant in VARIANTS[turn:] + VARIANTS[:turn]:
            figures[variant].append(run(variant))
        reader.get_metrics_data()  # a reader's collection (gatewaykit's queued metrics are recorded here)
    tracer_provider.shutdown()
    if folder:
        shutil.rmtree(folder, ignore_errors=True)
    return figures


def spread(values: list[float], digits: int = 1) -> str:
    """median (min-max)."""
    return f"{statistics.median(values):.{digits}f} ({min(values):.{digits}f}-{max(values):.{digits}f})"


def report(figures: dict[str, list[tuple[float, float, float]]], calls: int, as_built: bool) -> None:
    kind = "as users build it (validated, ledger on disk)" if as_built else "lean (validate=False, ledger in memory)"
    rounds = len(figures[VARIANTS[0]])
    print(f"buffered chat over MockTransport, gatewaykit client {kind}, {calls} calls x {rounds} rounds,"
          f" load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs; median (min-max) over rounds")  # fmt: skip
    columns = ("thread CPU", "wall", "process CPU")
    for name in VARIANTS:
        line = f"  {name:<18}" + "".join(
            f" | {column} {spread([figure[index] for figure in figures[name]])} µs" for index, column in enumerate(columns)
        )
        print(line)
    for ours, theirs in (("gatewaykit traced", "openai traced"), ("gatewaykit traced", "gatewaykit"),
                         ("openai traced", "openai")):  # fmt: skip
        line = f"  {ours} / {theirs}:".ljust(42)
        for index, column in enumerate(columns):
            ratios = [a[index] / b[index] for a, b in zip(figures[ours], figures[theirs])]
            line += f" | {column} {spread(ratios, 3)}"
        print(line)
    print(f"  goal: gatewaykit traced / openai traced at most {GOAL} per call")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--as-built", action="store_true",
                        help="gatewaykit's client as users build it (requests validated, the ledger on disk)")
    parser.add_argument("--smoke", action="store_true", help="a few calls: checks the script still runs")
    args = parser.parse_args()
    calls, rounds = (50, 2) if args.smoke else (args.calls, args.rounds)
    report(measure(calls, rounds, args.as_built), calls, args.as_built)


if __name__ == "__main__":
    main()
