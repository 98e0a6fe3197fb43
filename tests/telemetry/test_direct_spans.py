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
from opentelemetry.sdk.trace import SpanLimits, SpanProcessor, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.sdk.trace.sampling import ALWAYS_OFF

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

    def __init__(self, emulator: Any, make_provider: Callable[[], TracerProvider], capture: bool) -> None:
        self.exporter = InMemorySpanExporter()
        self.provider = make_provider()
        self.provider.add_span_processor(SimpleSpanProcessor(self.exporter))
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
    spans = run.exporter.get_finished_spans()
    position = {span.context.span_id: index for index, span in enumerate(spans)}
    sent = [header for header in run.headers.traceparents if header is not None]
    described = []
    for span in spans:
        context, parent = span.context, span.parent
        header = "00-%032x-%016x-%02x" % (context.trace_id, context.span_id, context.trace_flags)
        described.append({
            "type": type(span).__name__, "name": span.name, "kind": span.kind,
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


def _limited() -> TracerProvider:
    return TracerProvider(span_limits=SpanLimits(max_span_attributes=9, max_span_attribute_length=5))


CONFIGURATIONS = {
    "the SDK's defaults": (TracerProvider, False),
    "a resource and captured content": (lambda: TracerProvider(resource=Resource.create({"service.name": "lab"})), True),
    "span limits that cut": (_limited, True),
    "a value length limit": (lambda: TracerProvider(span_limits=SpanLimits(max_span_attribute_length=4)), True),
    "a sampler that drops every span": (lambda: TracerProvider(sampler=ALWAYS_OFF), False),
}


@pytest.fixture
def runs(emulator: Any, request: Any) -> Iterator[tuple[Run, Run]]:
    make_provider, capture = CONFIGURATIONS[request.param]
    pair = (Run(emulator, make_provider, capture), Run(emulator, make_provider, capture))
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
    assert direct.direct_spans_started == 8 and sdk.direct_spans_started == 0  # each took the way it should
    mine, theirs = _exported(direct_run), _exported(sdk_run)
    assert mine == theirs
    assert len(direct_run.headers.traceparents) == len(sdk_run.headers.traceparents)
    if direct_run.provider.sampler is ALWAYS_OFF:
        assert mine == [] and direct_run.headers.traceparents[-1].endswith("-02")  # sent, not sampled
    else:
        clients = [span for span in mine if span.get("kind") == trace.SpanKind.CLIENT]
        assert len(clients) == 8 and all(span["its traceparent was sent"] for span in clients)
        assert any(span["status"][0] == trace.StatusCode.ERROR for span in clients)
        assert any(span["parent"] == "outside" or isinstance(span["parent"], int) for span in clients)


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
        from opentelemetry.sdk.trace.export import SimpleSpanProcessor
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
