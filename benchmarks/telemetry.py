"""Telemetry overhead (issue 33): a buffered chat over MockTransport with gk.instrument() off and on.

One process; every round runs each variant once, in a rotated order, each on a fresh client (a fresh
ledger: rows kept from earlier runs would grow the heap a later run's garbage collection scans). The
tracer is OpenTelemetry's SDK with a BatchSpanProcessor whose exporter reads every span (as an encoder
would) and sends nowhere, and an SDK meter, as a team's set-up would have them. Variants:

- tracing off (no observer: one module-attribute read per request, ``client/core/observation.py``);
- off plus one empty SDK span per call, and off plus an SDK span with the attributes ours carry
  (what ``tracer.start_span(...).end()`` alone costs);
- tracing on, SDK path: every request span through ``tracer.start_span`` (``direct_spans=False``);
- tracing on, fast path: what ``gk.instrument()`` installs (``telemetry/direct_spans.py``: the SDK's
  span built with its own steps and handed to the processor's ``on_end``, the answer's values worked
  out when the exporter reads them, in the batch processor's thread);
- the floor under any tracing: a request observer that only does what every design must do in the
  request's thread (read the current span, draw two ids, send ``traceparent``, queue one record at the
  end) and builds no span at all;
- tracing on behind the SDK's ratio sampler keeping 1% of traces (``ParentBased(TraceIdRatioBased(0.01))``):
  what a request whose span is dropped still pays (its sampling decision, ``traceparent``, its metrics).

Prints per call wall time, this thread's CPU (what the request pays in the caller's thread) and the
process's CPU (adds the batch processor's export thread), each as the median over rounds and as the
median of each round's ratio to that round's "off"; and what the queued request metrics cost when a
reader collects them (``telemetry/request_metrics.py``). Goal: tracing on at most x1.05.

With ``--floor-steps``, the floor is first taken apart: an observer that does nothing, then a constant
``traceparent``, the two ids drawn into it, the parent and a clock read, one record queued at the end.

Run: ``PYTHONPATH=src .venv/bin/python benchmarks/telemetry.py [--calls 1000] [--rounds 5] [--repeats 3]
[--floor-steps] [--smoke]``
"""

from __future__ import annotations

import argparse
import gc
import os
import random
import shutil
import statistics
import tempfile
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


class ReadingExporter:
    """A span exporter that reads each span as an exporter's encoder does, then sends nowhere.

    Reading matters: a request span's last attributes are worked out when first read (``DirectSpan``), in
    the batch processor's export thread; an exporter that never read them would hide that work."""

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


class TraceparentOnly:
    """The floor under any tracing of a request, in its own thread: the parent read, two ids drawn, ``traceparent``
    sent, one record queued when it ends; no span, no attributes, no metrics (an observer, not a product)."""

    def __init__(self) -> None:
        import collections

        from gatewaykit.telemetry.current_context import current_context, span_key

        self._current, self._key = current_context, span_key
        self.ended: Any = collections.deque(maxlen=512)  # what a batch processor holds before it exports (its batch size)

    def request_started(self, recording: Any, request: Any, body: dict[str, Any]) -> Any:
        parent = self._current().get(self._key)
        trace_id, span_id = random.getrandbits(128), random.getrandbits(64)
        header = {"traceparent": "00-%032x-%016x-01" % (trace_id, span_id)}
        request.headers = {**request.headers, **header} if request.headers else header
        recording.observed = (parent, trace_id, span_id, time.time_ns())  # has no .observer: this one is asked
        return request

    def request_finished(self, recording: Any, handle: Any, status: str, fields: Any, row: Any) -> None:
        self.ended.append((handle, time.time_ns(), status, fields, row))


