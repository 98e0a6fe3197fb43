"""Hostile-load figures for the offline gateway (issue 19, items 2, 3 and 9).

Starts ``python -m gatewaykit.emulator`` in its own process and measures:

- ``edit-memory``: peak gateway RSS (``VmHWM`` from ``/proc/<pid>/status``) before and after one edit
  request carrying eight 1-bit PNGs of 40 megapixels (about 6 KB each), then one carrying four;
- ``vision``: another account's chat latency while eight requests of 22 images of 40 MP from a $0 key run;
- ``vision-funded``: the same while a key that can pay sends eight chats of 16 images of 10 MP;
- ``jobs``: another account's video job time while a key with money for one 1080p job creates 20;
- ``script-match`` (item 4): with ``--script`` entry ``re:^.*x.*y.*z$`` (accepted at load: it is slow only
  on long messages), how fast ``GET /v1/models`` and another account's chat are answered while eight
  requests of one account, each with an 80 KB message, are being matched, and how they end.

Usage: python benchmarks/hostile_load.py [edit-memory|vision|vision-funded|jobs|script-match ...] [--smoke]

``--smoke`` runs every scenario with small images and few requests (a few seconds; the same code
paths, and it fails when the other account is not served).
"""

from __future__ import annotations

import argparse
import base64
import io
import json
import subprocess
import sys
import tempfile
import threading
import time

import httpx

SMOKE = False  # --smoke: small images, few requests, the other account must be served
HOG = "sk-bf-benchmark-hog-00000000000001"
OTHER = "sk-bf-benchmark-other-000000000002"
ACCOUNTS = {"accounts": [
    {"id": "hog", "balance_usd": 0.0, "rate_limit": {"requests": 100000, "per_seconds": 60},
     "keys": [{"key": HOG, "status": "active"}]},
    {"id": "other", "balance_usd": 50.0, "rate_limit": {"requests": 100000, "per_seconds": 60},
     "keys": [{"key": OTHER, "status": "active"}]},
]}


