"""Throughput of the offline gateway at time-scale 0.

Starts ``python -m gatewaykit.emulator`` in its own process, then drives it from
this process with 32 concurrent keep-alive connections (a minimal asyncio HTTP/1.1
client, so the client costs little CPU):

- non-streamed chats per second (chat-mini, short answers and full Markdown answers);
- streamed completion tokens per second (include_usage gives the token counts).

Usage: python benchmarks/gateway_throughput.py [--seconds 5] [--clients 32] [--smoke]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import subprocess
import sys
import tempfile
import time

KEY = "sk-bf-benchmark-0000000000000000"


async def _request(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, host: str, body: bytes) -> bytes:
    writer.write(b"POST /v1/chat/completions HTTP/1.1\r\nHost: " + host.encode() + b"\r\nAuthorization: Bearer "
                 + KEY.encode() + b"\r\nContent-Type: application/json\r\nContent-Length: "
                 + str(len(body)).encode() + b"\r\n\r\n" + body)
    head = await reader.readuntil(b"\r\n\r\n")
    headers = head.lower()
    if b"transfer-encoding: chunked" in headers:
        chunks = []
        while True:
            size = int((await reader.readuntil(b"\r\n")).strip(), 16)
            chunk = await reader.readexactly(size + 2)
            if size == 0:
                break
            chunks.append(chunk[:-2])
        payload = b"".join(chunks)
    else:
        length = int(headers.split(b"content-length: ")[1].split(b"\r\n")[0])
        payload = await reader.readexactly(length)
    if not head.startswith(b"HTTP/1.1 200"):  # an error is a failure of the run, not a figure
        status = head.split(b"\r\n", 1)[0].decode()
        raise RuntimeError(f"{status}: {payload[:300].decode(errors='replace')}")
    return payload


async def _client(host: str, port: int, body: bytes, until: float, counts: list[int], streamed: bool) -> None:
    reader, writer = await asyncio.open_connection(host, port)
    authority = f"{host}:{port}"  # the gateway answers only to its own address, port included (421 otherwise)
    try:
        while time.monotonic() < until:
            payload = await _request(reader, writer, authority, body)
            if streamed:
                final = [line for line in payload.split(b"\n\n") if b'"usage"' in line][-1]
                counts.append(json.loads(final[6:])["usage"]["completion_tokens"])
            else:
                counts.append(1)
    finally:
        writer.close()


async def run(host: str, port: int, seconds: float, clients: int, body: dict, streamed: bool) -> tuple[int, float]:
    counts: list[int] = []
    encoded = json.dumps(body).encode()
    began = time.monotonic()
    await asyncio.gather(*(_client(host, port, encoded, began + seconds, counts, streamed) for _ in range(clients)))
    return sum(counts), time.monotonic() - began


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--clients", type=int, default=32)
    parser.add_argument("--smoke", action="store_true", help="a few seconds with tiny counts: checks the script still runs (tests/test_benchmarks_smoke.py); no figures to keep")
    args = parser.parse_args()
    warm_up = 1.0
    if args.smoke:
        args.seconds, args.clients, warm_up = 0.3, 2, 0.1
    accounts = {"accounts": [{"id": "bench", "balance_usd": 1_000_000, "rate_limit": {"requests": 10**9,
                                                                                        "per_seconds": 1},
                              "keys": [{"key": KEY}]}]}
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as handle:
        json.dump(accounts, handle)
    server = subprocess.Popen([sys.executable, "-m", "gatewaykit.emulator", "--port", "0", "--time-scale", "0",
                               "--accounts", handle.name], stdout=subprocess.PIPE, text=True)
    try:
        url = server.stdout.readline().split(": ", 1)[1].strip()
        host, port = url.removeprefix("http://").rsplit(":", 1)
        short = {"model": "chat-mini", "messages": [{"role": "user", "content": "Say hello briefly"}]}
        full = {"model": "chat-mini", "messages": [{"role": "user", "content": "Explain connection pooling"}]}
        stream = {**full, "stream": True, "stream_options": {"include_usage": True}}
        asyncio.run(run(host, int(port), warm_up, args.clients, short, False))
        for label, body in (("short answers", short), ("full Markdown answers", full)):
            done, elapsed = asyncio.run(run(host, int(port), args.seconds, args.clients, body, False))
            assert done > 0, f"no chat ({label}) answered in {elapsed:.1f} s"
            print(f"non-streamed chats ({label}), {args.clients} clients: {done / elapsed:,.0f} chats/s")
        tokens, elapsed = asyncio.run(run(host, int(port), args.seconds, args.clients, stream, True))
        assert tokens > 0, f"no streamed token in {elapsed:.1f} s"
        print(f"streamed chats, {args.clients} clients: {tokens / elapsed:,.0f} completion tokens/s")
    finally:
        server.terminate()
        server.wait(timeout=10)


if __name__ == "__main__":
    main()