class FloorStep:
    """The floor built up one step at a time (``--floor-steps``): ``steps`` of "header" (a constant
    ``traceparent`` put on the request), "ids" (two ids drawn and formatted into it), "parent" (the current span
    and a clock read), "record" (one record of plain values queued when the request ends)."""

    CONSTANT = "00-%032x-%016x-01" % (random.getrandbits(128), random.getrandbits(64))

    def __init__(self, *steps: str) -> None:
        import collections

        from gatewaykit.telemetry.current_context import current_context, span_key

        self._current, self._key, self._steps = current_context, span_key, frozenset(steps)
        self.ended: Any = collections.deque(maxlen=512)

    def request_started(self, recording: Any, request: Any, body: dict[str, Any]) -> Any:
        steps, observed = self._steps, 1
        if "ids" in steps:
            trace_id, span_id = random.getrandbits(128), random.getrandbits(64)
            header = {"traceparent": "00-%032x-%016x-01" % (trace_id, span_id)}
            observed = (trace_id, span_id)
            if "parent" in steps:
                observed = (self._current().get(self._key), trace_id, span_id, time.time_ns())
        else:
            header = {"traceparent": self.CONSTANT}
        if "header" in steps or "ids" in steps:
            request.headers = {**request.headers, **header} if request.headers else header
        recording.observed = observed
        return request

    def request_finished(self, recording: Any, handle: Any, status: str, fields: Any, row: Any) -> None:
        if "record" in self._steps:
            self.ended.append((handle, time.time_ns(), status))


FLOOR_STEPS: dict[str, Callable[[], Any]] = {
    "tracing off": lambda: None,
    "an observer doing nothing": FloorStep,
    "+ a constant traceparent": lambda: FloorStep("header"),
    "+ two ids drawn into it": lambda: FloorStep("ids"),
    "+ the parent, a clock read": lambda: FloorStep("ids", "parent"),
    "+ one record queued": lambda: FloorStep("ids", "parent", "record"),
    "the floor (fields, row kept)": TraceparentOnly,
}


