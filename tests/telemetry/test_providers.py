"""gk.instrument() with whatever providers a process has: the SDK's, the API's no-op ones, none yet, no SDK."""

from __future__ import annotations

import ast
import logging
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import gatewaykit as gk
from gatewaykit.client.core import observation

from opentelemetry import metrics, trace

CHAT = [{"role": "user", "content": "Name three rivers"}]
TELEMETRY = Path(gk.__file__).parent / "telemetry"


def _private_names_of_others(source: str) -> list[str]:
    """``_name`` attributes read on anything but ``self``/``cls``, and ``_name``s imported from OpenTelemetry."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__"):
            if not (isinstance(node.value, ast.Name) and node.value.id in ("self", "cls")):
                found.append(ast.unparse(node))
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("opentelemetry"):
            found += [alias.name for alias in node.names if alias.name.startswith("_")]
        elif isinstance(node, ast.Call) and getattr(node.func, "id", None) in ("getattr", "hasattr", "setattr"):
            name = node.args[1] if len(node.args) > 1 else None
            if isinstance(name, ast.Constant) and str(name.value).startswith("_"):
                found.append(f"getattr(..., {name.value!r})")
    return found


def test_telemetry_reads_no_private_name_of_opentelemetry() -> None:
    """Spans, metrics and headers go through the API and SDK's public names only (an SDK release cannot break them)."""
    found = {path.name: names for path in sorted(TELEMETRY.glob("*.py"))
             if (names := _private_names_of_others(path.read_text(encoding="utf-8")))}  # fmt: skip
    assert found == {}


def test_a_tracer_that_is_not_the_sdk_s_is_used_as_it_is(client: gk.Client, caplog: Any) -> None:
    """The API's no-op providers (as with OTEL_SDK_DISABLED): requests go through and nothing is logged as failed."""
    gk.instrument(tracer_provider=trace.NoOpTracerProvider(), meter_provider=metrics.NoOpMeterProvider())
    try:
        with caplog.at_level(logging.ERROR, logger="gatewaykit"):
            answer = client.chat.completions.create(model="chat-mini", messages=CHAT)
        assert answer.choices[0].message.content
        assert not [record for record in caplog.records if "telemetry failed" in record.getMessage()]
    finally:
        gk.uninstrument()


def test_instrument_before_the_global_provider_is_set_traces_once_it_is(tmp_path: Any) -> None:
    """gk.instrument() with no provider yet holds the API's ProxyTracer; every request after the global SDK
    provider is set has its span (its own process: the global provider can be set once)."""
    script = textwrap.dedent(
        """
        import gatewaykit as gk
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
        print("SPANS", [span.name for span in exporter.get_finished_spans()])
        """
    )
    environment = {**os.environ, "GATEWAYKIT_LEDGER_PATH": str(tmp_path / "l.sqlite")}
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=240, cwd=tmp_path,
                          env=environment)  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    assert "SPANS ['chat chat-mini', 'chat chat-mini', 'chat chat-mini']" in done.stdout, done.stdout


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
