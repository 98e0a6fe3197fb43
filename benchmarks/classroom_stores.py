"""The classroom on SQLite and on PostgreSQL side by side (``benchmarks/classroom.py --store ...``).

One offline gateway process (time-scale 0); the class (``--students`` of them) in
SQLite (one classroom process: a database file has one classroom) or in a
throwaway PostgreSQL cluster (Debian's, as the tests start it) with
``--instances`` classroom processes. Measured from this process with the minimal
HTTP/1.1 client of ``classroom.py``:

- added latency: sequential chats straight to the gateway and through the first
  classroom, p50/p99 of the difference;
- forwarded chats per second with ``--connections`` keep-alive connections spread
  over the instances, each request by the next student (so every student's row is
  used);
- CPU per forwarded chat: the classroom processes' user+system time (and the
  PostgreSQL server's, every backend of the cluster) over the throughput run,
  divided by the chats forwarded.

``--mixed`` (PostgreSQL only) checks the caps instead of timing chats (issue 47's
proof): ``--instances`` classroom processes on one database, ``--students`` of them
on a small cap, each student sending 8 requests at once (chats, images and videos,
each video polled to completion through the classroom so that it settles), spread
round-robin over the instances. Printed: the worst overshoot over any cap, each
instance's report total against what the gateway charged, and the seconds a pause
on one instance takes to be refused on every instance.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any, Optional

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "classroom"))

from classroom import BODY, TEACHER, _cpu_seconds, _latencies, _pct, _request, _start  # noqa: E402

__all__ = ["run", "run_mixed"]


def _cluster_cpu(data: Path) -> float:
    """CPU seconds of the PostgreSQL server (the postmaster and every process it started)."""
    try:
        postmaster = int((data / "postmaster.pid").read_text().split()[0])
    except (OSError, ValueError):
        return 0.0
    total = 0.0
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            fields = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(entry) == postmaster or int(fields[1]) == postmaster:
            total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return total


async def _spread(urls: list[tuple[str, int]], keys: list[str], connections: int, seconds: float) -> int:
    done = 0
    until = time.monotonic() + seconds

    async def connection(n: int) -> None:
        nonlocal done
        host, port = urls[n % len(urls)]
        reader, writer = await asyncio.open_connection(host, port)
        i = n
        try:
            while time.monotonic() < until:
                await _request(reader, writer, f"{host}:{port}", keys[i % len(keys)])
                i += connections
                done += 1
        finally:
            writer.close()

    await asyncio.gather(*(connection(n) for n in range(connections)))
    return done


def _pause_reaches_all(urls: list[tuple[str, int]], key: str) -> float:
    """Seconds from pausing on the first instance to a 503 from every instance (then resumed)."""
    import httpx

    admin = {"Authorization": "Bearer bench-admin"}
    began = time.monotonic()
    httpx.post(f"http://{urls[0][0]}:{urls[0][1]}/_classroom/pause", headers=admin, json={}).raise_for_status()
    try:
        for host, port in urls:
            while httpx.post(f"http://{host}:{port}/v1/chat/completions", content=BODY,
                             headers={"Authorization": f"Bearer {key}", "Content-Type": "application/json"}
                             ).status_code != 503:
                if time.monotonic() - began > 30:
                    return float("inf")
        return time.monotonic() - began
    finally:
        httpx.post(f"http://{urls[0][0]}:{urls[0][1]}/_classroom/resume", headers=admin).raise_for_status()


def run(store: str, instances: int, students: int, connections: int, seconds: float, latency_requests: int,
        folder: Path, gateway_url: str) -> dict[str, Any]:
    """One store's figures (a dict the caller prints as a table row)."""
    cluster: Optional[Any] = None
    env = {**os.environ, "SVC_API_KEY": TEACHER}
    roster = folder / f"roster-{students}.csv"
    roster.write_text("student\n" + "".join(f"student{i:04}\n" for i in range(students)))
    if store == "postgres":
        from postgres_cluster import Cluster, find_binaries

        binaries = find_binaries()
        if binaries is None:
            raise SystemExit("PostgreSQL's binaries are not installed (apt-get install postgresql)")
        cluster = Cluster(binaries)
        db = cluster.url(cluster.new_database())
    else:
        instances = 1  # one classroom per SQLite file
        db = str(folder / f"class-{time.monotonic_ns()}.db")
    keys_file = folder / f"keys-{store}.csv"
    rooms: list[subprocess.Popen] = []
    try:
        urls = []
        for n in range(instances):
            process, line = _start([sys.executable, "-m", "gatewaykit.classroom", "--upstream", gateway_url,
                                    "--roster", str(roster), "--cap", "100000", "--db", db, "--keys-out",
                                    str(keys_file), "--port", "0", "--admin-token", "bench-admin"], env,
                                   "classroom on")
            rooms.append(process)
            url = line.split("classroom on ", 1)[1].split()[0]
            host, port = url.removeprefix("http://").rsplit(":", 1)
            urls.append((host, int(port)))
        keys = [row.split(",")[1] for row in keys_file.read_text().splitlines()[1:]]
        g_host, g_port = gateway_url.removeprefix("http://").rsplit(":", 1)
        for host, port in urls:
            asyncio.run(_latencies(host, port, keys[0], 32))  # warm-up: every pool has its connections
        direct: list[float] = []
        through: list[float] = []
        for _ in range(max(1, latency_requests // 50)):
            direct += asyncio.run(_latencies(g_host, int(g_port), TEACHER, 50))
            through += asyncio.run(_latencies(urls[0][0], urls[0][1], keys[1], 50))
        cpu_before = [_cpu_seconds(p.pid) for p in rooms]
        pg_before = _cluster_cpu(cluster.data) if cluster else 0.0
        began = time.monotonic()
        done = asyncio.run(_spread(urls, keys, connections, seconds))
        elapsed = time.monotonic() - began
        classroom_cpu = sum(_cpu_seconds(p.pid) - b for p, b in zip(rooms, cpu_before))
        pg_cpu = (_cluster_cpu(cluster.data) - pg_before) if cluster else 0.0
        pause_s = _pause_reaches_all(urls, keys[2])
        return {"store": store, "instances": instances, "students": students, "chats/s": done / elapsed,
                "added p50 ms": _pct(through, .5) - _pct(direct, .5),
                "added p99 ms": _pct(through, .99) - _pct(direct, .99),
                "classroom CPU ms/chat": classroom_cpu / max(1, done) * 1000,
                "postgres CPU ms/chat": pg_cpu / max(1, done) * 1000, "pause on all s": pause_s, "chats": done}
    finally:
        for process in rooms:
            process.terminate()
            process.wait(30)
            if process.stdout is not None:
                process.stdout.close()
        if cluster is not None:
            cluster.stop()


MIXED_CAP = 0.22  # one $0.20 video and a little more fit; a student's 8 requests never all do
PER_STUDENT = 8
VIDEO = {"model": "video-tiers", "prompt": "a kite over the sea", "resolution": "480p", "duration": 4}  # $0.20


def _mixed_request(student: int, i: int) -> tuple[str, dict[str, Any]]:
    """A student's request i of 8: three chats, three images, two videos (in an order that varies by student)."""
    kind = (i + student) % PER_STUDENT
    if kind < 3:
        model = "chat-reasoner" if kind == 2 else "chat-mini"
        return "/v1/chat/completions", {"model": model, "max_tokens": 400,
                                        "messages": [{"role": "user", "content": f"Tell me about {student}-{i}"}]}
    if kind < 6:
        return "/v1/images/generations", {"model": "image-gpt", "prompt": f"a lighthouse {student}-{i}",
                                          "quality": "low"}
    return "/v1/videos", VIDEO


async def _mixed_class(bases: list[str], keys: list[str], students_at_once: int, seconds: float) -> Counter:
    """Every student's 8 requests in flight at once (``students_at_once`` students at a time), request n of the
    run to instance n % len(bases); a video is polled to completion through the next instance. Counts outcomes."""
    import httpx

    outcomes: Counter = Counter()
    waits: dict[str, list[float]] = {}
    until = time.monotonic() + seconds
    connections = students_at_once * PER_STUDENT
    limits = httpx.Limits(max_connections=connections, max_keepalive_connections=connections)
    turn = iter(range(10**12))
    async with httpx.AsyncClient(limits=limits, timeout=120) as http:

        async def one(student: int, i: int) -> None:
            path, body = _mixed_request(student, i)
            headers = {"Authorization": f"Bearer {keys[student]}"}
            base = bases[next(turn) % len(bases)]
            sent = time.monotonic()
            kind = path.split("/")[2]
            try:
                answer = await http.post(base + path, json=body, headers=headers)
            except httpx.HTTPError as exc:  # counted, so that one lost connection does not end the run
                outcomes[f"{kind} {type(exc).__name__}"] += 1
                return
            outcomes[f"{kind} {answer.status_code}"] += 1
            waits.setdefault(kind, []).append(time.monotonic() - sent)
            if path != "/v1/videos" or answer.status_code != 200:
                return
            job = answer.json()["id"]
            while time.monotonic() < until:
                try:
                    polled = await http.get(f"{bases[next(turn) % len(bases)]}/v1/videos/{job}", headers=headers)
                except httpx.HTTPError:
                    await asyncio.sleep(0.5)
                    continue
                status = polled.json().get("status") if polled.status_code == 200 else f"http {polled.status_code}"
                if status not in ("queued", "in_progress"):
                    outcomes[f"video ended {status}"] += 1
                    waits.setdefault("video to completion", []).append(time.monotonic() - sent)
                    return
                await asyncio.sleep(0.5)
            outcomes["video still running at the bound"] += 1

        gate = asyncio.Semaphore(students_at_once)

        async def student(n: int) -> None:
            async with gate:
                if time.monotonic() < until:
                    await asyncio.gather(*(one(n, i) for i in range(PER_STUDENT)))
                else:
                    outcomes["student not sent (time bound)"] += 1

        await asyncio.gather(*(student(n) for n in range(len(keys))))
    for kind, values in sorted(waits.items()):
        outcomes[f"{kind}: p50 {_pct(values, .5):.0f} ms, p99 {_pct(values, .99):.0f} ms, of"] = len(values)
    return outcomes


def _drained(process: subprocess.Popen) -> None:
    """Reads a process's output in a thread so that a full pipe never blocks it."""
    threading.Thread(target=process.stdout.read, daemon=True).start()  # type: ignore[union-attr]


def run_mixed(instances: int, students: int, students_at_once: int, seconds: float, folder: Path,
              gateway_url: str) -> None:
    """Issue 47's proof: no student over the cap, every report equal to what the gateway charged, pause on all."""
    import httpx

    from postgres_cluster import Cluster, find_binaries

    binaries = find_binaries()
    if binaries is None:
        raise SystemExit("PostgreSQL's binaries are not installed (apt-get install postgresql)")
    cluster = Cluster(binaries)
    env = {**os.environ, "SVC_API_KEY": TEACHER}
    roster = folder / f"roster-mixed-{students}.csv"
    roster.write_text("student\n" + "".join(f"student{i:04}\n" for i in range(students)))
    keys_file = folder / "keys-mixed.csv"
    admin = {"Authorization": "Bearer bench-admin"}
    rooms: list[subprocess.Popen] = []
    try:
        db = cluster.url(cluster.new_database())
        urls = []
        for n in range(instances):
            process, line = _start([sys.executable, "-m", "gatewaykit.classroom", "--upstream", gateway_url,
                                    "--roster", str(roster), "--cap", str(MIXED_CAP), "--db", db, "--keys-out",
                                    str(keys_file), "--port", "0", "--admin-token", "bench-admin"], env,
                                   "classroom on")
            rooms.append(process)
            _drained(process)
            host, port = line.split("classroom on ", 1)[1].split()[0].removeprefix("http://").rsplit(":", 1)
            urls.append((host, int(port)))
        bases = [f"http://{host}:{port}" for host, port in urls]
        names_keys = [row.split(",")[:2] for row in keys_file.read_text().splitlines()[1:]]
        names = [name for name, _ in names_keys]
        keys = [key for _, key in names_keys]

        def gateway_spent() -> float:
            answer = httpx.get(f"{gateway_url}/_emulator/accounts", headers=admin)
            answer.raise_for_status()
            return sum(a["spent_usd"] for a in answer.json()["accounts"])

        charged_before = gateway_spent()
        began = time.monotonic()
        outcomes = asyncio.run(_mixed_class(bases, keys, students_at_once, seconds))
        elapsed = time.monotonic() - began
        deadline = time.monotonic() + 60  # the holds of jobs still settling
        while True:
            reports = [httpx.get(f"{base}/_classroom/report", headers=admin, timeout=120).json()["rows"]
                       for base in bases]
            held = max(sum(r["held_usd"] for r in rows) for rows in reports)
            if held == 0 or time.monotonic() > deadline:
                break
            time.sleep(0.2)
        charged = gateway_spent() - charged_before
        ours = set(names)
        overshoot = max(r["spent_usd"] - r["cap_usd"] for rows in reports for r in rows if r["student"] in ours)
        totals = [sum(r["spent_usd"] for r in rows) for rows in reports]
        probe = httpx.post(f"{bases[0]}/_classroom/students", headers=admin,
                           json={"student": "pause-probe", "cap_usd": 1.0}).json()["key"]
        pause_s = _pause_reaches_all(urls, probe)
        sent = sum(v for k, v in outcomes.items() if k.split()[0] in ("chat", "images", "videos") and "ended" not in k)
        print(f"mixed workload: {instances} instances on one PostgreSQL, {len(keys)} students x {PER_STUDENT} "
              f"concurrent requests (3 chats, 3 images, 2 videos each), cap ${MIXED_CAP}; {sent} requests in "
              f"{elapsed:.1f} s ({students_at_once} students at a time)")
        for outcome, count in sorted(outcomes.items()):
            print(f"  {outcome}: {count}")
        print(f"worst overshoot over any cap: ${max(0.0, overshoot):.9f} (max spent - cap = {overshoot:+.9f}; "
              f"target 0)")
        print(f"held after the run: ${held:.9f}")
        print(f"gateway charged ${charged:.9f}; reports: " + ", ".join(f"instance {n} ${t:.9f}"
                                                                       for n, t in enumerate(totals)))
        print(f"report - upstream: worst |difference| {max(abs(t - charged) for t in totals):.3e} (target <= 1e-6)")
        print(f"pause on one instance refused on all {instances}: {pause_s:.3f} s (target <= 1 s)")
    finally:
        for process in rooms:
            process.terminate()
            process.wait(30)
        cluster.stop()


def print_table(rows: list[dict[str, Any]]) -> None:
    columns = ["store", "instances", "students", "chats/s", "added p50 ms", "added p99 ms", "classroom CPU ms/chat",
               "postgres CPU ms/chat", "pause on all s"]
    print(" | ".join(columns))
    for row in rows:
        print(" | ".join(f"{row[c]:.2f}" if isinstance(row[c], float) else str(row[c]) for c in columns))
    by = {row["store"]: row for row in rows}
    if "sqlite" in by and "postgres" in by:
        ratio = by["postgres"]["classroom CPU ms/chat"] / max(1e-9, by["sqlite"]["classroom CPU ms/chat"])
        print(f"classroom CPU per forwarded chat, postgres / sqlite: {ratio:.2f}x (target <= 2x)")


def main(args: Any) -> None:
    import tempfile

    folder = Path(tempfile.mkdtemp(prefix="classroom-stores-"))
    accounts = folder / "accounts.json"
    accounts.write_text(json.dumps({"accounts": [{"id": "teacher", "balance_usd": 1_000_000,
                                                  "rate_limit": {"requests": 10**9, "per_seconds": 1},
                                                  "keys": [{"key": TEACHER}]}]}))
    env = {**os.environ, "SVC_API_KEY": TEACHER}
    gateway, line = _start([sys.executable, "-m", "gatewaykit.emulator", "--port", "0", "--time-scale", "0",
                            "--accounts", str(accounts), "--admin-token", "bench-admin"], env, "http://")
    gateway_url = "http://" + line.split("http://", 1)[1].split()[0]
    try:
        if getattr(args, "mixed", False):
            run_mixed(args.instances, args.students, args.students_at_once, args.seconds, folder, gateway_url)
            return
        stores = ["sqlite", "postgres"] if args.store == "both" else [args.store]
        rows = [run(store, args.instances, args.students, args.connections, args.seconds, args.latency_requests,
                    folder, gateway_url) for store in stores]
        print_table(rows)
    finally:
        gateway.terminate()
        gateway.wait(30)
        if gateway.stdout is not None:
            gateway.stdout.close()
