"""Spans leave the process the ways teams receive them: OTLP over HTTP, and Logfire's console."""

from __future__ import annotations

import gzip
import http.server
import os
import subprocess
import sys
import textwrap
import threading
import time
from typing import Any, Iterator

import pytest

import gatewaykit as gk
from gateway_accounts import ACME_KEY

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest


class Receiver(http.server.ThreadingHTTPServer):
    """A local OTLP/HTTP receiver: keeps every ExportTraceServiceRequest posted to /v1/traces."""

    def __init__(self) -> None:
        self.requests: list[ExportTraceServiceRequest] = []
        super().__init__(("127.0.0.1", 0), _Handler)


class _Handler(http.server.BaseHTTPRequestHandler):
    def do_POST(self) -> None:  # noqa: N802 - http.server's name
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        if self.headers.get("Content-Encoding") == "gzip":
            body = gzip.decompress(body)
        if self.path == "/v1/traces":
            message = ExportTraceServiceRequest()
            message.ParseFromString(body)
            self.server.requests.append(message)  # type: ignore[attr-defined]
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    server = Receiver()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


def test_spans_export_over_otlp_http_to_a_local_receiver(receiver: Receiver, emulator: Any) -> None:
    """OTLP/HTTP (protobuf) carries the chat span with its gen_ai attributes and the reported cost."""
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor

    provider = TracerProvider()
    endpoint = f"http://127.0.0.1:{receiver.server_address[1]}/v1/traces"
    provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter(endpoint=endpoint)))
    gk.instrument(tracer_provider=provider)
    try:
        with gk.Client(api_key=ACME_KEY, base_url=emulator.base_url, display=False, ledger=gk.Ledger(path=None)) as client:
            completion = client.chat.completions.create(model="chat-mini", messages=[{"role": "user", "content": "hi"}])
    finally:
        gk.uninstrument()
    assert provider.force_flush(30_000)
    deadline = time.monotonic() + 30
    while not receiver.requests and time.monotonic() < deadline:
        time.sleep(0.05)
    provider.shutdown()
    spans = [span for request in receiver.requests for resource in request.resource_spans
             for scope in resource.scope_spans for span in scope.spans]  # fmt: skip
    (span,) = [span for span in spans if span.name == "chat chat-mini"]
    attributes = {item.key: item.value for item in span.attributes}
    assert attributes["gen_ai.operation.name"].string_value == "chat"
    assert attributes["gen_ai.usage.cost.amount"].double_value == completion.usage.cost.total_cost
    assert attributes["gen_ai.usage.cost.currency"].string_value == "USD"
    assert attributes["gen_ai.usage.cost.source"].string_value == "provider"
    scopes = {scope.scope.name for request in receiver.requests for resource in request.resource_spans for scope in resource.scope_spans}
    assert scopes == {"gatewaykit"}


def test_logfire_configured_to_send_nowhere_shows_the_spans_on_its_console(tmp_path: Any) -> None:
    """logfire.configure(send_to_logfire=False): gk.instrument() with no providers uses Logfire's, whose console prints them."""
    pytest.importorskip("logfire")
    script = textwrap.dedent(
        """
        import logfire
        import gatewaykit as gk

        logfire.configure(send_to_logfire=False, console=logfire.ConsoleOptions(verbose=True, colors="never"))
        gk.instrument()
        with gk.emulator.start(time_scale=0) as gateway:
            with gk.Client(api_key=gateway.api_key, base_url=gateway.base_url, display=False) as client:
                client.chat.completions.create(model="chat-mini", messages=[{"role": "user", "content": "hi"}])
        logfire.force_flush()
        """
    )
    environment = {**os.environ, "LOGFIRE_SEND_TO_LOGFIRE": "false", "GATEWAYKIT_LEDGER_PATH": str(tmp_path / "l.sqlite")}
    environment.pop("LOGFIRE_TOKEN", None)
    environment.pop("PYDANTIC_DISABLE_PLUGINS", None)  # Logfire as a user has it
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=240, env=environment, cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "chat chat-mini" in done.stdout, done.stdout[-3000:]
