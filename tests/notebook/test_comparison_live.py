"""The live comparison grid on a capturing sink: what a front end would receive, without a kernel."""

from __future__ import annotations

from gatewaykit.client.session_tools.comparison import Comparison, ComparisonEntry
from gatewaykit.notebook.comparison_views.comparison_live import LiveComparisonView
from gatewaykit.notebook.cell_output.sinks import CapturingSink
from gatewaykit.types import ChatCompletionChunk

HOSTILE = '<img src=x onerror="window.__pwned = 1">'


def chunk(text: str) -> ChatCompletionChunk:
    return ChatCompletionChunk.model_validate({"id": "c1", "object": "chat.completion.chunk", "created": 1, "model": "m",
                                               "choices": [{"index": 0, "delta": {"content": text}, "finish_reason": None}]})


def test_model_text_and_ids_in_a_running_column_are_escaped() -> None:
    """A streamed answer and a model id carrying markup reach the grid as text, never as tags."""
    entries = [ComparisonEntry(model='evil"<b>', kind="chat")]
    sink = CapturingSink()
    view = LiveComparisonView("hi", "chat", entries, sink=sink, painter=False, clock=iter(range(1000)).__next__)
    view.started(entries[0])
    for _ in range(3):
        view.chunk(entries[0], chunk(HOSTILE + "\n\n"))
    view.paint()
    html = sink.last["text/html"]
    assert "<img" not in html and "&lt;img" in html and '"<b>' not in html


def test_close_leaves_the_static_grid_and_stops_painting() -> None:
    """After close the output is the Comparison's own grid, and a late paint changes nothing."""
    entries = [ComparisonEntry(model="chat-mini", kind="chat", error=ValueError("no"), latency_s=0.1)]
    sink = CapturingSink()
    view = LiveComparisonView("hi", "chat", entries, sink=sink, painter=False)
    assert 'data-state="waiting"' in sink.last["text/html"]
    view.finished(entries[0])
    view.close(Comparison(prompt="hi", kind="chat", entries=entries))
    final = sink.last
    view.paint()
    assert sink.last is final and 'data-state="failed"' in final["text/html"] and "gk-comparison" in final["text/html"]
