"""Benchmark: a 10,000-token chat stream through the live notebook renderer.

Feeds pre-built ``ChatCompletionChunk`` objects (parsing them is the client's
cost, not the renderer's) into :class:`gatewaykit.notebook.chat_views.live.LiveChatRenderer`
with a counting display sink (it keeps only the last bundle, as a kernel sends
and forgets) and a simulated clock: token ``i`` arrives at ``i / rate``
seconds of stream time, so the stream's pace does not depend on the machine's
speed or on sleeping. Reports:

* front-end messages per second of stream time (target <= 20/s, plus the
  first display and the final static answer);
* parses of the open Markdown block per second (the updates in between
  show newly arrived text escaped, unformatted);
* CPU time per token (target <= 20 us), including every Markdown render and
  the final static answer;
* bytes sent to the front end (HTML + plain text of every message) as a
  multiple of the final answer's bundle (target <= 5x): finished blocks go
  once into outputs of their own, only the open tail is resent, and the final
  static answer is sent once; ``outputs`` is how many outputs the cell used
  while streaming (all but one are emptied at the end).

Run: ``.venv/bin/python benchmarks/render_stream.py [--tokens 10000] [--rate 200] [--smoke]``
"""

from __future__ import annotations

import argparse
import time

from gatewaykit.notebook.chat_views.live import LiveChatRenderer
from gatewaykit.types import ChatCompletionChunk

_WORDS = "the gateway streams tokens to a notebook where markdown renders live and safely".split()


def markdown_tokens(count: int) -> list[str]:
    """``count`` tokens of varied Markdown: headings, paragraphs, lists, code, tables."""
    tokens: list[str] = []
    block = 0
    while len(tokens) < count:
        kind = block % 5
        if kind == 0:
            tokens += ["## ", "Section ", f"{block}", "\n\n"]
        elif kind == 1:
            tokens += [f"{_WORDS[(block + i) % len(_WORDS)]} " for i in range(60)] + ["**bold** ", "`code` ", "\n\n"]
        elif kind == 2:
            for item in range(5):
                tokens += ["- ", "item ", f"{item} ", "with ", "*emphasis*", "\n"]
            tokens.append("\n")
        elif kind == 3:
            tokens += ["```python\n"] + [f"x_{i} = {i} * 2  # <script>\n" for i in range(8)] + ["```\n\n"]
        else:
            tokens += ["| a | b |\n", "|---|---:|\n"] + [f"| {i} | {i * i} |\n" for i in range(6)] + ["\n"]
        block += 1
    return tokens[:count]


def build_chunks(tokens: list[str]) -> list[ChatCompletionChunk]:
    chunks = [
        ChatCompletionChunk.model_validate(
            {"id": "bench", "model": "chat-mini", "choices": [{"index": 0, "delta": {"content": token}}]}
        )
        for token in tokens
    ]
    chunks.append(
        ChatCompletionChunk.model_validate(
            {
                "id": "bench",
                "model": "chat-mini",
                "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}],
                "usage": {"prompt_tokens": 12, "completion_tokens": len(tokens), "total_tokens": 12 + len(tokens),
                          "cost": {"total_cost": 0.0123}},
            }
        )
    )
    return chunks


class CountingSink:
    """Counts messages and bytes and keeps the last bundle, like a kernel that sends and forgets.

    (Keeping every bundle, as the tests' ``CapturingSink`` does, would hold hundreds of MB at
    low rates and charge the renderer for the page faults of that memory.) ``open()`` gives
    a sink for another output of the same cell, counted in the same totals.
    """

    def __init__(self, cell: "CountingSink | None" = None) -> None:
        self.cell = cell or self
        self.messages = 0
        self.sent_bytes = 0
        self.outputs = 1
        self.last: dict = {}

    def show(self, bundle: dict) -> None:
        self.update(bundle)

    def update(self, bundle: dict) -> None:
        cell = self.cell
        cell.messages += 1
        cell.sent_bytes += len(bundle.get("text/html", "")) + len(bundle.get("text/plain", ""))
        cell.last = bundle

    def open(self) -> "CountingSink":
        self.cell.outputs += 1
        return CountingSink(self.cell)


class SimulatedClock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def run(tokens: int, rate: float) -> dict[str, float]:
    chunks = build_chunks(markdown_tokens(tokens))
    sink = CountingSink()
    clock = SimulatedClock()
    renderer = LiveChatRenderer(sink, clock=clock)
    step = 1.0 / rate
    started = time.process_time()
    renderer.start()
    for index, chunk in enumerate(chunks):
        clock.now = index * step
        renderer.feed(chunk)
    renderer.finish(renderer.partial())
    cpu = time.process_time() - started
    stream_seconds = tokens * step
    final_bytes = len(sink.last["text/html"]) + len(sink.last["text/plain"])
    live_updates = sink.messages - 1 - sink.outputs  # minus the first display, the emptied parts and the final
    return {
        "tokens": tokens,
        "stream_seconds": stream_seconds,
        "messages": sink.messages,
        "live_updates": live_updates,
        "updates_per_second": live_updates / stream_seconds,
        "parses_per_second": renderer.parses / stream_seconds,
        "cpu_seconds": cpu,
        "cpu_us_per_token": cpu / tokens * 1e6,
        "final_html_kb": len(sink.last["text/html"]) / 1024,
        "sent_mb": sink.sent_bytes / 1e6,
        "bytes_ratio": sink.sent_bytes / final_bytes,
        "outputs": sink.outputs,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tokens", type=int, default=10_000)
    parser.add_argument("--rate", type=float, nargs="*", default=[20.0, 50.0, 200.0, 1000.0],
                        help="simulated tokens per second of stream time")
    parser.add_argument("--smoke", action="store_true", help="a few seconds with tiny counts: checks the script still runs (tests/test_benchmarks_smoke.py); no figures to keep")
    args = parser.parse_args()
    if args.smoke:
        args.tokens, args.rate = 400, [200.0]
    # Load Pygments and its Python lexer first (about 0.1 s, once per process), so that the first
    # rate measured is not charged for it.
    from gatewaykit.notebook.markdown_html.markdown import render_markdown

    render_markdown("```python\nx = 1\n```\n")
    print(f"{'tok/s':>7} {'stream s':>9} {'msgs':>6} {'upd/s':>6} {'parse/s':>7} {'CPU s':>7} {'us/token':>9} "
          f"{'final KB':>9} {'sent MB':>8} {'sent/final':>10} {'outputs':>8}")
    for rate in args.rate:
        r = run(args.tokens, rate)
        print(f"{rate:7.0f} {r['stream_seconds']:9.1f} {r['messages']:6d} {r['updates_per_second']:6.1f} {r['parses_per_second']:7.1f} "
              f"{r['cpu_seconds']:7.3f} {r['cpu_us_per_token']:9.1f} {r['final_html_kb']:9.1f} {r['sent_mb']:8.2f} "
              f"{r['bytes_ratio']:9.2f}x {r['outputs']:8d}")
    print("targets: <= 20 updates per second of stream time (+ first, emptied parts and final); <= 20 us CPU per token; "
          "sent <= 5x the final answer")


if __name__ == "__main__":
    main()
