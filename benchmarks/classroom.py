"""The classroom server's cost: added latency, forwarded chats per second, and report() over a million rows.

Starts the offline gateway (``python -m gatewaykit.emulator``, time-scale 0) and a
classroom in front of it (``python -m gatewaykit.classroom``), each in its own
process, then measures from this process with a minimal asyncio HTTP/1.1 client
(so the client costs little CPU):

- added latency: sequential short chats straight to the gateway and through the
  classroom, p50 and p99 of each and of the difference;
- throughput: 40 students x 8 concurrent keep-alive connections through the classroom,
  forwarded chats per second (and the gateway's own rate with 320 connections, for scale);
- ``report()`` when the database holds a million request rows (it reads the running
  totals, never the rows);
- the course policy's cost: CPU per forwarded chat of a classroom with no policy
  and of one with ``--rpm`` and ``--class-rpm`` (every chat goes through both
  limiters), a scheduled AI-off window to come (every chat checks it) and an
  admin action every 100 ms (each one written to the audit log), in turns.

``--clients``: also the CPU per request of the classroom's upstream client (its
keep-alive pool) against aiohttp's and httpx's clients, each sending the same
chats to the gateway from this process (aiohttp is a benchmark-only comparison,
not a dependency).

Usage: python benchmarks/classroom.py [--seconds 5] [--latency-requests 400] [--rows 1000000] [--smoke] [--clients]
       [--policy-only]

With ``--store sqlite|postgres|both`` it compares the stores instead
(``classroom_stores.py``): ``--instances 3 --students 2000 --connections 48``; with
``--store postgres --mixed --seconds 300`` it checks the caps under 8 concurrent mixed
chat/image/video requests per student spread over the instances instead.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TEACHER = "sk-bf-benchmark-teacher-000000000000"
ADMIN = "bench-admin"
BODY = json.dumps({"model": "chat-mini", "messages": [{"role": "user", "content": "Say hello briefly"}],
                   "max_tokens": 60}).encode()


async def _request(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, host: str, key: str) -> None:
    writer.write(b"POST /v1/chat/completions HTTP/1.1\r\nHost: " + host.encode() + b"\r\nAuthorization: Bearer "
                 + key.encode() + b"\r\nContent-Type: application/json\r\nContent-Length: "
                 + str(len(BODY)).encode() + b"\r\n\r\n" + BODY)
    head = await reader.readuntil(b"\r\n\r\n")
    lower = head.lower()
    if b"transfer-encoding: chunked" in lower:
        while True:
            size = int((await reader.readuntil(b"\r\n")).strip(), 16)
            await reader.readexactly(size + 2)
            if size == 0:
                break
    else:
        await reader.readexactly(int(lower.split(b"content-length: ")[1].split(b"\r\n")[0]))
    if not head.startswith(b"HTTP/1.1 200"):
        raise RuntimeError(head.decode(errors="replace"))


async def _latencies(host: str, port: int, key: str, count: int) -> list[float]:
    reader, writer = await asyncio.open_connection(host, port)
    times = []
    try:
        for _ in range(count):
            began = time.perf_counter()
            await _request(reader, writer, f"{host}:{port}", key)
            times.append(time.perf_counter() - began)
    finally:
        writer.close()
    return times


def _cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process so far (Linux ``/proc``; 0 elsewhere)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def _throughput(host: str, port: int, keys: list[str], per_key: int, seconds: float) -> tuple[float, int]:
    done = 0
    until = time.monotonic() + seconds

    async def connection(key: str) -> None:
        nonlocal done
        reader, writer = await asyncio.open_connection(host, port)
        try:
            while time.monotonic() < until:
                await _request(reader, writer, f"{host}:{port}", key)
                done += 1
        finally:
            writer.close()

    began = time.monotonic()
    await asyncio.gather(*(connection(key) for key in keys for _ in range(per_key)))
    return done / (time.monotonic() - began), done


def _first_tokens(base_url: str, key: str, count: int) -> list[float]:
    """Seconds from sending a streamed chat to its first content chunk, ``count`` times in a row."""
    import httpx

    body = {"model": "chat-mini", "stream": True, "messages": [{"role": "user", "content": "Tell me about rivers"}]}
    times = []
    with httpx.Client(base_url=base_url, headers={"Authorization": f"Bearer {key}"}, timeout=60) as http:
        for _ in range(count):
            began = time.perf_counter()
            with http.stream("POST", "/v1/chat/completions", json=body) as answer:
                first = None
                for line in answer.iter_lines():  # read to the end: the connection is reused
                    if first is None and '"content"' in line:
                        first = time.perf_counter() - began
                times.append(first if first is not None else float("nan"))
    return times


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000


def _start(command: list[str], env: dict, marker: str) -> tuple[subprocess.Popen, str]:
    process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True, env=env)
    while True:
        line = process.stdout.readline()  # type: ignore[union-attr]
        if not line:
            raise RuntimeError(f"{command[2]} did not start")
        if marker in line:
            return process, line


def _report_over_rows(rows: int, folder: Path) -> tuple[float, float]:
    """Seconds of report_rows() and of Classroom.report() (HTTP + DataFrame) with ``rows`` request rows."""
    from gatewaykit import classroom
    from gatewaykit.classroom.store import SQLiteStore

    db = str(folder / "million.db")
    store = SQLiteStore(db)
    students = [f"student{i:02}" for i in range(40)]
    for name in students:
        store.add_student(name, os.urandom(32).hex(), None)
    models = ["chat-mini", "chat-reasoner", "image-gpt", "image-aspect"]
    db_ = store._db  # bulk load: the rows finish_request() would have written, at SQL speed
    db_.execute("BEGIN")
    db_.executemany("INSERT INTO requests (student, model, kind, status, hold_nanos, cost_nanos, window, created) "
                    "VALUES (?, ?, 'chat', 'ok', 1000, 900, 'total', ?)",
                    ((students[i % 40], models[i % 4], 1.7e9 + i) for i in range(rows)))
    db_.execute("INSERT INTO totals (student, model, window, spent_nanos, requests, last_request) SELECT student, "
                "model, window, sum(cost_nanos), count(*), max(created) FROM requests GROUP BY student, model, window")
    db_.execute("COMMIT")
    store.close()
    with classroom.start(upstream="offline", roster=students, db=db, cap=1000.0, announce=False) as room:
        room.report()  # warm-up: pandas loaded
        began = time.perf_counter()
        frame = room.report()
        through_http = time.perf_counter() - began
        assert int(frame["requests"].sum()) == rows
        from gatewaykit.classroom.report import report_rows

        began = time.perf_counter()
        report_rows(room._state)
        direct = time.perf_counter() - began
    return direct, through_http


async def _client_cpu(name: str, gateway_url: str, seconds: float, concurrency: int = 32) -> tuple[float, int]:
    """CPU seconds of this process per chat sent to the gateway by ``name``'s client, ``concurrency`` at once."""
    headers = {"authorization": f"Bearer {TEACHER}", "content-type": "application/json",
               "accept-encoding": "identity"}
    if name == "keepalive":
        from gatewaykit.classroom.keepalive import KeepAlivePool

        pool = KeepAlivePool(gateway_url, timeout=60, trust_env=False)

        async def one() -> None:
            answer = await pool.request("POST", "/v1/chat/completions", list(headers.items()), BODY)
            await answer.aread()

        close = pool.aclose
    elif name == "aiohttp":
        import aiohttp

        session = aiohttp.ClientSession(gateway_url, connector=aiohttp.TCPConnector(limit=512), auto_decompress=False)

        async def one() -> None:
            async with session.post("/v1/chat/completions", data=BODY, headers=headers) as answer:
                await answer.read()

        close = session.close
    else:
        import httpx

        client = httpx.AsyncClient(base_url=gateway_url, trust_env=False,
                                   limits=httpx.Limits(max_connections=512))

        async def one() -> None:
            (await client.post("/v1/chat/completions", content=BODY, headers=headers)).raise_for_status()

        close = client.aclose
    done = 0

    async def worker(until: float) -> None:
        nonlocal done
        while time.monotonic() < until:
            await one()
            done += 1

    try:
        await asyncio.gather(*(worker(time.monotonic() + 0.5) for _ in range(concurrency)))  # warm-up
        done = 0
        cpu = time.process_time()
        await asyncio.gather(*(worker(time.monotonic() + seconds) for _ in range(concurrency)))
        return time.process_time() - cpu, done
    finally:
        await close()