def measure_floor_steps(calls: int, rounds: int) -> None:
    """What each step of the floor adds (thread CPU, ratio to off), every variant each round, rotated."""
    transport = httpx.MockTransport(lambda request: httpx.Response(200, content=COMPLETION,
                                                                   headers={"content-type": "application/json"}))
    names = list(FLOOR_STEPS)
    figures: dict[str, list[float]] = {name: [] for name in names}
    for round_number in range(rounds):
        turn = round_number % len(names)
        for name in names[turn:] + names[:turn]:
            client = gk.Client(api_key="sk-bf-bench-000000000000", base_url="http://gateway.bench",
                               http_transport=transport, max_retries=0, display=False, ledger=gk.Ledger(path=None),
                               validate=False)  # fmt: skip
            observation.install(FLOOR_STEPS[name]())
            try:
                for _ in range(max(20, calls // 20)):
                    client.chat.completions.create(model="chat-mini", messages=MESSAGES)
                gc.collect()
                started = time.thread_time()
                for _ in range(calls):
                    client.chat.completions.create(model="chat-mini", messages=MESSAGES)
                figures[name].append((time.thread_time() - started) / calls * 1e6)
            finally:
                observation.install(None)
                client.close()
    print(f"the floor step by step: buffered chat over MockTransport, lean client, {calls} calls x {rounds} rounds,"
          f" thread CPU, load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs")  # fmt: skip
    base = figures["tracing off"]
    for name in names:
        ratio = statistics.median(value / pair for value, pair in zip(figures[name], base))
        print(f"  {name:<30} {statistics.median(figures[name]):6.1f} µs x{ratio:.3f}")


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


def per_call(call: Callable[[], Any], calls: int, settle: Callable[[], Any]) -> tuple[float, float, float]:
    """(wall, this thread's CPU, this process's CPU) µs per call.

    The caller thread's CPU is what a request pays in its own thread and what machine load disturbs
    least; the process's CPU adds the batch processor's export thread, up to ``settle()`` (the
    provider's ``force_flush``: the spans of these calls still queued are exported and counted here).
    """
    wall, thread, process = time.perf_counter(), time.thread_time(), time.process_time()
    for _ in range(calls):
        call()
    wall, thread = time.perf_counter() - wall, time.thread_time() - thread
    settle()
    process = time.process_time() - process
    return wall / calls * 1e6, thread / calls * 1e6, process / calls * 1e6


def report(label: str, figures: list[tuple[float, ...]], base: list[tuple[float, ...]]) -> None:
    line = f"  {label:<24}"
    for index, name in enumerate(("wall", "thread CPU", "process CPU")):
        values = [figure[index] for figure in figures]
        line += f" | {name} {statistics.median(values):6.1f} µs"
        if figures is not base:  # each round's pair: load hits both alike; the median of the rounds
            ratios = [figure[index] / pair[index] for figure, pair in zip(figures, base)]
            line += f" x{statistics.median(ratios):.3f}"
    print(line)


def measure(calls: int, rounds: int, as_built: bool = False) -> None:
    """One repeat: every variant, round by round, in this process."""
    from opentelemetry import metrics, trace
    from opentelemetry.sdk.metrics import MeterProvider
    from opentelemetry.sdk.metrics.export import InMemoryMetricReader
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor
    from opentelemetry.sdk.trace.sampling import ParentBased, TraceIdRatioBased

    from gatewaykit.telemetry.observer import GatewayTelemetry

    tracer_provider = TracerProvider()
    tracer_provider.add_span_processor(BatchSpanProcessor(ReadingExporter()))  # type: ignore[arg-type]
    reader = InMemoryMetricReader()
    meter_provider = MeterProvider(metric_readers=[reader])
    bare_tracer = tracer_provider.get_tracer("floor")

    transport = httpx.MockTransport(lambda request: httpx.Response(200, content=COMPLETION,
                                                                   headers={"content-type": "application/json"}))

    folder = tempfile.mkdtemp(prefix="gatewaykit-bench-") if as_built else ""  # the ledgers' databases

    def new_client() -> gk.Client:  # a fresh ledger per run: its rows grow the heap every later run would scan
        if as_built:  # as a user builds it: requests validated, every row written to the ledger's database
            ledger = gk.Ledger(path=os.path.join(folder, f"{time.perf_counter_ns()}.sqlite"))
            options: dict[str, Any] = {"ledger": ledger}
        else:
            options = {"ledger": gk.Ledger(path=None), "validate": False}
        return gk.Client(api_key="sk-bf-bench-000000000000", base_url="http://gateway.bench", http_transport=transport,
                         max_retries=0, display=False, **options)

    attributes = attributes_of_one_span(new_client())
    gk.instrument(tracer_provider=tracer_provider, meter_provider=meter_provider)
    direct = observation.current  # what gk.instrument() installs: request spans handed to the processor directly
    gk.uninstrument()
    # A team at volume keeps 1 request in 100 (the SDK's ratio sampler): the other 99 have no span to build.
    thinned_provider = TracerProvider(sampler=ParentBased(TraceIdRatioBased(0.01)))
    thinned_provider.add_span_processor(BatchSpanProcessor(ReadingExporter()))  # type: ignore[arg-type]
    gk.instrument(tracer_provider=thinned_provider, meter_provider=meter_provider)
    thinned = observation.current
    gk.uninstrument()
    tracer = trace.get_tracer("gatewaykit", gk.__version__, tracer_provider=tracer_provider)
    meter = metrics.get_meter("gatewaykit", gk.__version__, meter_provider=meter_provider)
    sdk = GatewayTelemetry(tracer, meter, direct_spans=False)  # the same tracer, every span through start_span

    def run(variant: str) -> tuple[float, float, float]:
        client = new_client()

        def chat() -> Any:
            return client.chat.completions.create(model="chat-mini", messages=MESSAGES)

        def chat_in_an_empty_span() -> Any:  # the SDK's cheapest span, no attributes, no metrics
            bare_tracer.start_span("chat").end()
            return chat()

        def chat_in_a_span_with_our_attributes() -> Any:  # the SDK's span with the attributes ours carry
            bare_tracer.start_span("chat", attributes=attributes).end()
            return chat()

        observer, call = {
            "tracing off": (None, chat),
            "off + empty SDK span": (None, chat_in_an_empty_span),
            "off + SDK span, attrs": (None, chat_in_a_span_with_our_attributes),
            "floor: traceparent only": (TraceparentOnly(), chat),
            "on, SDK path": (sdk, chat),
            "on, fast path": (direct, chat),
            "on, 1% sampled": (thinned, chat),
        }[variant]
        observation.install(observer)
        try:
            for _ in range(max(20, calls // 20)):  # warm this client
                call()
            tracer_provider.force_flush()  # the warm-up's spans exported before the clock starts
            thinned_provider.force_flush()
            gc.collect()
            return per_call(call, calls, lambda: (tracer_provider.force_flush(), thinned_provider.force_flush()))
        finally:
            observation.install(None)
            client.close()

    figures: dict[str, list[tuple[float, float, float]]] = {name: [] for name in VARIANTS}
    collect: list[float] = []
    for round_number in range(rounds):
        turn = round_number % len(VARIANTS)  # each round starts with another variant: drift hits all alike
        for variant in VARIANTS[turn:] + VARIANTS[:turn]:
            figures[variant].append(run(variant))
        started = time.process_time()
        reader.get_metrics_data()  # a reader's collection: the queued request metrics are recorded here
        collect.append((time.process_time() - started) / calls / TRACED * 1e6)  # per request of a traced variant
    tracer_provider.shutdown()
    thinned_provider.shutdown()
    if folder:
        shutil.rmtree(folder, ignore_errors=True)
    if not direct.direct_spans_started or sdk.direct_spans_started:  # type: ignore[union-attr]
        raise SystemExit("the fast path was not taken where it should be (or taken where it should not)")
    kind = "as users build it (validated, ledger on disk)" if as_built else "lean (validate=False, ledger in memory)"
    print(f"buffered chat over MockTransport, client {kind}, {calls} calls x {rounds} rounds, {len(attributes)} span"
          " attributes,"
          f" load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs"
          " (medians of rounds; x = the median of each round's ratio to off)")  # fmt: skip
    base = figures["tracing off"]
    for name, values in figures.items():
        report(name, values, base)
    print(f"  metrics recorded at collection: process CPU median {statistics.median(collect):.1f} µs per request"
          " (in the reader's collection, not on the request)")  # fmt: skip


VARIANTS = ("tracing off", "floor: traceparent only", "off + empty SDK span", "off + SDK span, attrs",
            "on, SDK path", "on, fast path", "on, 1% sampled")
TRACED = sum(variant.startswith("on,") for variant in VARIANTS)  # the variants whose requests queue metrics


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--smoke", action="store_true", help="a few calls: checks the script still runs")
    parser.add_argument("--as-built", action="store_true",
                        help="the client as users build it (requests validated, the ledger on disk) instead of the "
                             "leanest one (the goal is measured on the leanest: the smallest base)")
    parser.add_argument("--floor-steps", action="store_true",
                        help="also take the floor apart: what each step under any tracing adds (thread CPU)")
    args = parser.parse_args()
    calls, rounds, repeats = (50, 2, 1) if args.smoke else (args.calls, args.rounds, args.repeats)
    if args.floor_steps or args.smoke:
        measure_floor_steps(calls, rounds)
    for repeat in range(repeats):
        print(f"repeat {repeat + 1} of {repeats}")
        measure(calls, rounds, args.as_built)
    print("  goal: tracing on at most x1.05 of off")


if __name__ == "__main__":
    main()
