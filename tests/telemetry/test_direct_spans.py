"""Request spans handed to the SDK's processors directly (``telemetry/direct_spans.py``) are the spans the
SDK's ``start_span`` makes: the same requests, exported both ways, compared field by field."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import textwrap
from typing import Any, Callable, Iterator, Optional

import httpx
import pytest

import gatewaykit as gk
from gateway_accounts import ACME_KEY, TIGHT_KEY
from gatewaykit.client.core import observation
from gatewaykit.telemetry.observer import GatewayTelemetry

from opentelemetry import metrics, trace
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, SpanLimits, SpanProcessor, TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.sdk.trace.id_generator import IdGenerator
from opentelemetry.sdk.trace.sampling import ALWAYS_OFF, ALWAYS_ON, ParentBased, TraceIdRatioBased
from opentelemetry.trace import NonRecordingSpan, SpanContext, TraceFlags, TraceState

CHAT = [{"role": "user", "content": "Name three rivers"}]
_VARYING = frozenset({"gen_ai.response.id"})  # the gateway draws a new id per answer


class HeaderLog(httpx.HTTPTransport):
    """The real HTTP transport, keeping each request's traceparent header (what the gateway receives)."""

    def __init__(self) -> None:
        super().__init__()
        self.traceparents: list[Optional[str]] = []

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        self.traceparents.append(request.headers.get("traceparent"))
        return super().handle_request(request)


class Run:
    """One provider set up as a configuration says, the client it traces, and what they produced."""

    def __init__(
        self, emulator: Any, make_provider: Callable[[], TracerProvider], capture: bool, processor: type
    ) -> None:  # fmt: skip
        self.exporter = InMemorySpanExporter()
        self.provider = make_provider()
        self.provider.add_span_processor(processor(self.exporter))
        self.meter_provider = MeterProvider(metric_readers=[InMemoryMetricReader()])
        self.headers = HeaderLog()
        self.client = gk.Client(api_key=ACME_KEY, base_url=emulator.base_url, display=False,
                                ledger=gk.Ledger(path=None), http_transport=self.headers)  # fmt: skip
        self.poor = gk.Client(api_key=TIGHT_KEY, base_url=emulator.base_url, display=False,
                              ledger=gk.Ledger(path=None), http_transport=self.headers)  # fmt: skip
        self.capture = capture

    def close(self) -> None:
        self.client.close()
        self.poor.close()


def _requests(run: Run) -> None:
    """Buffered, streamed and JSON chats, an image, a chat in a user's span, a map, an error answer."""
    client = run.client
    client.chat.completions.create(model="chat-mini", messages=CHAT, max_tokens=60, temperature=0.5, seed=7)
    for _ in client.chat.completions.create(model="chat-mini", messages=CHAT, stream=True):
        pass
    client.chat.completions.create(model="chat-mini", messages=CHAT, response_format={"type": "json_object"})
    client.images.generate(model="img-basic" if _has(client, "img-basic") else client.models.pick("image"),
                           prompt="a lighthouse at dusk")  # fmt: skip
    with run.provider.get_tracer("the user's code").start_as_current_span("user work"):
        client.chat.completions.create(model="chat-mini", messages=CHAT)
    for flags in (TraceFlags.SAMPLED, TraceFlags.DEFAULT):  # a caller's trace from outside: sampled or not
        outside = SpanContext(0x5CA1AB1E, 0xFEED, is_remote=True, trace_flags=TraceFlags(flags),
                              trace_state=TraceState([("vendor", "kept")]))  # fmt: skip
        with trace.use_span(NonRecordingSpan(outside)):
            client.chat.completions.create(model="chat-mini", messages=CHAT)
    ask = lambda prompt: client.chat.completions.create(model="chat-mini", messages=[{"role": "user", "content": prompt}])  # noqa: E731
    client.map(ask, ["one", "two"], concurrency=1)
    with pytest.raises(gk.InsufficientQuotaError):
        run.poor.images.generate(model=run.poor.models.pick("image"), prompt="an expensive picture")


def _has(client: gk.Client, model: str) -> bool:
    return any(entry.id == model for entry in client.models.list())


