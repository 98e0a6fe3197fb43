"""The classroom server's memory while several students' large answers are buffered at once.

Starts the offline gateway (for the catalog and one real chat answer), a small
upstream in this process that answers every chat with that answer grown to
``--answer-mb`` megabytes (a misbehaving or very generous gateway), and a
classroom in front of it (``python -m gatewaykit.classroom``, its own process).
Then ``--students`` chats at once, and prints the classroom's resident memory
before, its peak (``VmHWM``) and what the students got (200s, 502s, 503s).

Run it against another tree with ``PYTHONPATH=<tree>/src`` to compare.

Usage: python benchmarks/classroom_memory.py [--answer-mb 60] [--students 8]
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import httpx

TEACHER = "sk-bf-benchmark-teacher-000000000000"
ADMIN = "bench-admin"


def _start(command: list[str], env: dict, marker: str) -> tuple[subprocess.Popen, str]:
    process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True, env=env)
    while True:
        line = process.stdout.readline()  # type: ignore[union-attr]
        if not line:
            raise RuntimeError(f"{command[2]} did not start")
        if marker in line:
            return process, line


def _memory_mb(pid: int, field: str) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    return 0.0


async def _serve_big(gateway_url: str, answer_mb: float) -> tuple[asyncio.AbstractServer, int]:
    """An upstream that passes GET /v1/models on and answers chats with a real answer padded to ``answer_mb``."""
    async with httpx.AsyncClient(base_url=gateway_url, trust_env=False,
                                 headers={"Authorization": f"Bearer {TEACHER}"}) as client:
        models = (await client.get("/v1/models")).content
        real = (await client.post("/v1/chat/completions", json={"model": "chat-mini", "max_tokens": 20, "messages": [
            {"role": "user", "content": "hi"}]})).json()
    big = json.dumps({**real, "padding": "x" * int(answer_mb * 1e6)}).encode()

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                length = 0
                for line in head.split(b"\r\n"):
                    if line.lower().startswith(b"content-length:"):
                        length = int(line.split(b":")[1])
                await reader.readexactly(length)
                body = models if head.startswith(b"GET /v1/models") else big
                writer.write(b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: "
                             + str(len(body)).encode() + b"\r\n\r\n")
                writer.write(body)
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError, asyncio.CancelledError):
            writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    return server, server.sockets[0].getsockname()[1]


async def _students(room_url: str, keys: list[str], count: int) -> collections.Counter:
    async def one(key: str) -> int:
        async with httpx.AsyncClient(base_url=room_url, timeout=300, trust_env=False) as client:
            answer = await client.post("/v1/chat/completions", headers={"Authorization": f"Bearer {key}"},
                                       json={"model": "chat-mini", "max_tokens": 20,
                                             "messages": [{"role": "user", "content": "hi"}]})
            return answer.status_code

    return collections.Counter(await asyncio.gather(*(one(keys[i % len(keys)]) for i in range(count))))


async def _run(args: argparse.Namespace, gateway_url: str, folder: Path, env: dict) -> None:
    server, port = await _serve_big(gateway_url, args.answer_mb)
    roster = folder / "roster.csv"
    roster.write_text("student\n" + "".join(f"student{i:02}\n" for i in range(args.students)))
    room = None
    try:
        room, line = await asyncio.to_thread(_start, [
            sys.executable, "-m", "gatewaykit.classroom", "--upstream", f"http://127.0.0.1:{port}", "--roster",
            str(roster), "--cap", "100000", "--db", str(folder / "class.db"), "--keys-out", str(folder / "keys.csv"),
            "--port", "0", "--admin-token", ADMIN], env, "classroom on")
        room_url = line.split("classroom on ", 1)[1].split()[0]
        keys = [row.split(",")[1] for row in (folder / "keys.csv").read_text().splitlines()[1:]]
        before = _memory_mb(room.pid, "VmRSS")
        statuses = await _students(room_url, keys, args.students)
        peak = _memory_mb(room.pid, "VmHWM")
        print(f"classroom memory, {args.students} students' {args.answer_mb:g} MB answers at once: "
              f"{before:.0f} MB before, peak {peak:.0f} MB (+{peak - before:.0f} MB); answers: "
              + ", ".join(f"{count} x {status}" for status, count in sorted(statuses.items())))
    finally:
        if room is not None:
            room.terminate()
            room.wait(timeout=30)
        server.close()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--answer-mb", type=float, default=60.0)
    parser.add_argument("--students", type=int, default=8)
    parser.add_argument("--smoke", action="store_true", help="tiny answers (1 MB, 2 students): checks the script runs")
    args = parser.parse_args()
    if args.smoke:
        args.answer_mb, args.students = 1.0, 2
    folder = Path(tempfile.mkdtemp(prefix="classroom-memory-"))
    accounts = folder / "accounts.json"
    accounts.write_text(json.dumps({"accounts": [{"id": "teacher", "balance_usd": 1_000_000,
                                                  "rate_limit": {"requests": 10**9, "per_seconds": 1},
                                                  "keys": [{"key": TEACHER}]}]}))
    env = {**os.environ, "SVC_API_KEY": TEACHER}
    gateway, line = _start([sys.executable, "-m", "gatewaykit.emulator", "--port", "0", "--time-scale", "0",
                            "--accounts", str(accounts), "--admin-token", ADMIN], env, "http://")
    gateway_url = "http://" + line.split("http://", 1)[1].split()[0]
    try:
        asyncio.run(_run(args, gateway_url, folder, env))
    finally:
        gateway.terminate()
        gateway.wait(timeout=30)


if __name__ == "__main__":
    main()