def _png(width: int, height: int, mode: str = "1") -> bytes:
    from PIL import Image, ImageDraw

    image = Image.new(mode, (width, height), 0)
    ImageDraw.Draw(image).rectangle((width // 4, height // 4, width // 2, height // 2), fill=1 if mode == "1" else 200)
    out = io.BytesIO()
    image.save(out, "PNG", optimize=True)
    return out.getvalue()


class Gateway:
    def __init__(self, hog_balance: float = 0.0, time_scale: float = 1.0, *more: str) -> None:
        ACCOUNTS["accounts"][0]["balance_usd"] = hog_balance
        self.file = tempfile.NamedTemporaryFile("w", suffix=".json", delete=False)
        json.dump(ACCOUNTS, self.file)
        self.file.close()
        self.process = subprocess.Popen(
            [sys.executable, "-m", "gatewaykit.emulator", "--port", "0", "--accounts", self.file.name,
             "--time-scale", str(time_scale), *more], stdout=subprocess.PIPE, text=True)
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        self.url = line.split(": ", 1)[1].strip()
        threading.Thread(target=self.process.stdout.read, daemon=True).start()

    def memory(self) -> dict[str, int]:
        """VmRSS and VmHWM of the gateway process, in MB."""
        with open(f"/proc/{self.process.pid}/status") as status:
            fields = dict(line.split(":", 1) for line in status if line.startswith("Vm"))
        return {name: int(fields[name].split()[0]) // 1024 for name in ("VmRSS", "VmHWM")}

    def close(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:  # a gateway frozen inside C code never runs its SIGTERM handler
            self.process.kill()
            self.process.wait(10)


def edit_memory() -> None:
    for count in (2,) if SMOKE else (8, 4):  # the request; then four, the most pixels one request may send now
        gateway = Gateway(hog_balance=0.0)
        try:
            references = [_png(*((800, 500) if SMOKE else (8000, 5000))) for _ in range(count)]
            before = gateway.memory()
            files = [("image[]", (f"r{i}.png", data, "image/png")) for i, data in enumerate(references)]
            answer = httpx.post(f"{gateway.url}/v1/images/edits", headers={"Authorization": f"Bearer {OTHER}"},
                                data={"model": "image-gpt", "prompt": "a collage"}, files=files, timeout=600)
            after = gateway.memory()
            assert answer.status_code < 500, answer.text[:300]
            print(f"edit-memory: {count} 1-bit PNGs of 40 MP ({sum(map(len, references)) // 1024} KB): "
                  f"status {answer.status_code} {answer.text[:100]!r}")
            print(f"  gateway VmHWM before {before['VmHWM']} MB, after {after['VmHWM']} MB "
                  f"(+{after['VmHWM'] - before['VmHWM']} MB); VmRSS after {after['VmRSS']} MB")
        finally:
            gateway.close()


def vision(hog_balance: float = 0.0, parts: int = 22, size: tuple[int, int] = (7000, 5700)) -> None:
    hogs = 8
    if SMOKE:
        parts, size, hogs = 2, (400, 300), 2
    gateway = Gateway(hog_balance=hog_balance)
    try:
        big = _png(*size, "L")
        count = iter(range(10**6))

        def hog_body() -> dict:  # every image different (bytes after IEND): no cache helps
            images = [{"type": "image_url", "image_url": {"url": "data:image/png;base64," + base64.b64encode(
                big + next(count).to_bytes(4, "big")).decode()}} for _ in range(parts)]
            return {"model": "chat-vision", "messages": [{"role": "user", "content": [
                {"type": "text", "text": "describe"}, *images]}]}

        other_body = {"model": "chat-mini", "messages": [{"role": "user", "content": "hello"}]}
        statuses: list[int] = []

        def hog() -> None:
            answer = httpx.post(f"{gateway.url}/v1/chat/completions", headers={"Authorization": f"Bearer {HOG}"},
                                json=hog_body(), timeout=600)
            statuses.append(answer.status_code)

        started = time.monotonic()
        threads = [threading.Thread(target=hog) for _ in range(hogs)]
        for thread in threads:
            thread.start()
        time.sleep(0.5)
        t0 = time.monotonic()
        answer = httpx.post(f"{gateway.url}/v1/chat/completions", headers={"Authorization": f"Bearer {OTHER}"},
                            json=other_body, timeout=600)
        latency = time.monotonic() - t0
        for thread in threads:
            thread.join()
        assert answer.status_code == 200, answer.text[:300]
        print(f"vision (hog ${hog_balance:g}, {hogs} requests of {parts} images of {size[0]}x{size[1]}): other account's "
              f"chat {answer.status_code} in {latency:.2f} s; hog's answers {sorted(statuses)} "
              f"in {time.monotonic() - started:.1f} s")
    finally:
        gateway.close()


def vision_funded() -> None:
    """A hog that can pay, sending the most a chat may carry (16 images, 160 MP): the per-account decode limit."""
    vision(hog_balance=50.0, parts=16, size=(4000, 2500))


def jobs() -> None:
    gateway = Gateway(2.0, 0.0 if SMOKE else 1.0)  # video-tiers 1080p 8 s costs $2.00 (one job)
    try:
        hog = httpx.Client(base_url=gateway.url, headers={"Authorization": f"Bearer {HOG}"}, timeout=60)
        statuses = [hog.post("/v1/videos", json={"model": "video-tiers", "prompt": "storm", "resolution": "1080p",
                                                 "duration": 8}).status_code for _ in range(3 if SMOKE else 20)]
        other = httpx.Client(base_url=gateway.url, headers={"Authorization": f"Bearer {OTHER}"}, timeout=60)
        t0 = time.monotonic()
        job = other.post("/v1/videos", json={"model": "video-tiers", "prompt": "calm", "resolution": "480p",
                                             "duration": 4}).json()
        while job["status"] in ("queued", "in_progress"):
            time.sleep(0.1)
            job = other.get(f"/v1/videos/{job['id']}").json()
        assert job["status"] == "completed" and statuses.count(200) == 1, (job, statuses)
        print(f"jobs: hog's {len(statuses)} creates -> {statuses.count(200)} accepted, {statuses.count(402)} refused (402); "
              f"other account's 480p 4 s job {job['status']} in {time.monotonic() - t0:.1f} s")
    finally:
        gateway.close()


def script_match(give_up_seconds: float = 30.0, requests: int = 8) -> None:
    length = 40_000
    if SMOKE:
        requests, length = 2, 1_000
    script = tempfile.NamedTemporaryFile("w", suffix=".json", delete=False)
    json.dump({"answers": [{"match": "re:^.*x.*y.*z$", "content": "xyz"}]}, script)
    script.close()
    gateway = Gateway(50.0, 0.0, "--script", script.name)
    try:
        other = httpx.Client(base_url=gateway.url, headers={"Authorization": f"Bearer {OTHER}"},
                             timeout=give_up_seconds)
        other.get("/v1/models")  # connection and first answer out of the way
        hostile: list[tuple[int, str, float]] = []

        def send() -> None:
            t0 = time.monotonic()
            try:
                answer = httpx.post(f"{gateway.url}/v1/chat/completions", headers={"Authorization": f"Bearer {HOG}"},
                                    json={"model": "chat-mini", "messages": [{"role": "user", "content": "xy" * length}]},
                                    timeout=600)
                hostile.append((answer.status_code, answer.text, time.monotonic() - t0))
            except httpx.HTTPError as exc:
                hostile.append((0, repr(exc), time.monotonic() - t0))

        threads = [threading.Thread(target=send, daemon=True) for _ in range(requests)]
        started = time.monotonic()
        for thread in threads:
            thread.start()
        time.sleep(0.2)  # let the 80 KB messages reach the matcher
        models: list[float] = []
        chats: list[float] = []
        frozen = ""
        while any(t.is_alive() for t in threads) and time.monotonic() - started < give_up_seconds:
            for path, times in (("/v1/models", models), ("/v1/chat/completions", chats)):
                t0 = time.monotonic()
                try:
                    answer = other.get(path) if path == "/v1/models" else other.post(path, json={
                        "model": "chat-mini", "messages": [{"role": "user", "content": "hello"}]})
                    answer.raise_for_status()
                except httpx.HTTPError as exc:
                    frozen = f"{path} got no answer within {give_up_seconds:g} s ({type(exc).__name__})"
                    break
                if any(t.is_alive() for t in threads):
                    times.append(time.monotonic() - t0)
            if frozen:
                break
        for thread in threads:
            thread.join(1 if frozen else 600)

        def figures(times: list[float]) -> str:
            if not times:
                return "none answered while it ran"
            times = sorted(times)
            return (f"{len(times)} answered while it ran, median {times[len(times) // 2] * 1000:.0f} ms, "
                    f"max {times[-1] * 1000:.0f} ms")

        ending = (f"statuses {sorted(status for status, _, _ in hostile)}, the last after "
                  f"{max(seconds for _, _, seconds in hostile):.2f} s: {hostile[0][1][:150]}..." if hostile
                  else f"none ended within {time.monotonic() - started:.0f} s")
        print(f"script-match ({requests} requests of one account, 80 KB messages, against re:^.*x.*y.*z$): {ending}")
        print(f"  GET /v1/models: {figures(models)}" + (f"; {frozen}" if frozen else ""))
        print(f"  other account's chat: {figures(chats)}")
        assert not frozen, frozen
    finally:
        gateway.close()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("scenarios", nargs="*", help="edit-memory, vision, vision-funded, jobs, script-match (default: all)")
    parser.add_argument("--smoke", action="store_true", help="a few seconds with tiny counts: checks the script still runs (tests/test_benchmarks_smoke.py); no figures to keep")
    arguments = parser.parse_args()
    SMOKE = arguments.smoke
    for name in arguments.scenarios or ["edit-memory", "vision", "vision-funded", "jobs", "script-match"]:
        {"edit-memory": edit_memory, "vision": vision, "vision-funded": vision_funded, "jobs": jobs,
         "script-match": script_match}[name]()