def _traced(run: Run, direct: bool) -> GatewayTelemetry:
    """Run the requests with gatewaykit's observer on ``run``'s providers (direct spans or always start_span)."""
    tracer = trace.get_tracer("gatewaykit", gk.__version__, tracer_provider=run.provider)
    meter = metrics.get_meter("gatewaykit", gk.__version__, meter_provider=run.meter_provider)
    if direct:  # the public way in: what gk.instrument() installs
        gk.instrument(tracer_provider=run.provider, meter_provider=run.meter_provider, capture_content=run.capture)
        observer = observation.current
    else:
        observer = GatewayTelemetry(tracer, meter, capture_content=run.capture, direct_spans=False)
        observation.install(observer)
    try:
        _requests(run)
    finally:
        gk.uninstrument()
    assert isinstance(observer, GatewayTelemetry)
    return observer


def _exported(run: Run) -> list[dict[str, Any]]:
    """Every exported span with what identifies it replaced by its relations (parent, trace, header sent)."""
    run.provider.force_flush()  # a batch processor's queue: exported (and read) now
    spans = run.exporter.get_finished_spans()
    position = {span.context.span_id: index for index, span in enumerate(spans)}
    sent = [header for header in run.headers.traceparents if header is not None]
    described = []
    for span in spans:
        context, parent = span.context, span.parent
        header = "00-%032x-%016x-%02x" % (context.trace_id, context.span_id, context.trace_flags)
        described.append({
            "readable": isinstance(span, ReadableSpan), "name": span.name, "kind": span.kind,
            "parent": None if parent is None else position.get(parent.span_id, "outside"),
            "in the parent's trace": parent is None or parent.trace_id == context.trace_id,
            "parent remote": None if parent is None else parent.is_remote,
            "flags": int(context.trace_flags), "trace state": str(context.trace_state), "remote": context.is_remote,
            "attributes": [(key, "<varies>" if key in _VARYING else value) for key, value in span.attributes.items()],
            "status": (span.status.status_code, span.status.description),
            "events": [(event.name, dict(event.attributes or {})) for event in span.events],
            "links": list(span.links), "dropped": (span.dropped_attributes, span.dropped_events, span.dropped_links),
            "scope": span.instrumentation_scope, "resource": dict(span.resource.attributes),
            "timed": 0 < span.start_time <= span.end_time,
            "its traceparent was sent": header in sent,
        })  # fmt: skip
    return described


class CountingIds(IdGenerator):
    """An id generator of the user's own (not the SDK's random one): ids counted up, trace ids not random."""

    def __init__(self) -> None:
        self.last = 0

    def generate_span_id(self) -> int:
        self.last += 1
        return self.last

    def generate_trace_id(self) -> int:
        self.last += 1
        return self.last << 64


def _limited() -> TracerProvider:
    return TracerProvider(span_limits=SpanLimits(max_span_attributes=9, max_span_attribute_length=5))


CONFIGURATIONS = {
    "the SDK's defaults": (TracerProvider, False, SimpleSpanProcessor),
    "a batch processor": (TracerProvider, True, BatchSpanProcessor),  # spans read in its export thread
    "a resource and captured content": (
        lambda: TracerProvider(resource=Resource.create({"service.name": "lab"})), True, SimpleSpanProcessor
    ),
    "span limits that cut": (_limited, True, SimpleSpanProcessor),
    "a value length limit": (
        lambda: TracerProvider(span_limits=SpanLimits(max_span_attribute_length=4)), True, SimpleSpanProcessor
    ),
    "a sampler that drops every span": (lambda: TracerProvider(sampler=ALWAYS_OFF), False, SimpleSpanProcessor),
    "an id generator of the user's": (lambda: TracerProvider(id_generator=CountingIds()), False, SimpleSpanProcessor),
    "the ratio sampler a team at volume sets, keeping every trace": (
        lambda: TracerProvider(sampler=ParentBased(TraceIdRatioBased(1.0))), False, BatchSpanProcessor
    ),
    "the ratio sampler keeping no trace of its own": (  # a remote sampled parent's is still kept
        lambda: TracerProvider(sampler=ParentBased(TraceIdRatioBased(0.0))), False, SimpleSpanProcessor
    ),
}


@pytest.fixture
def runs(emulator: Any, request: Any) -> Iterator[tuple[Run, Run]]:
    make_provider, capture, processor = CONFIGURATIONS[request.param]
    pair = (Run(emulator, make_provider, capture, processor), Run(emulator, make_provider, capture, processor))
    yield pair
    for run in pair:
        run.close()


