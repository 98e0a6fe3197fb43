"""Client overhead of a conversation: ``client.chat.session`` vs the same requests sent by hand.

Run: ``.venv/bin/python benchmarks/conversation.py [--turns 10] [--runs 41] [--smoke]``

A 10-turn conversation in which every turn calls one tool: the model's first
answer is a tool call, the tool runs, the second answer is text (canned
answers from one ``httpx.MockTransport``, so no network and no server time).
The session (history, tool schema, argument validation, tool messages, events,
ledger tag) is timed against a hand-written loop that sends the same requests
with ``client.chat.completions.create`` and builds the same messages itself.
Both use the same client options and a fresh :class:`gatewaykit.Ledger` per
run; runs alternate, and the figure is the median of the paired ratios\n(session run / hand run just before it). Target: <= 1.2x.
"""

from __future__ import annotations

import argparse
import gc
import json
import statistics
import time
from typing import Any, Callable

import httpx

import gatewaykit as gk

BASE = "http://gateway.bench"
KEY = "sk-bf-bench-000000000000"
USAGE = {"prompt_tokens": 120, "completion_tokens": 20, "total_tokens": 140, "cost": {"total_cost": 0.0000300}}


def completion(message: dict[str, Any], finish: str) -> bytes:
    return json.dumps({"id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "chat-mini",
                       "choices": [{"index": 0, "finish_reason": finish, "message": message}], "usage": USAGE}).encode()  # fmt: skip


TOOL_CALL = completion(
    {"role": "assistant", "content": None, "tool_calls": [
        {"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'}}]},
    "tool_calls",
)  # fmt: skip
ANSWER = completion({"role": "assistant", "content": "It is sunny in Paris, 21 degrees. " * 4}, "stop")


def answer(request: httpx.Request) -> httpx.Response:
    """A tool call when the last message is the user's, the answer after a tool result."""
    last_role = json.loads(request.content)["messages"][-1]["role"]
    body = ANSWER if last_role == "tool" else TOOL_CALL
    return httpx.Response(200, content=body, headers={"content-type": "application/json"})


def get_weather(city: str) -> dict:
    """Get the current weather for a city."""
    return {"city": city, "temperature_c": 21, "sky": "sunny"}


TOOL_SCHEMA = {"type": "function", "function": {
    "name": "get_weather", "description": "Get the current weather for a city.",
    "parameters": {"type": "object", "properties": {"city": {"type": "string", "title": "City"}}, "required": ["city"]}}}  # fmt: skip


def make_client() -> gk.Client:
    # display=False: no live view, so the session sends buffered requests, as the canned answers are
    # (with a display, outside a kernel the terminal's, it would stream them). An in-memory ledger: Ledger()
    # would write into this user's own ledger database and read all of it back on each fresh client.
    return gk.Client(api_key=KEY, base_url=BASE, http_transport=httpx.MockTransport(answer), ledger=gk.Ledger(path=None),
                     max_retries=0, validate=False, display=False)  # fmt: skip


def with_session(client: gk.Client, turns: int) -> Any:
    chat = client.chat.session(model="chat-mini", system="Be brief.", tools=[get_weather])
    for turn in range(turns):
        chat(f"What is the weather in Paris, turn {turn}?")
    return chat


def by_hand(client: gk.Client, turns: int) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = [{"role": "system", "content": "Be brief."}]
    for turn in range(turns):
        messages.append({"role": "user", "content": f"What is the weather in Paris, turn {turn}?"})
        while True:
            reply = client.chat.completions.create(model="chat-mini", messages=messages, tools=[TOOL_SCHEMA])
            message = reply.choices[0].message
            entry: dict[str, Any] = {"role": "assistant", "content": message.content}
            if message.tool_calls:
                entry["tool_calls"] = [c.model_dump(exclude_none=True, exclude={"index"}) for c in message.tool_calls]
            messages.append(entry)
            if not message.tool_calls:
                break
            for call in message.tool_calls:
                result = get_weather(**json.loads(call.function.arguments))
                messages.append({"role": "tool", "tool_call_id": call.id, "content": json.dumps(result, separators=(",", ":"))})
    return messages


def timed(run: Callable[[gk.Client, int], Any], turns: int) -> float:
    """Seconds for one conversation on a fresh client (garbage collected before, not during)."""
    client = make_client()
    gc.collect()
    gc.disable()
    try:
        started = time.perf_counter()
        run(client, turns)
        return time.perf_counter() - started
    finally:
        gc.enable()
        client.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=10)
    parser.add_argument("--runs", type=int, default=41)
    parser.add_argument("--smoke", action="store_true", help="a few seconds with tiny counts: checks the script still runs (tests/test_benchmarks_smoke.py); no figures to keep")
    args = parser.parse_args()
    if args.smoke:
        args.turns, args.runs = 2, 3
    client = make_client()
    assert with_session(client, 2).history == by_hand(client, 2)  # the same conversation either way; warm-up
    hand, session = [], []
    for _ in range(args.runs):  # interleaved, so drift in machine load hits both alike
        hand.append(timed(by_hand, args.turns))
        session.append(timed(with_session, args.turns))
    hand_s, session_s = statistics.median(hand), statistics.median(session)
    # Each session run is paired with the hand run just before it: the median of those ratios
    # cancels most of the drift in machine load (other processes share the CPU).
    paired = statistics.median(s / h for h, s in zip(hand, session))
    requests = 2 * args.turns
    print(f"{args.turns}-turn conversation with tool calls ({requests} requests), median of {args.runs} runs:")
    print(f"  by hand with completions.create : {hand_s * 1e3:8.2f} ms  ({hand_s / requests * 1e6:7.1f} us/request)")
    print(f"  client.chat.session             : {session_s * 1e3:8.2f} ms  ({session_s / requests * 1e6:7.1f} us/request)")
    print(f"  ratio of the medians            : {session_s / hand_s:8.2f}x")
    print(f"  ratio, median of paired runs    : {paired:8.2f}x  (target <= 1.2x)")


if __name__ == "__main__":
    main()
