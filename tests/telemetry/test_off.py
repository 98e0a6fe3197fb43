"""With telemetry off nothing of OpenTelemetry is imported, and the async client traces like the sync one."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import textwrap
from typing import Any

import gatewaykit as gk
from gateway_accounts import ACME_KEY


def test_without_instrument_no_opentelemetry_module_is_loaded(tmp_path: Any) -> None:
    """A process that never calls gk.instrument() makes requests without importing opentelemetry."""
    script = textwrap.dedent(
        """
        import sys
        import gatewaykit as gk
        with gk.emulator.start(time_scale=0) as gateway:
            with gk.Client(api_key=gateway.api_key, base_url=gateway.base_url, display=False) as client:
                client.chat.completions.create(model="chat-mini", messages=[{"role": "user", "content": "hi"}])
                job = client.videos.create(model=client.models.pick("video"), prompt="sea")
                job.wait(timeout=60)
        loaded = sorted(name for name in sys.modules if name.startswith("opentelemetry") or name.startswith("gatewaykit.telemetry"))
        print("LOADED", loaded)
        """
    )
    # Logfire (installed for test_exporters) registers a pydantic plugin that imports OpenTelemetry into any
    # process that builds a pydantic validator; that is Logfire's doing, so it is turned off here.
    environment = {**os.environ, "GATEWAYKIT_LEDGER_PATH": str(tmp_path / "l.sqlite"),
                   "PYDANTIC_DISABLE_PLUGINS": "logfire-plugin"}  # fmt: skip
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=240, cwd=tmp_path,
                          env=environment)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "LOADED []" in done.stdout


def test_the_async_client_makes_the_same_spans(traces: Any, emulator: Any) -> None:
    """AsyncClient: a chat span, and an async map's requests under its invoke_workflow span."""

    async def run() -> None:
        async with gk.AsyncClient(api_key=ACME_KEY, base_url=emulator.base_url, display=False,
                                  ledger=gk.Ledger(path=None)) as client:  # fmt: skip
            async def ask(prompt: str) -> Any:
                return await client.chat.completions.create(model="chat-mini", messages=[{"role": "user", "content": prompt}])

            await ask("alone")
            await client.map(ask, ["a", "b"])

    asyncio.run(run())
    chats = traces.spans("chat chat-mini")
    assert len(chats) == 3
    parent = traces.one("invoke_workflow map")
    assert len([span for span in chats if span.parent and span.parent.span_id == parent.context.span_id]) == 2
    assert all("gen_ai.usage.cost.amount" in span.attributes for span in chats)