@pytest.mark.parametrize("runs", list(CONFIGURATIONS), indirect=True)
def test_direct_spans_export_what_start_span_exports(runs: tuple[Run, Run]) -> None:
    """Name, kind, parent, trace, flags, attributes (in order, cleaned and cut as the limits say), status,
    events, scope, resource and the traceparent sent: the same whichever way a request's span was made."""
    direct_run, sdk_run = runs
    direct = _traced(direct_run, direct=True)
    sdk = _traced(sdk_run, direct=False)
    assert direct.direct_spans_started == 10 and sdk.direct_spans_started == 0  # each took the way it should
    mine, theirs = _exported(direct_run), _exported(sdk_run)
    assert mine == theirs
    assert len(direct_run.headers.traceparents) == len(sdk_run.headers.traceparents)
    sampler = direct_run.provider.sampler
    if sampler is ALWAYS_OFF:
        assert mine == [] and direct_run.headers.traceparents[-1].endswith("-02")  # sent, not sampled
    elif getattr(getattr(sampler, "_root", None), "rate", None) == 0.0:  # only the caller's sampled trace is kept
        (kept,) = mine
        assert kept["parent remote"] and kept["flags"] & 1 and kept["its traceparent was sent"]
        assert sum(header.endswith("-00") or header.endswith("-02") for header in direct_run.headers.traceparents
                   if header) == 9  # fmt: skip  # the others were sent as not sampled
    else:
        clients = [span for span in mine if span.get("kind") == trace.SpanKind.CLIENT]
        assert len(clients) == 9 and all(span["its traceparent was sent"] for span in clients)
        outside = [span for span in clients if span["parent remote"]]  # the sampled one; the other is not exported
        assert len(outside) == 1 and "vendor" in outside[0]["trace state"] and outside[0]["flags"] & 1
        assert any(span["status"][0] == trace.StatusCode.ERROR for span in clients)
        assert any(span["parent"] == "outside" or isinstance(span["parent"], int) for span in clients)


SAMPLERS = {
    "the default": None,
    "a ratio under ParentBased": ParentBased(TraceIdRatioBased(0.5)),
    "a ratio alone": TraceIdRatioBased(0.5),
    "always off": ALWAYS_OFF,
    "ParentBased with every delegate turned round": ParentBased(
        TraceIdRatioBased(0.5), remote_parent_sampled=ALWAYS_OFF, remote_parent_not_sampled=ALWAYS_ON,
        local_parent_sampled=ALWAYS_OFF, local_parent_not_sampled=ALWAYS_ON,
    ),
}


@pytest.mark.parametrize("sampler", list(SAMPLERS))
@pytest.mark.parametrize("parent", ["none", "a local span", "a remote sampled parent with a trace state",
                                    "a remote parent not sampled", "an invalid parent"])
def test_a_direct_span_s_context_is_the_one_start_span_draws(parent: str, sampler: str) -> None:
    """The same seed of ``random`` (which the SDK's id generator draws from) gives the same SpanContext both
    ways: ids, is_remote, flags (sampled, random trace id), trace state and validity, and the same decision
    (recorded or not); each parent kind, under each of the SDK's samplers (answered without should_sample)."""
    import random

    from gatewaykit.telemetry.direct_spans import DirectSpans

    provider = TracerProvider(sampler=SAMPLERS[sampler]) if SAMPLERS[sampler] is not None else TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(InMemorySpanExporter()))
    tracer = provider.get_tracer("gatewaykit")
    parents = {
        "none": None,
        "a local span": tracer.start_span("user work"),
        "a remote sampled parent with a trace state": NonRecordingSpan(SpanContext(
            0xABC, 0xDEF, is_remote=True, trace_flags=TraceFlags(TraceFlags.SAMPLED),
            trace_state=TraceState([("vendor", "kept")]))),
        "a remote parent not sampled": NonRecordingSpan(SpanContext(0xABC, 0xDEF, is_remote=True)),
        "an invalid parent": NonRecordingSpan(SpanContext(0, 0, is_remote=False)),
    }  # fmt: skip
    decisions = set()
    for seed in range(12):  # a ratio of 0.5: both decisions, the same both ways
        contexts, recording = [], []
        for make in (lambda: DirectSpans(tracer).start("chat m", trace.SpanKind.CLIENT, {"a": 1}),
                     lambda: tracer.start_span("chat m", kind=trace.SpanKind.CLIENT, attributes={"a": 1})):  # fmt: skip
            random.seed(seed)
            if parents[parent] is None:
                span = make()
            else:
                with trace.use_span(parents[parent]):
                    span = make()
            assert span is not None  # the direct way was taken
            contexts.append(span.get_span_context())
            recording.append(span.is_recording())
            if span.is_recording():
                assert dict(span.attributes or {}) == {"a": 1}
        ours, theirs = contexts
        assert type(ours) is SpanContext and ours == theirs, (seed, ours, theirs)
        assert ours.is_valid and not ours.is_remote and ours.trace_state == theirs.trace_state
        assert recording[0] == recording[1], (seed, recording)
        decisions.add(recording[0])
    drawn = parent in ("none", "an invalid parent")  # a new trace id each seed (else the parent's)
    assert len(decisions) == (2 if drawn and isinstance(SAMPLERS[sampler], (ParentBased, TraceIdRatioBased)) else 1)


