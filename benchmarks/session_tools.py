"""Session tools: the response cache, compare(), the chat box and the gallery, measured in one process.

Run: ``.venv/bin/python benchmarks/session_tools.py [--runs 200] [--smoke]``

Measures
- a cache hit: a buffered chat answered from ``Client(cache=...)`` (target < 2 ms),
  and an image result of about 1 MB (target < 20 ms), against the same call sent
  through the network transport (an ``httpx.MockTransport``);
- ``client.compare`` over 4 chat models that answer after 0.20, 0.25, 0.30 and
  0.35 s, against the slowest model alone (target <= 1.2x); and the same four
  streaming 200 tokens each into the notebook's live grid (captured, not shown)
  against the slowest one's answer rendered live alone, as ``ask()`` would;
- the chat box's view per streamed token on top of reading the stream
  (10,000 tokens; target <= 20 us per token);
- a gallery of 200 images: its first display and a second one (target < 1 s).
"""

from __future__ import annotations

import argparse
import base64
import io
import json
import os
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from client_overhead import COMPLETION, stream_body  # noqa: E402

import gatewaykit as gk  # noqa: E402
from gatewaykit.client.core.display import NullDisplay  # noqa: E402

BASE = "http://gateway.bench"
KEY = "sk-bf-bench-000000000000"
DELAYS = {"chat-a": 0.20, "chat-b": 0.25, "chat-c": 0.30, "chat-d": 0.35}
REPEATS = 5  # runs of each compare() and chat-box figure (1 with --smoke)
CATALOG = json.dumps({"object": "list", "data": [
    {"id": model, "object": "model", "input_modalities": ["text"], "output_modalities": ["text"]} for model in DELAYS
]}).encode()  # fmt: skip


def _big_image_body() -> bytes:
    """An image response whose PNG is about 1 MB (noise does not compress)."""
    from PIL import Image

    picture = Image.frombytes("RGB", (600, 600), os.urandom(600 * 600 * 3))
    out = io.BytesIO()
    picture.save(out, format="PNG")
    data = base64.b64encode(out.getvalue()).decode()
    return json.dumps({"created": 1, "model": "image-x", "size": "600x600", "data": [{"index": 0, "b64_json": data}],
                       "usage": {"cost": {"total_cost": 0.04}}}).encode()  # fmt: skip


def _handler(image: bytes) -> Any:
    def handle(request: httpx.Request) -> httpx.Response:
        path = request.url.path
        if path == "/v1/models":
            return httpx.Response(200, content=CATALOG, headers={"content-type": "application/json"})
        if path == "/v1/images/generations":
            return httpx.Response(200, content=image, headers={"content-type": "application/json"})
        body = json.loads(request.content)
        delay = DELAYS.get(body.get("model"), 0.0)
        if body.get("stream"):
            return httpx.Response(200, content=_paced_stream(delay), headers={"content-type": "text/event-stream"})
        if delay:
            time.sleep(delay)
        return httpx.Response(200, content=COMPLETION, headers={"content-type": "application/json"})

    return handle


STREAM_TOKENS = 200


def _paced_stream(seconds: float) -> Any:
    """An SSE answer of STREAM_TOKENS Markdown-ish tokens spread over ``seconds`` (a paragraph break every 40)."""
    head = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "chat-x"}
    pause = seconds / STREAM_TOKENS
    for index in range(STREAM_TOKENS):
        text = "**word** " if index % 40 else "\n\nword "
        chunk = {**head, "choices": [{"index": 0, "delta": {"content": text}, "finish_reason": None}]}
        yield f"data: {json.dumps(chunk)}\n\n".encode()
        time.sleep(pause)
    usage = {"prompt_tokens": 9, "completion_tokens": STREAM_TOKENS, "total_tokens": STREAM_TOKENS + 9,
             "cost": {"total_cost": 0.001}}  # fmt: skip
    yield f"data: {json.dumps({**head, 'choices': [{'index': 0, 'delta': {}, 'finish_reason': 'stop'}]})}\n\n".encode()
    yield f"data: {json.dumps({**head, 'choices': [], 'usage': usage})}\n\ndata: [DONE]\n\n".encode()


