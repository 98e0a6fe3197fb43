"""Hostile answer bodies (issue 28, items 5 and 6): memory for a gzip bomb, seconds for a hostile error page.

Run: ``PYTHONPATH=src .venv/bin/python benchmarks/hostile_bodies.py [--bomb-mb 0.41] [--smoke]``
(point PYTHONPATH at another checkout's ``src`` to measure that one: the figures are of whatever
``gatewaykit`` imports).

- **gzip bomb**: a loopback HTTP server (127.0.0.1) answers a chat request with ``--bomb-mb`` MB of
  gzip that decodes to about a thousand times that (zeros). Each run is a fresh child process; the
  figure is its peak resident memory (``VmHWM``) minus its memory just before the call, and what
  the call raised.
- **error pages**: ``error_from_response`` over HTML error pages of 60 KB and 200 KB built to make
  backtracking patterns rescan (thousands of unclosed ``<script`` and ``<`` openings); seconds each.
"""

from __future__ import annotations

import argparse
import gzip
import json
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

CHILD = r"""
import json, sys
import gatewaykit as gk
from tests.client.conftest import RecordingLedger
url = sys.argv[1]
client = gk.Client(api_key="sk-bench-0123456789", base_url=url, display=False, validate=False,
                   max_retries=0, ledger=RecordingLedger())
def memory_mb(field):
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024
before = memory_mb("VmRSS")
try:
    client.chat.completions.create(model="m", messages=[{"role": "user", "content": "hi"}])
    outcome = "returned an answer"
except Exception as exc:
    outcome = f"raised {type(exc).__name__}"
peak = memory_mb("VmHWM")  # this process's peak (ru_maxrss would include the parent's, kept across fork+exec)
print(json.dumps({"growth_mb": peak - before, "outcome": outcome}))
"""


def serve(body: bytes) -> ThreadingHTTPServer:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 - http.server's name
            self.rfile.read(int(self.headers.get("content-length") or 0))
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-encoding", "gzip")
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def gzip_bomb(compressed_mb: float) -> tuple[bytes, int]:
    decoded = 1024 * 1024
    while len(gzip.compress(b"\0" * decoded, 9)) < compressed_mb * 1e6:
        decoded *= 2
    low, high = decoded // 2, decoded
    while high - low > 1024 * 1024:  # the decoded size whose gzip is about compressed_mb
        middle = (low + high) // 2
        if len(gzip.compress(b"\0" * middle, 9)) < compressed_mb * 1e6:
            low = middle
        else:
            high = middle
    return gzip.compress(b"\0" * high, 9), high


def bomb_figures(compressed_mb: float) -> None:
    body, decoded = gzip_bomb(compressed_mb)
    server = serve(body)
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}"
        done = subprocess.run([sys.executable, "-c", CHILD, url], capture_output=True, text=True, timeout=600)
        if done.returncode != 0:
            print(done.stderr[-2000:])
            raise SystemExit("the measuring process failed")
        result = json.loads(done.stdout.strip().splitlines()[-1])
    finally:
        server.shutdown()
    print(
        f"gzip bomb: {len(body) / 1e6:.2f} MB on the wire, {decoded / 2**20:.0f} MiB decoded -> "
        f"memory grew {result['growth_mb']:.0f} MB; the call {result['outcome']}"
    )


def page_figures(sizes_kb: tuple[int, ...] = (60, 200)) -> None:
    from gatewaykit.errors import error_from_response

    for size_kb in sizes_kb:
        head = "<html><head><title>502 Bad Gateway</title></head><body><h1>Bad gateway</h1>"
        filler = "<script <style <a "  # openings never closed: each one made the old patterns scan to the end
        page = head + filler * ((size_kb * 1024 - len(head)) // len(filler))
        started = time.perf_counter()
        error = error_from_response(502, page, call="client.chat.completions.create(...)")
        seconds = time.perf_counter() - started
        print(f"HTML error page of {len(page) / 1024:.0f} KB: {seconds:.4f} s to build the error ({type(error).__name__})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bomb-mb", type=float, default=0.41)
    parser.add_argument("--smoke", action="store_true", help="a small bomb and small pages: checks the script still runs")
    args = parser.parse_args()
    page_figures((6,) if args.smoke else (60, 200))
    bomb_figures(0.01 if args.smoke else args.bomb_mb)


if __name__ == "__main__":
    main()