def test_only_the_sdk_s_own_samplers_are_answered_without_should_sample(monkeypatch: Any) -> None:
    """The SDK's ratio sampler under ParentBased is answered here (its should_sample, two context look-ups,
    is not called); a sampler of the user's (or a subclass of the SDK's, which may decide otherwise) always is."""
    from gatewaykit.telemetry.direct_spans import DirectSpans

    def asked(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("asked")

    usual = TracerProvider(sampler=ParentBased(TraceIdRatioBased(0.5)))
    usual.add_span_processor(SimpleSpanProcessor(InMemorySpanExporter()))
    with monkeypatch.context() as patched:
        for kind in (ParentBased, TraceIdRatioBased):
            patched.setattr(kind, "should_sample", asked)
        assert DirectSpans(usual.get_tracer("gatewaykit")).start("chat m", trace.SpanKind.CLIENT, {}) is not None

    from gatewaykit.telemetry.direct_spans import _plan_of

    class Half(TraceIdRatioBased):
        def should_sample(self, *args: Any, **kwargs: Any) -> Any:
            raise AssertionError("asked")

    assert _plan_of(ParentBased(TraceIdRatioBased(0.25))) is not None
    assert _plan_of(ALWAYS_ON) is not None and _plan_of(TraceIdRatioBased(0.25)) is not None
    for theirs in (Half(0.5), ParentBased(Half(0.5)), ParentBased(ALWAYS_ON, remote_parent_sampled=Half(0.5))):
        assert _plan_of(theirs) is None
    provider = TracerProvider(sampler=ParentBased(Half(0.5)))
    provider.add_span_processor(SimpleSpanProcessor(InMemorySpanExporter()))
    with pytest.raises(AssertionError, match="asked"):
        DirectSpans(provider.get_tracer("gatewaykit")).start("chat m", trace.SpanKind.CLIENT, {})


class StartWatcher(SpanProcessor):
    """A processor of the user's own: it sees each span start, so every span must go through start_span."""

    def __init__(self) -> None:
        self.started: list[str] = []

    def on_start(self, span: Any, parent_context: Any = None) -> None:
        self.started.append(span.name)


def test_an_unknown_processor_keeps_every_span_on_start_span(traces: Any, client: gk.Client) -> None:
    """A processor gatewaykit does not know is told of every start; the request still has its full span."""
    watcher = StartWatcher()
    traces.tracer_provider.add_span_processor(watcher)
    completion = client.chat.completions.create(model="chat-mini", messages=CHAT)
    span = traces.one("chat chat-mini")
    assert watcher.started == ["chat chat-mini"]
    assert observation.current.direct_spans_started == 0  # type: ignore[union-attr]
    assert span.attributes["gen_ai.usage.cost.amount"] == completion.usage.cost.total_cost
    assert type(span).__name__ == "ReadableSpan"


def test_a_known_processor_added_later_is_seen_and_a_disabled_tracer_is_left_to_the_sdk(
    traces: Any, client: gk.Client
) -> None:
    """The processors are looked at on each request: direct spans while they are the SDK's quiet ones."""
    client.chat.completions.create(model="chat-mini", messages=CHAT)
    assert observation.current.direct_spans_started == 1  # type: ignore[union-attr]
    extra = InMemorySpanExporter()
    traces.tracer_provider.add_span_processor(SimpleSpanProcessor(extra))
    client.chat.completions.create(model="chat-mini", messages=CHAT)
    assert observation.current.direct_spans_started == 2  # type: ignore[union-attr]
    assert [span.name for span in extra.get_finished_spans()] == ["chat chat-mini"]
    traces.tracer_provider.add_span_processor(StartWatcher())
    client.chat.completions.create(model="chat-mini", messages=CHAT)
    assert observation.current.direct_spans_started == 2  # type: ignore[union-attr]
    assert len(traces.spans("chat")) == 3


def test_a_tracer_that_is_not_the_sdk_s_keeps_its_own_spans(client: gk.Client, caplog: Any) -> None:
    """A tracer of another kind (here the API's no-op one, as with OTEL_SDK_DISABLED) is always asked itself."""
    gk.instrument(tracer_provider=trace.NoOpTracerProvider(), meter_provider=metrics.NoOpMeterProvider())
    try:
        with caplog.at_level(logging.ERROR, logger="gatewaykit"):
            client.chat.completions.create(model="chat-mini", messages=CHAT)
        assert observation.current.direct_spans_started == 0  # type: ignore[union-attr]
        assert not [record for record in caplog.records if "telemetry failed" in record.getMessage()]
    finally:
        gk.uninstrument()


def test_instrument_before_the_global_provider_is_set_gets_direct_spans_once_it_is(tmp_path: Any) -> None:
    """gk.instrument() with no provider yet holds the API's ProxyTracer; once the global SDK provider is set,
    the first request's start_span resolves it and the later ones are direct (its own process: the global
    provider can be set once)."""
    script = textwrap.dedent(
        """
        import gatewaykit as gk
        from gatewaykit.client.core import observation
        from opentelemetry import trace
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import BatchSpanProcessor, SimpleSpanProcessor
        from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

        gk.instrument()
        exporter = InMemorySpanExporter()
        provider = TracerProvider()
        provider.add_span_processor(SimpleSpanProcessor(exporter))
        trace.set_tracer_provider(provider)
        with gk.emulator.start(time_scale=0) as gateway:
            with gk.Client(api_key=gateway.api_key, base_url=gateway.base_url, display=False) as client:
                for _ in range(3):
                    client.chat.completions.create(model="chat-mini", messages=[{"role": "user", "content": "hi"}])
        print("DIRECT", observation.current.direct_spans_started)
        print("SPANS", [span.name for span in exporter.get_finished_spans()])
        """
    )
    environment = {**os.environ, "GATEWAYKIT_LEDGER_PATH": str(tmp_path / "l.sqlite")}
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=240, cwd=tmp_path,
                          env=environment)  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    assert "DIRECT 2" in done.stdout, done.stdout
    assert "SPANS ['chat chat-mini', 'chat chat-mini', 'chat chat-mini']" in done.stdout