def _median_ms(call: Any, runs: int) -> float:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        call()
        times.append(time.perf_counter() - started)
    return statistics.median(times) * 1000


def bench_cache(runs: int, image: bytes) -> None:
    folder = tempfile.mkdtemp(prefix="gk-cache-bench-")
    transport = httpx.MockTransport(_handler(image))
    ledger = gk.Ledger(path=None)
    plain = gk.Client(api_key=KEY, base_url=BASE, http_transport=transport, ledger=ledger, display=False, validate=False)
    cached = gk.Client(api_key=KEY, base_url=BASE, http_transport=transport, ledger=ledger, display=False,
                       validate=False, cache=folder)  # fmt: skip
    messages = [{"role": "user", "content": "Say hello"}]
    cached.chat.completions.create(model="chat-x", messages=messages)  # kept
    cached.images.generate(model="image-x", prompt="noise")
    sent = _median_ms(lambda: plain.chat.completions.create(model="chat-x", messages=messages), runs)
    hit = _median_ms(lambda: cached.chat.completions.create(model="chat-x", messages=messages), runs)
    print(f"cache hit, chat:            {hit:7.3f} ms   (sent through the transport: {sent:.3f} ms; target < 2 ms)")
    sent_image = _median_ms(lambda: plain.images.generate(model="image-x", prompt="noise"), max(10, runs // 10))
    hit_image = _median_ms(lambda: cached.images.generate(model="image-x", prompt="noise"), max(10, runs // 10))
    print(f"cache hit, {len(image) / 1e6:.1f} MB image:    {hit_image:7.3f} ms   (sent: {sent_image:.3f} ms; target < 20 ms)")


def bench_compare() -> None:
    transport = httpx.MockTransport(_handler(b"{}"))
    client = gk.Client(api_key=KEY, base_url=BASE, http_transport=transport, ledger=gk.Ledger(path=None),
                       display=False, validate=False)  # fmt: skip
    client.models.list()
    messages = [{"role": "user", "content": "Explain SSE"}]
    slowest = _median_ms(lambda: client.chat.completions.create(model="chat-d", messages=messages), REPEATS)
    together = _median_ms(lambda: client.compare("Explain SSE", models=list(DELAYS)), REPEATS)
    print(f"compare, 4 chat models:     {together:7.1f} ms   slowest alone {slowest:.1f} ms: "
          f"{together / slowest:.2f}x (target <= 1.2x)")  # fmt: skip
    bench_compare_live()


class _LiveGridDisplay(NullDisplay):
    """No display but the notebook's live comparison grid, its messages captured (as a kernel would send them)."""

    def compare_view(self, prompt: str, kind: str, entries: list[Any]) -> Any:
        from gatewaykit.notebook.comparison_views.comparison_live import LiveComparisonView
        from gatewaykit.notebook.cell_output.sinks import CapturingSink

        self.view = LiveComparisonView(prompt, kind, entries, sink=CapturingSink())
        return self.view


def bench_compare_live() -> None:
    """The 4 models streaming STREAM_TOKENS tokens each into the live grid, against the slowest one's answer
    rendered live alone (what ``ask()`` does in a kernel) and its bare stream."""
    from gatewaykit.notebook.chat_views.live import render_stream
    from gatewaykit.notebook.cell_output.sinks import CapturingSink

    display = _LiveGridDisplay()
    client = gk.Client(api_key=KEY, base_url=BASE, http_transport=httpx.MockTransport(_handler(b"{}")),
                       ledger=gk.Ledger(path=None), display=display, validate=False)  # fmt: skip
    client.models.list()
    messages = [{"role": "user", "content": "Explain SSE"}]

    def slowest_stream() -> Any:
        return client.chat.completions.create(model="chat-d", messages=messages, stream=True)

    bare = _median_ms(lambda: slowest_stream().final(), REPEATS)
    live = _median_ms(lambda: render_stream(slowest_stream(), sink=CapturingSink()), REPEATS)
    together = _median_ms(lambda: client.compare("Explain SSE", models=list(DELAYS)), REPEATS)
    print(f"compare, live grid:         {together:7.1f} ms   slowest rendered live alone {live:.1f} ms: "
          f"{together / live:.2f}x (target <= 1.2x); its bare stream {bare:.1f} ms: {together / bare:.2f}x; "
          f"{display.view.paints} grid paints")  # fmt: skip


class _Stream:
    """A ChatStream over a canned body (no network), so only the reading and the view are timed."""

    @staticmethod
    def make(chunks: int) -> Any:
        from gatewaykit.client.core.streaming import ChatStream

        body = stream_body(chunks)
        pieces = [body[i : i + 4096] for i in range(0, len(body), 4096)]
        return ChatStream(iter(pieces), lambda: None)


def bench_chat_box(tokens: int) -> None:
    import ipywidgets as widgets

    from gatewaykit.notebook.chat_views.chat_view import BoxTurnView, _answer_html

    live = widgets.HTML()
    stop = threading.Event()

    def show(text: str) -> None:
        live.value = _answer_html(text, streaming=True)

    plain_times, box_times = [], []
    for _ in range(REPEATS):
        stream = _Stream.make(tokens)
        started = time.perf_counter()
        stream.final()
        plain_times.append(time.perf_counter() - started)
        stream = _Stream.make(tokens)
        view = BoxTurnView(show, stop, lambda: None, lambda _html: None)
        started = time.perf_counter()
        view.chat_stream(stream)
        box_times.append(time.perf_counter() - started)
    plain, box = statistics.median(plain_times), statistics.median(box_times)
    print(f"chat box, per token:        {(box - plain) / tokens * 1e6:7.2f} us on top of reading the stream "
          f"({plain / tokens * 1e6:.2f} us/token; {tokens:,} tokens; target <= 20 us)")  # fmt: skip


def bench_gallery(count: int) -> None:
    import gatewaykit.notebook.html_views.rendering  # noqa: F401 - registers the renderer
    from gatewaykit.client.resources.session_media import session_media
    from gatewaykit.presentation import rich_bundle
    from gatewaykit.types import ImageResult
    from PIL import Image

    from gatewaykit.notebook.html_views import thumbnails

    session_media.clear()
    thumbnails.install()  # as in a kernel: thumbnails are made as the images arrive
    started = time.perf_counter()
    for index in range(count):
        picture = Image.new("RGB", (1024, 1024), (index % 255, 90, 160))
        out = io.BytesIO()
        picture.save(out, format="PNG")
        result = ImageResult.model_validate({"created": 1, "model": "image-x", "size": "1024x1024",
                                             "data": [{"index": 0, "b64_json": base64.b64encode(out.getvalue()).decode()}]})
        session_media.remember("image", {"model": "image-x", "prompt": f"picture {index}"}, result, None)
    thumbnails.drain()
    background = time.perf_counter() - started
    shown = gk.gallery()
    started = time.perf_counter()
    size = len(rich_bundle(shown)["text/html"])
    first = time.perf_counter() - started
    started = time.perf_counter()
    rich_bundle(gk.gallery())
    second = time.perf_counter() - started
    print(f"gallery of {count} images:     first display {first * 1000:.0f} ms, again {second * 1000:.0f} ms "
          f"({size / 1e6:.1f} MB of HTML; target < 1 s); made, with thumbnails in the background, in "
          f"{background:.1f} s")  # fmt: skip
    session_media.clear()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--tokens", type=int, default=10_000)
    parser.add_argument("--images", type=int, default=200)
    parser.add_argument("--smoke", action="store_true", help="a few seconds with tiny counts: checks the script still runs (tests/test_benchmarks_smoke.py); no figures to keep")
    args = parser.parse_args()
    if args.smoke:
        global REPEATS
        REPEATS, args.runs, args.tokens, args.images = 1, 3, 300, 3
    image = _big_image_body()
    bench_cache(args.runs, image)
    bench_compare()
    bench_chat_box(args.tokens)
    bench_gallery(args.images)


if __name__ == "__main__":
    main()
