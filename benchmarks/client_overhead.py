"""Client overhead: gatewaykit vs the official openai SDK vs raw httpx + json, one process, one MockTransport.

Run: ``.venv/bin/python benchmarks/client_overhead.py [--requests 2000] [--chunks 10000] [--smoke]``

Measures
- per-request time of a buffered chat completion (request building, sending
  through the same ``httpx.MockTransport``, parsing into pydantic models);
- per-chunk time of iterating a streamed completion of N chunks and assembling
  it (``ChatStream`` + ``.final()`` vs openai ``Stream`` and
  ``.stream()`` + ``get_final_completion()``);
- ``import gatewaykit`` and the first use of ``gatewaykit.Client`` in a fresh
  interpreter (``benchmarks/import_time.py`` compares it with ``import httpx, pydantic``).

Targets (issue 34): overhead beyond raw httpx + ``json.loads`` >= 30x less than
openai's, <= 5 us per chunk including assembly and >= 25x less than openai's
``Stream``, all in one run; <= 1.3x raw httpx + pydantic parsing; import < 200 ms.
The contenders take turns round by round; ``--clock cpu`` times this thread's
CPU (steadier on a shared machine: all the work runs in this thread).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from typing import Any, Callable

import httpx

import gatewaykit as gk
from gatewaykit.types import ChatCompletion

BASE = "http://gateway.bench"
KEY = "sk-bf-bench-000000000000"
MESSAGES = [{"role": "user", "content": "Say hello"}]

COMPLETION = json.dumps(
    {
        "id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "chat-mini",
        "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "Hello there! " * 8}}],
        "usage": {"prompt_tokens": 9, "completion_tokens": 24, "total_tokens": 33,
                  "prompt_tokens_details": {"cached_tokens": 0}, "completion_tokens_details": {"reasoning_tokens": 0},
                  "cost": {"total_cost": 0.0000153, "input_tokens_cost": 0.0000013, "output_tokens_cost": 0.000014}},
    }
).encode()  # fmt: skip


def stream_body(chunks: int) -> bytes:
    head = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "chat-mini"}
    parts = []
    for index in range(chunks):
        delta = {"role": "assistant", "content": "tok "} if index == 0 else {"content": "tok "}
        parts.append({**head, "choices": [{"index": 0, "delta": delta, "finish_reason": None}]})
    parts.append({**head, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
    parts.append({**head, "choices": [], "usage": {"prompt_tokens": 9, "completion_tokens": chunks, "total_tokens": chunks + 9,
                                                   "cost": {"total_cost": 0.001}}})  # fmt: skip
    return ("".join(f"data: {json.dumps(p, separators=(',', ':'))}\n\n" for p in parts) + "data: [DONE]\n\n").encode()


class NullLedger:
    """Keeps nothing: isolates the client's own overhead from the ledger's."""

    def check_budget(self, kind: str, model: Any, request: Any) -> None:
        pass

    def record(self, record: Any) -> None:
        pass

    def update_job(self, job_id: str, **fields: Any) -> None:
        pass


def make_transport(stream: bytes) -> httpx.MockTransport:
    def answer(request: httpx.Request) -> httpx.Response:
        if b'"stream":true' in request.content.replace(b" ", b""):
            return httpx.Response(200, content=stream, headers={"content-type": "text/event-stream"})
        return httpx.Response(200, content=COMPLETION, headers={"content-type": "application/json"})

    return httpx.MockTransport(answer)


CLOCK: Callable[[], float] = time.perf_counter  # --clock cpu: time.thread_time (this thread's CPU time)


def per_call(function: Callable[[], Any], repeat: int, rounds: int = 5) -> float:
    """Best of ``rounds`` mean seconds per call (the least disturbed measurement)."""
    return interleaved({"": function}, repeat, rounds)[""]


def interleaved(functions: dict[str, Callable[[], Any]], repeat: int, rounds: int = 5) -> dict[str, float]:
    """Best of ``rounds`` mean seconds per call of each function, the functions taking turns round by round
    (so a change in the machine's load hits all of them alike; their ratios are what to compare)."""
    for function in functions.values():
        function()
    results: dict[str, list[float]] = {name: [] for name in functions}
    for _ in range(rounds):
        for name, function in functions.items():
            started = CLOCK()
            for _ in range(repeat):
                function()
            results[name].append((CLOCK() - started) / repeat)
    return {name: min(times) for name, times in results.items()}


def import_time(samples: int = 7) -> float:
    # ``import gatewaykit`` is lazy (PEP 562): naming the client loads the client core, as a first use does.
    code = "import time; t=time.perf_counter(); import gatewaykit; gatewaykit.Client; print(time.perf_counter()-t)"
    times = [float(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout) for _ in range(samples)]
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--chunks", type=int, default=10_000)
    parser.add_argument("--clock", choices=["wall", "cpu"], default="wall",
                        help="cpu: this thread's CPU time (steadier than wall time on a busy machine; all work is in this thread)")
    parser.add_argument("--smoke", action="store_true", help="a few seconds with tiny counts: checks the script still runs (tests/test_benchmarks_smoke.py); no figures to keep")
    args = parser.parse_args()
    rounds = 5
    global CLOCK
    CLOCK = time.thread_time if args.clock == "cpu" else time.perf_counter
    if args.smoke:
        args.requests, args.chunks, rounds = 20, 200, 1

    import openai

    print(f"load average {' '.join(f'{value:.2f}' for value in os.getloadavg())} on {os.cpu_count()} cores")

    transport = make_transport(stream_body(args.chunks))
    raw = httpx.Client(transport=transport, base_url=BASE, headers={"Authorization": f"Bearer {KEY}", "Content-Type": "application/json"})
    ours = gk.Client(api_key=KEY, base_url=BASE, http_transport=transport, ledger=NullLedger(), max_retries=0)
    # An in-memory ledger: Ledger() would write every benchmark request into this user's own ledger database
    # (and read all of it back on the first call); the SQLite ledger's figures are benchmarks/ledger.py's.
    memory_ledger = gk.Ledger(path=None)
    ours_ledger = gk.Client(api_key=KEY, base_url=BASE, http_transport=transport, ledger=memory_ledger, max_retries=0)
    theirs = openai.OpenAI(api_key=KEY, base_url=BASE + "/v1", http_client=httpx.Client(transport=transport), max_retries=0)

    body = {"model": "chat-mini", "messages": MESSAGES}

    def raw_json() -> Any:
        return json.loads(raw.post("/v1/chat/completions", content=json.dumps(body)).content)

    def raw_pydantic() -> Any:
        return ChatCompletion.model_validate_json(raw.post("/v1/chat/completions", content=json.dumps(body)).content)

    n = args.requests
    results = interleaved({
        "raw httpx + json.loads": raw_json,
        "raw httpx + pydantic": raw_pydantic,
        "gatewaykit (null ledger)": lambda: ours.chat.completions.create(model="chat-mini", messages=MESSAGES),
        "gatewaykit (memory Ledger)": lambda: ours_ledger.chat.completions.create(model="chat-mini", messages=MESSAGES),
        "openai SDK": lambda: theirs.chat.completions.create(model="chat-mini", messages=MESSAGES),
    }, n, rounds)  # fmt: skip
    print(f"Buffered chat completion, per request ({n} requests, best of {rounds} interleaved rounds, {args.clock} clock):")
    for name, seconds in results.items():
        print(f"  {name:<28} {seconds * 1e6:8.1f} us")
    baseline = results["raw httpx + pydantic"]
    overhead_ours = results["gatewaykit (null ledger)"] - results["raw httpx + json.loads"]
    overhead_theirs = results["openai SDK"] - results["raw httpx + json.loads"]
    print(f"  gatewaykit / (raw httpx + pydantic)  = {results['gatewaykit (null ledger)'] / baseline:5.2f}x   (target <= 1.3)")
    print(f"  with a memory Ledger / (raw + pyd.) = {results['gatewaykit (memory Ledger)'] / baseline:5.2f}x")
    print(f"  openai / gatewaykit                  = {results['openai SDK'] / results['gatewaykit (null ledger)']:5.2f}x")
    print(f"  overhead beyond raw httpx+json: gatewaykit {overhead_ours * 1e6:.1f} us, openai {overhead_theirs * 1e6:.1f} us")
    if overhead_ours > 0:
        print(f"  openai overhead / gatewaykit overhead = {overhead_theirs / overhead_ours:.1f}x   (target >= 30)")
    else:
        print("  gatewaykit adds no overhead over raw httpx.Client.post + json.loads (it skips build_request)")

    chunks = args.chunks

    def ours_stream() -> Any:
        stream = ours.chat.completions.create(model="chat-mini", messages=MESSAGES, stream=True)
        for _ in stream:
            pass
        return stream.final()

    def theirs_stream() -> Any:
        for _ in theirs.chat.completions.create(model="chat-mini", messages=MESSAGES, stream=True):
            pass

    def theirs_final() -> Any:
        with theirs.chat.completions.stream(model="chat-mini", messages=MESSAGES) as stream:
            return stream.get_final_completion()

    assert ours_stream().content == "tok " * chunks
    streams = {
        name: seconds / chunks
        for name, seconds in interleaved(
            {"gatewaykit iterate + final()": ours_stream, "openai Stream iterate": theirs_stream}, 1, rounds
        ).items()
    }
    try:
        streams["openai .stream() + final"] = per_call(theirs_final, 1, min(rounds, 3)) / chunks
    except Exception as exc:  # noqa: BLE001 - older SDKs lack .stream()
        print(f"  (openai .stream() unavailable: {exc})")
    print(f"\nStreamed chat, per chunk ({chunks} chunks, best of {rounds} interleaved rounds, {args.clock} clock):")
    for name, seconds in streams.items():
        print(f"  {name:<32} {seconds * 1e6:7.2f} us")
    print(f"  gatewaykit per chunk incl. assembly  = {streams['gatewaykit iterate + final()'] * 1e6:5.2f} us   (target <= 5)")
    print(f"  openai Stream / gatewaykit           = {streams['openai Stream iterate'] / streams['gatewaykit iterate + final()']:5.2f}x   (target >= 25)")
    if "openai .stream() + final" in streams:
        ratio = streams["openai .stream() + final"] / streams["gatewaykit iterate + final()"]
        print(f"  openai .stream()+final / gatewaykit  = {ratio:5.2f}x")

    samples = 1 if args.smoke else 7
    seconds = import_time(samples)
    print(f"\nimport gatewaykit + gatewaykit.Client (fresh interpreter, median of {samples}): {seconds * 1e3:.0f} ms   (target < 200)")


if __name__ == "__main__":
    main()