def _cost_points(reader: InMemoryMetricReader) -> float:
    data = reader.get_metrics_data()
    return sum(
        point.value
        for resource in (data.resource_metrics if data else ())
        for scope in resource.scope_metrics
        for metric in scope.metrics
        if metric.name == "gatewaykit.client.cost"
        for point in metric.data.data_points
    )


def test_an_answer_s_values_are_worked_out_by_whichever_reads_them_first(client: gk.Client) -> None:
    """Behind a batch processor a chat's span is queued before its answer's values (tokens, cost) are
    worked out; the metrics' collection reads them first here, the exporter after, and both get them."""
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(BatchSpanProcessor(exporter, schedule_delay_millis=600_000))
    reader = InMemoryMetricReader()
    gk.instrument(tracer_provider=provider, meter_provider=MeterProvider(metric_readers=[reader]))
    try:
        answers = [client.chat.completions.create(model="chat-mini", messages=CHAT) for _ in range(3)]
        assert exporter.get_finished_spans() == ()  # queued in the processor, not exported yet
        charged = sum(answer.usage.cost.total_cost for answer in answers)
        assert _cost_points(reader) == pytest.approx(charged, abs=1e-9)
        provider.force_flush()
        spans = exporter.get_finished_spans()
        assert [span.name for span in spans] == ["chat chat-mini"] * 3
        assert sum(span.attributes["gen_ai.usage.cost.amount"] for span in spans) == pytest.approx(charged, abs=1e-9)
        for span, answer in zip(spans, answers):
            assert span.attributes["gen_ai.usage.output_tokens"] == answer.usage.completion_tokens
            assert span.attributes["gen_ai.response.id"] == answer.id
    finally:
        gk.uninstrument()
        provider.shutdown()


