"""Make ``docs/images/phoenix-trace.png``: a short gatewaykit run's spans in Arize Phoenix's trace view.

Phoenix is not one of gatewaykit's dependencies (nor CI's): install it in a venv of its own,

    python -m venv /work/venvs/phoenix && /work/venvs/phoenix/bin/pip install arize-phoenix
    PYTHONPATH=src .venv/bin/python docs/images/phoenix_screenshot.py --phoenix /work/venvs/phoenix/bin/phoenix

As root with ``unshare`` the script runs itself in a network namespace of its own that has only a
loopback interface (Phoenix's OTLP/gRPC port binds every interface; there it has only 127.0.0.1,
and nothing can reach beyond the machine). It starts Phoenix on 127.0.0.1, runs the offline gateway
and a short gatewaykit session (a chat, a streamed chat, an image, a video job, a compare) with
``gk.instrument()`` and OpenTelemetry's OTLP/HTTP exporter sending to Phoenix, then opens the
compare's trace in Debian's chromium (Playwright, ``executable_path`` = the system's chromium: no
browser is downloaded) and saves the page as a small PNG.
"""

from __future__ import annotations

import argparse
import io
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
PROJECT = "gatewaykit"


def isolate() -> None:
    """Run this script again inside a network namespace with loopback only (root and unshare needed)."""
    if os.environ.get("GK_LOOPBACK_ONLY") == "1" or os.geteuid() != 0 or not shutil.which("unshare"):
        return
    os.environ["GK_LOOPBACK_ONLY"] = "1"
    script = 'ip link set lo up && exec "$0" "$@"'
    os.execvp("unshare", ["unshare", "--net", "sh", "-c", script, sys.executable, *sys.argv])


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def start_phoenix(executable: str, workdir: Path) -> tuple[subprocess.Popen[bytes], str]:
    port, grpc_port = free_port(), free_port()
    environment = {**os.environ, "PHOENIX_HOST": "127.0.0.1", "PHOENIX_PORT": str(port),
                   "PHOENIX_GRPC_PORT": str(grpc_port), "PHOENIX_WORKING_DIR": str(workdir),
                   "PHOENIX_TELEMETRY_ENABLED": "false"}  # fmt: skip
    log = open(workdir / "phoenix.log", "wb")  # noqa: SIM115 - kept open for the server's life
    process = subprocess.Popen([executable, "serve"], env=environment, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"phoenix stopped: see {workdir / 'phoenix.log'}")
        try:
            with urllib.request.urlopen(url + "/healthz", timeout=2):
                return process, url
        except OSError:
            time.sleep(0.5)
    process.terminate()
    raise SystemExit("phoenix did not answer within 180 s")


def export_a_run(phoenix_url: str) -> str:
    """A short session on the offline gateway, traced, its spans sent to Phoenix over OTLP/HTTP.

    The session runs inside one span of the notebook's own (as a cell traced with Logfire or an
    OpenTelemetry tracer would be), so Phoenix shows it as one trace; returns that trace's id.
    """
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor

    import gatewaykit as gk

    provider = TracerProvider(resource=Resource.create({"service.name": "notebook",
                                                        "openinference.project.name": PROJECT}))  # fmt: skip
    provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter(endpoint=phoenix_url + "/v1/traces")))
    gk.instrument(tracer_provider=provider)
    try:
        with gk.emulator.start(time_scale=0.1) as gateway, gk.Client(
            api_key=gateway.api_key, base_url=gateway.base_url, display=False
        ) as client, provider.get_tracer("notebook").start_as_current_span("notebook cell") as cell:
            ask = [{"role": "user", "content": "Name three rivers in Europe"}]
            client.chat.completions.create(model="chat-mini", messages=ask, max_tokens=60)
            for _ in client.chat.completions.create(model="chat-mini", messages=ask, stream=True):
                pass
            client.images.generate(model=client.models.pick("image"), prompt="a lighthouse at dusk")
            client.videos.create(model=client.models.pick("video"), prompt="waves on rocks").wait(timeout=120)
            models = [entry.id for entry in client.models.list() if entry.kind == "chat"][:3]
            client.compare("Explain a queue in one sentence", models=models)
        return format(cell.get_span_context().trace_id, "032x")
    finally:
        gk.uninstrument()
        provider.shutdown()  # sends what is left


def screenshot(phoenix_url: str, trace_id: str, out: Path, *, width: int = 1400, height: int = 680) -> None:
    """The trace's page, one of the compare's chats selected, its attributes filtered to ``gen_ai.usage``."""
    from PIL import Image
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=shutil.which("chromium"), args=["--no-sandbox", "--disable-background-networking"]
        )
        page = browser.new_page(viewport={"width": width, "height": height})
        page.goto(f"{phoenix_url}/redirects/traces/{trace_id}", wait_until="networkidle")
        page.get_by_text("invoke_workflow compare").first.wait_for(timeout=120_000)
        page.get_by_text("chat chat-reasoner").first.click()
        page.get_by_role("tab", name="Attributes").click()
        page.get_by_role("button", name="Search JSON keys and values").click()
        page.keyboard.type("gen_ai.usage")
        page.get_by_text("server.address", exact=True).wait_for(state="hidden", timeout=60_000)  # filtered
        page.get_by_text("gen_ai.usage.cost.amount", exact=True).wait_for(timeout=60_000)
        page.wait_for_load_state("networkidle")
        png = page.screenshot()
        browser.close()
    picture = Image.open(io.BytesIO(png)).convert("RGB").quantize(colors=128)  # a few flat colours: small PNG
    picture.save(out, optimize=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--phoenix", default="/work/venvs/phoenix/bin/phoenix", help="the phoenix command")
    parser.add_argument("--out", type=Path, default=HERE / "phoenix-trace.png")
    parser.add_argument("--keep", action="store_true", help="leave Phoenix running (prints its URL)")
    args = parser.parse_args()
    isolate()
    with tempfile.TemporaryDirectory(prefix="phoenix-") as workdir:
        process, url = start_phoenix(args.phoenix, Path(workdir))
        try:
            trace_id = export_a_run(url)
            screenshot(url, trace_id, args.out)
            print("wrote", args.out, args.out.stat().st_size, "bytes")
        finally:
            process.terminate()
            process.wait(timeout=30)


if __name__ == "__main__":
    main()