def _admin_actions(url: str, stop: "threading.Event") -> int:
    """An audited admin action (a student's cap set) every 100 ms until ``stop``; how many were made."""
    import httpx

    made = 0
    with httpx.Client(base_url=url, headers={"Authorization": f"Bearer {ADMIN}", "X-Classroom-Origin": "cli"},
                      trust_env=False, timeout=30) as http:
        while not stop.wait(0.1):
            http.post("/_classroom/students/student00/cap", json={"cap_usd": 100000 + made % 7}).raise_for_status()
            made += 1
    return made


def _policy_cost(gateway_url: str, folder: Path, env: dict, seconds: float, rounds: int) -> None:
    """CPU per forwarded chat without and with the course policy (rate limits, a schedule, audited admin actions),
    two classroom processes measured in turns so load changes hit both alike."""
    import threading

    rooms = {}
    try:
        for name, more in (("no policy", []), ("policy", ["--rpm", "1000000", "--class-rpm", "1000000000"])):
            keys_out = folder / f"{name.replace(' ', '-')}-keys.csv"
            process, line = _start([sys.executable, "-m", "gatewaykit.classroom", "--upstream", gateway_url,
                                    "--roster", str(folder / "roster.csv"), "--cap", "100000", "--db",
                                    str(folder / f"{name.replace(' ', '-')}.db"), "--keys-out", str(keys_out),
                                    "--port", "0", "--admin-token", ADMIN, *more], env, "classroom on")
            url = line.split("classroom on ", 1)[1].split()[0]
            keys = [row.split(",")[1] for row in keys_out.read_text().splitlines()[1:]]
            rooms[name] = (process, url, keys)
        import httpx

        policy_url = rooms["policy"][1]
        httpx.post(f"{policy_url}/_classroom/schedules", headers={"Authorization": f"Bearer {ADMIN}"},
                   json={"start": "2099-01-01T09:00", "end": "2099-01-01T11:00", "reason": "exam"},
                   trust_env=False).raise_for_status()
        per_chat: dict[str, list[float]] = {name: [] for name in rooms}
        audited = 0
        for _ in range(rounds):
            for name, (process, url, keys) in rooms.items():
                host, port = url.removeprefix("http://").rsplit(":", 1)
                asyncio.run(_throughput(host, int(port), keys, 4, 0.5))  # warm-up
                stop = threading.Event()
                actions = threading.Thread(target=lambda: None)
                if name == "policy":
                    counted: list[int] = []
                    actions = threading.Thread(target=lambda: counted.append(_admin_actions(url, stop)))
                    actions.start()
                cpu = _cpu_seconds(process.pid)
                _, done = asyncio.run(_throughput(host, int(port), keys, 4, seconds))
                cpu = _cpu_seconds(process.pid) - cpu
                stop.set()
                if name == "policy":
                    actions.join()
                    audited += counted[0]
                per_chat[name].append(cpu / max(done, 1) * 1000)
        base = statistics.median(per_chat["no policy"])
        with_policy = statistics.median(per_chat["policy"])
        print(f"course policy, 40 students x 4 concurrent, {rounds} turns of {seconds:g} s each: CPU per forwarded "
              f"chat {base:.3f} ms without a policy, {with_policy:.3f} ms with --rpm and --class-rpm, a scheduled "
              f"window and {audited} audited admin actions ({with_policy / base - 1:+.1%}; turns: "
              f"{', '.join(f'{a:.3f}/{b:.3f}' for a, b in zip(per_chat['no policy'], per_chat['policy']))} ms)")
    finally:
        for process, _, _ in rooms.values():
            process.terminate()
            process.wait(timeout=30)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--latency-requests", type=int, default=400)
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--smoke", action="store_true", help="a quick run that checks the script works")
    parser.add_argument("--clients", action="store_true",
                        help="also compare the upstream client's CPU per chat with aiohttp's and httpx's")
    parser.add_argument("--store", choices=("sqlite", "postgres", "both"), default=None,
                        help="compare the stores (classroom_stores.py) instead")
    parser.add_argument("--instances", type=int, default=3, help="with --store postgres: classroom processes")
    parser.add_argument("--students", type=int, default=2000, help="with --store: students in the class")
    parser.add_argument("--connections", type=int, default=48, help="with --store: concurrent connections")
    parser.add_argument("--mixed", action="store_true",
                        help="with --store postgres: caps under 8 concurrent mixed chat/image/video requests per "
                             "student over the instances (report vs gateway, pause on all); --seconds bounds it")
    parser.add_argument("--students-at-once", type=int, default=32,
                        help="with --mixed: students whose 8 requests are in flight at the same time")
    parser.add_argument("--policy-only", action="store_true", help="only the course policy's cost")
    args = parser.parse_args()
    if args.store is not None:
        import classroom_stores

        if args.mixed and args.store != "postgres":
            parser.error("--mixed needs --store postgres (one class served by several instances)")
        if args.smoke:
            args.seconds, args.latency_requests, args.students, args.mixed = 1.0, 50, 50, False
        classroom_stores.main(args)
        return
    if args.smoke:
        args.seconds, args.latency_requests, args.rows = 0.3, 30, 20_000
    folder = Path(tempfile.mkdtemp(prefix="classroom-bench-"))
    accounts = folder / "accounts.json"
    accounts.write_text(json.dumps({"accounts": [{"id": "teacher", "balance_usd": 1_000_000,
                                                  "rate_limit": {"requests": 10**9, "per_seconds": 1},
                                                  "keys": [{"key": TEACHER}]}]}))
    roster = folder / "roster.csv"
    roster.write_text("student\n" + "".join(f"student{i:02}\n" for i in range(40)))
    env = {**os.environ, "SVC_API_KEY": TEACHER}
    gateway, line = _start([sys.executable, "-m", "gatewaykit.emulator", "--port", "0", "--time-scale", "0",
                            "--accounts", str(accounts), "--admin-token", ADMIN], env, "http://")
    gateway_url = "http://" + line.split("http://", 1)[1].split()[0]
    room = None
    if args.policy_only:
        try:
            _policy_cost(gateway_url, folder, env, args.seconds, 1 if args.smoke else 3)
        finally:
            gateway.terminate()
            gateway.wait(timeout=30)
        return
    try:
        room, line = _start([sys.executable, "-m", "gatewaykit.classroom", "--upstream", gateway_url, "--roster",
                             str(roster), "--cap", "100000", "--db", str(folder / "class.db"), "--keys-out",
                             str(folder / "keys.csv"), "--port", "0", "--admin-token", ADMIN], env, "classroom on")
        room_url = line.split("classroom on ", 1)[1].split()[0]
        keys = [row.split(",")[1] for row in (folder / "keys.csv").read_text().splitlines()[1:]]
        g_host, g_port = gateway_url.removeprefix("http://").rsplit(":", 1)
        r_host, r_port = room_url.removeprefix("http://").rsplit(":", 1)
        asyncio.run(_latencies(g_host, int(g_port), TEACHER, 20))  # warm-up
        asyncio.run(_latencies(r_host, int(r_port), keys[0], 64))  # every upstream pool gets its connection
        direct, through = [], []
        for _ in range(max(1, args.latency_requests // 50)):  # interleaved, so load changes hit both alike
            direct += asyncio.run(_latencies(g_host, int(g_port), TEACHER, 50))
            through += asyncio.run(_latencies(r_host, int(r_port), keys[0], 50))
        print(f"latency, {len(direct)} sequential chats each: gateway p50 {_pct(direct, .5):.1f} ms, p99 "
              f"{_pct(direct, .99):.1f} ms; through the classroom p50 {_pct(through, .5):.1f} ms, p99 "
              f"{_pct(through, .99):.1f} ms")
        print(f"added latency: p50 {_pct(through, .5) - _pct(direct, .5):.1f} ms, p99 "
              f"{_pct(through, .99) - _pct(direct, .99):.1f} ms (median of differences "
              f"{statistics.median(t - d for t, d in zip(through, direct)) * 1000:.1f} ms)")
        direct_ttft = _first_tokens(gateway_url, TEACHER, max(10, args.latency_requests // 4))
        room_ttft = _first_tokens(room_url, keys[1], max(10, args.latency_requests // 4))
        print(f"first streamed token: gateway p50 {_pct(direct_ttft, .5):.1f} ms, through the classroom p50 "
              f"{_pct(room_ttft, .5):.1f} ms (p99 {_pct(direct_ttft, .99):.1f} / {_pct(room_ttft, .99):.1f} ms)")
        asyncio.run(_throughput(r_host, int(r_port), keys, 8, min(1.0, args.seconds)))  # warm-up: 320 connections each way
        cpu = _cpu_seconds(room.pid)
        rate, done = asyncio.run(_throughput(r_host, int(r_port), keys, 8, args.seconds))
        cpu = _cpu_seconds(room.pid) - cpu
        print(f"throughput, 40 students x 8 concurrent through the classroom: {rate:,.0f} chats/s; the classroom "
              f"process used {cpu / args.seconds:.0%} of a core, {cpu / max(done, 1) * 1000:.2f} ms of CPU per "
              f"forwarded chat (so about {max(done, 1) / max(cpu, 1e-9):,.0f} chats/s per free core); machine load "
              f"average {os.getloadavg()[0]:.1f} (the CPU per chat does not depend on it, chats/s does)")
        rate, _ = asyncio.run(_throughput(g_host, int(g_port), [TEACHER] * 40, 8, args.seconds))
        print(f"throughput, 320 concurrent straight to the gateway (for scale): {rate:,.0f} chats/s")
        if args.clients:
            figures = []
            for name in ("keepalive", "aiohttp", "httpx"):
                cpu, done = asyncio.run(_client_cpu(name, gateway_url, args.seconds))
                figures.append(f"{name} {cpu / max(done, 1) * 1e6:.0f} us")
            print("upstream client, CPU of this process per chat sent to the gateway (32 at once, the load loop "
                  "included): " + ", ".join(figures))
        room.terminate()
        room.wait(timeout=30)
        room = None
        _policy_cost(gateway_url, folder, env, args.seconds, 1 if args.smoke else 3)
    finally:
        for process in (room, gateway):
            if process is not None:
                process.terminate()
                process.wait(timeout=30)
    direct_s, http_s = _report_over_rows(args.rows, folder)
    print(f"report over {args.rows:,} request rows: {direct_s * 1000:.1f} ms (store), {http_s * 1000:.1f} ms "
          "(Classroom.report(): HTTP + DataFrame)")


if __name__ == "__main__":
    main()