def test_last_attributes_that_fail_are_logged_and_the_span_still_exported(caplog: Any) -> None:
    """What ``end_later`` is given runs wherever the span is first read (an exporter's thread): if it fails,
    the span goes out with the attributes it had, and the failure is logged."""
    from gatewaykit.telemetry.direct_spans import DirectSpans

    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    span = DirectSpans(provider.get_tracer("test")).start("chat m", trace.SpanKind.CLIENT, {"gen_ai.request.model": "m"})
    span.set_attributes({"gatewaykit.status": "ok"})
    with caplog.at_level(logging.ERROR, logger="gatewaykit"):
        span.end_later(lambda: {"gen_ai.usage.cost.amount": 1 / 0})
    (exported,) = exporter.get_finished_spans()
    assert dict(exported.attributes) == {"gen_ai.request.model": "m", "gatewaykit.status": "ok"}
    assert "could not be worked out" in caplog.text and "ZeroDivisionError" in caplog.text
    span.set_attributes({"late": 1})  # an ended span takes nothing more, as the SDK's
    assert "late" not in exported.attributes


def _reaches(start: Any, target: Any, limit: int = 20_000) -> bool:
    """Whether ``target`` can be reached from ``start`` through references (breadth first, ``limit`` objects)."""
    import gc

    seen, frontier = {id(start)}, [start]
    while frontier and len(seen) < limit:
        following = []
        for each in frontier:
            for referent in gc.get_referents(each):
                if referent is target:
                    return True
                if id(referent) not in seen and not isinstance(referent, type):
                    seen.add(id(referent))
                    following.append(referent)
        frontier = following
    return False


def test_a_queued_span_does_not_hold_the_answer(client: gk.Client) -> None:
    """A span waiting in a batch processor's queue keeps what it will say of the answer (model, id, finish
    reasons), not the answer itself: a run of images is not held in memory until the next export."""
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    processor = BatchSpanProcessor(exporter, schedule_delay_millis=600_000)
    provider.add_span_processor(processor)
    gk.instrument(tracer_provider=provider, meter_provider=MeterProvider(metric_readers=[InMemoryMetricReader()]))
    try:
        image = client.images.generate(model=client.models.pick("image"), prompt="a lighthouse at dusk")
        chat = client.chat.completions.create(model="chat-mini", messages=CHAT)
        queued = list(processor._batch_processor._queue)  # the SDK's queue: what waits for the export thread
        assert len(queued) == 2
        assert not any(_reaches(span, answer) for span in queued for answer in (image, chat))
        assert not _reaches(observation.current, image)  # nor do the queued metrics
        provider.force_flush()
        spans = {span.name.split()[0]: span for span in exporter.get_finished_spans()}
        assert spans["chat"].attributes["gen_ai.response.id"] == chat.id
        assert spans["chat"].attributes["gen_ai.response.finish_reasons"] == ("stop",)
    finally:
        gk.uninstrument()
        provider.shutdown()


def test_with_only_the_api_installed_instrument_works_and_requests_go_through(tmp_path: Any) -> None:
    """``gatewaykit[otel]`` installs OpenTelemetry's API only: with the SDK not importable, gk.instrument()
    still works (the API's tracer: no spans), and requests and the ledger go on as before."""
    script = textwrap.dedent(
        """
        import importlib.abc, logging, sys

        class NoSdk(importlib.abc.MetaPathFinder):
            def find_spec(self, name, path=None, target=None):
                if name == "opentelemetry.sdk" or name.startswith("opentelemetry.sdk."):
                    raise ImportError("no SDK here: " + name)
                return None

        sys.meta_path.insert(0, NoSdk())
        logging.basicConfig(level=logging.ERROR)
        import gatewaykit as gk

        gk.instrument()
        with gk.emulator.start(time_scale=0) as gateway:
            with gk.Client(api_key=gateway.api_key, base_url=gateway.base_url, display=False,
                           ledger=gk.Ledger(path=None)) as client:
                answer = client.chat.completions.create(model="chat-mini", messages=[{"role": "user", "content": "hi"}])
                print("ANSWER", bool(answer.choices[0].message.content), "ROWS", len(client.ledger.rows))
        gk.uninstrument()
        print("SDK LOADED", any(name.startswith("opentelemetry.sdk") for name in sys.modules))
        """
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=240, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "ANSWER True ROWS 1" in done.stdout and "SDK LOADED False" in done.stdout, done.stdout
    assert "telemetry failed" not in done.stderr, done.stderr[-3000:]


def test_an_sdk_whose_readable_span_has_a_field_direct_spans_do_not_set_keeps_start_span(
    traces: Any, client: gk.Client, monkeypatch: Any
) -> None:
    """A DirectSpan is read as a ReadableSpan without its __init__; an SDK version whose ReadableSpan keeps
    one more field (as read from a real instance at import) would have exporters read a missing one, so
    its requests keep the SDK's start_span (a fresh gk.instrument() looks again)."""
    from gatewaykit.telemetry import direct_spans

    monkeypatch.setattr(direct_spans, "_READABLE_FIELDS", direct_spans._READABLE_FIELDS | {"_a_new_field"})
    gk.instrument(tracer_provider=traces.tracer_provider, meter_provider=traces.meter_provider)
    client.chat.completions.create(model="chat-mini", messages=CHAT)
    assert observation.current.direct_spans_started == 0  # type: ignore[union-attr]
    span = traces.one("chat chat-mini")
    assert type(span) is ReadableSpan and span.attributes["gen_ai.usage.output_tokens"] > 0


def test_a_request_waiting_for_its_export_holds_three_objects_a_garbage_collection_walks() -> None:
    """Spans wait in a batch processor's queue (512, or 5 s) and metrics for a reader (60 s): at volume,
    thousands. Each object a waiting request holds is walked by every garbage collection meanwhile and
    brings the next full one closer, so a request holds three more than untraced: its span, its span
    context and its worked-later values (not a lock, a list of attribute sets, bound methods, a queue
    tuple, the answer's fields: 12 before).

    Over MockTransport (the same answer each time): a gateway serving in this process adds objects of its own
    (an event loop's timer handles and contexts) that have nothing to do with the client; and only the kinds
    a request's telemetry could hold are compared, so another thread's work cannot count."""
    import gc
    from collections import Counter

    answer = (b'{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"chat-mini","choices":[{"index":0,'
              b'"finish_reason":"stop","message":{"role":"assistant","content":"Hello"}}],'
              b'"usage":{"prompt_tokens":9,"completion_tokens":2,"total_tokens":11,"cost":{"total_cost":0.00001}}}')
    transport = httpx.MockTransport(
        lambda request: httpx.Response(200, content=answer, headers={"content-type": "application/json"}))
    watched = {"DirectSpan", "SpanContext", "_LastValues", "_Running", "Span", "ReadableSpan", "NonRecordingSpan",
               "dict", "list", "tuple", "method", "lock", "function", "cell", "deque", "LedgerRow"}

    def held_per_request(traced: bool) -> dict[str, float]:
        never = BatchSpanProcessor(InMemorySpanExporter(), max_queue_size=4096, max_export_batch_size=4096,
                                   schedule_delay_millis=10**8)  # fmt: skip  # exports nothing during the test
        provider = TracerProvider()
        provider.add_span_processor(never)
        if traced:
            gk.instrument(tracer_provider=provider,
                          meter_provider=MeterProvider(metric_readers=[InMemoryMetricReader()]))  # fmt: skip
        try:
            with gk.Client(api_key=ACME_KEY, base_url="http://gateway.test", display=False, ledger=gk.Ledger(path=None),
                           max_retries=0, http_transport=transport) as client:  # fmt: skip
                client.chat.completions.create(model="chat-mini", messages=CHAT)  # warm: shapes, caches
                counts = []
                for requests in (0, 40):
                    for _ in range(requests):
                        client.chat.completions.create(model="chat-mini", messages=CHAT)
                    gc.collect()
                    counts.append(Counter(type(each).__name__ for each in gc.get_objects()))
                if traced:
                    assert observation.current.direct_spans_started == 41  # type: ignore[union-attr]
        finally:
            gk.uninstrument()
            provider.shutdown()
        return {name: count / 40 for name, count in (counts[1] - counts[0]).items() if name in watched}

    untraced, traced = held_per_request(False), held_per_request(True)
    assert untraced.get("LedgerRow") == 1.0  # the ledger's own row, traced or not
    more = {name: count - untraced.get(name, 0) for name, count in traced.items()}
    assert {name: count for name, count in more.items() if count >= 0.5} == {
        "DirectSpan": 1.0, "SpanContext": 1.0, "_LastValues": 1.0
    }
