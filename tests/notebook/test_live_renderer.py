"""The throttled live renderer: update count, final static answer, interruptions."""

import pytest
from factories import HOSTILE, chunks

from gatewaykit.errors import ServerError, StreamInterruptedError
from gatewaykit.notebook.chat_views.live import LiveChatRenderer, render_stream
from gatewaykit.notebook.html_views.rendering import mimebundle
from gatewaykit.notebook.cell_output.sinks import CapturingSink


class Clock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


class PacedStream:
    """Chunks that advance a fake clock by ``step`` seconds each; records close()."""

    def __init__(self, items, clock, step, fail_at=None, error=None):
        self.items, self.clock, self.step = items, clock, step
        self.fail_at, self.error, self.closed = fail_at, error, False

    def __iter__(self):
        for index, item in enumerate(self.items):
            if index == self.fail_at:
                raise self.error
            self.clock.now += self.step
            yield item

    def close(self):
        self.closed = True


def run(pieces, step=0.001, **kwargs):
    clock, sink = Clock(), CapturingSink()
    stream = PacedStream(chunks(pieces), clock, step, **kwargs)
    return stream, sink, render_stream(stream, sink=sink, clock=clock)


def paragraphs(count, words=12):
    """Pieces of ``count`` short paragraphs (blocks that finish one after another)."""
    return [piece for n in range(count) for piece in [f"w{n}_{i} " for i in range(words)] + ["\n\n"]]


def test_updates_are_throttled_to_about_15_per_second():
    """2,000 tokens over 2 s of stream time give at most ~15 messages per second plus first and final."""
    _, sink, _ = run(paragraphs(150), step=2 / 1950)
    live = len(sink.messages) - 2 - len(sink.outputs)
    assert 10 <= live <= 2 * 15 + 1


class PlainSink:
    """A sink that cannot open more outputs (like an HTML widget): it gets the whole view each time."""

    def __init__(self):
        self.bundles = []

    def show(self, bundle):
        self.bundles.append(bundle)

    def update(self, bundle):
        self.bundles.append(bundle)


def test_finished_blocks_go_to_their_own_outputs_and_no_live_message_resends_the_answer():
    """Finished paragraphs move into new outputs; before the final one, no message carries most of the answer."""
    _, sink, completion = feed_paced_run(paragraphs(40), rate=200)
    assert len(sink.outputs) > 3
    answer = completion.choices[0].message.content
    assert max(len(bundle.get("text/plain", "")) for _, bundle in sink.messages[:-1]) < len(answer) / 4


def test_bytes_sent_stay_within_five_times_the_answer():
    """At 20 and 1000 tokens/s the messages carry at most 5x the final answer's bytes."""
    for rate in (20, 1000):
        _, sink, _ = feed_paced_run(paragraphs(60, words=20), rate=rate)
        size = lambda b: len(b.get("text/html", "")) + len(b.get("text/plain", ""))  # noqa: E731
        assert sum(size(b) for _, b in sink.messages) <= 5 * size(sink.last)


def test_saved_outputs_hold_the_answer_exactly_once():
    """After the stream, every part is emptied and one output holds the whole static answer."""
    _, sink, completion = feed_paced_run(paragraphs(30), rate=200)
    assert len(sink.outputs) > 1
    assert sink.saved() == [mimebundle(completion)]


def test_a_sink_without_open_gets_the_whole_view_in_each_update():
    """An HTML-widget-like sink keeps one view: every update carries all the text so far."""
    clock, sink = Clock(), PlainSink()
    stream = PacedStream(chunks(paragraphs(10)), clock, 0.01)
    completion = render_stream(stream, sink=sink, clock=clock)
    assert sink.bundles[-1] == mimebundle(completion)
    assert "w0_0" in sink.bundles[-2]["text/plain"] and "w9_" in sink.bundles[-2]["text/plain"]


def test_first_message_is_show_and_the_rest_updates():
    """The view is displayed once, then only updated in place."""
    _, sink, _ = run(["a"] * 50)
    kinds = [kind for kind, _ in sink.messages]
    assert kinds[0] == "show" and set(kinds[1:]) == {"update"}


def test_live_text_grows():
    """Successive live updates carry a growing answer."""
    _, sink, _ = run([f"w{i} " for i in range(1000)])
    lengths = [len(bundle["text/plain"]) for _, bundle in sink.messages[1:-1]]
    assert lengths == sorted(lengths) and lengths[0] < lengths[-1]


def test_final_message_is_the_static_completion_display():
    """The last message equals the returned completion's own display bundle."""
    _, sink, completion = run(["Hello ", "**world**"])
    assert sink.last == mimebundle(completion)
    assert "gk-live" not in sink.last["text/html"]
    assert completion.content == "Hello **world**"


def test_live_updates_are_sanitised():
    """Hostile text is escaped in live updates as well as in the final answer."""
    _, sink, _ = run(list(HOSTILE), step=0.1)
    for _, bundle in sink.messages:
        assert "<script" not in bundle["text/html"] and "<img" not in bundle["text/html"]
        assert 'href="javascript' not in bundle["text/html"]


def test_uses_stream_final_when_available():
    """The stream's own final() completion is returned and shown."""

    class WithFinal(PacedStream):
        def final(self):
            from factories import chat

            return chat("from final()")

    clock, sink = Clock(), CapturingSink()
    completion = render_stream(WithFinal(chunks(["x"]), clock, 0.01), sink=sink, clock=clock)
    assert completion.content == "from final()"
    assert "from final()" in sink.last["text/plain"]


def test_keyboard_interrupt_keeps_partial_static_and_reraises():
    """An interrupt closes the stream, leaves the partial answer marked, and re-raises."""
    clock, sink = Clock(), CapturingSink()
    stream = PacedStream(chunks(["par", "tial", "never"]), clock, 0.01, fail_at=2, error=KeyboardInterrupt())
    with pytest.raises(KeyboardInterrupt) as info:
        render_stream(stream, sink=sink, clock=clock)
    assert stream.closed
    assert info.value.partial.content == "partial"
    assert "interrupted: partial answer" in sink.last["text/html"]
    assert "gk-live" not in sink.last["text/html"]


def test_stream_interrupted_keeps_partial_with_note():
    """A broken stream keeps the text that arrived with an error note, and re-raises."""
    error = StreamInterruptedError("connection dropped")
    with pytest.raises(StreamInterruptedError):
        run(["kept ", "text", "lost"], fail_at=2, error=error)


def test_stream_interrupted_message_is_visible():
    """The error note names the interruption."""
    clock, sink = Clock(), CapturingSink()
    stream = PacedStream(chunks(["kept"]), clock, 0.01, fail_at=1, error=StreamInterruptedError("dropped"))
    with pytest.raises(StreamInterruptedError):
        render_stream(stream, sink=sink, clock=clock)
    assert "kept" in sink.last["text/plain"] and "stream interrupted: dropped" in sink.last["text/plain"]


def test_error_before_first_token_shows_error():
    """An error before any token replaces the placeholder with the error display."""
    clock, sink = Clock(), CapturingSink()
    stream = PacedStream(chunks(["x"]), clock, 0.01, fail_at=0, error=ServerError("boom", status=500))
    with pytest.raises(ServerError):
        render_stream(stream, sink=sink, clock=clock)
    assert "gk-error" in sink.last["text/html"]


def test_reasoning_streams_into_open_details_before_the_answer():
    """While only reasoning has arrived, it shows in an open <details>."""
    from gatewaykit.types import ChatCompletionChunk

    clock, sink = Clock(), CapturingSink()
    renderer = LiveChatRenderer(sink, clock=clock)
    renderer.start()
    clock.now = 1
    renderer.feed(ChatCompletionChunk.model_validate({"model": "chat-reasoner", "choices": [{"delta": {"reasoning": "think"}}]}))
    assert "<details class=\"gk-reasoning\" open" in sink.last["text/html"]


def feed_paced(pieces, rate):
    """Feed ``pieces`` at ``rate`` tokens per second of a fake clock; return (renderer, sink, completion)."""
    clock, sink = Clock(), CapturingSink()
    renderer = LiveChatRenderer(sink, clock=clock)
    renderer.start()
    for chunk in chunks(pieces):
        clock.now += 1 / rate
        renderer.feed(chunk)
    completion = renderer.partial()
    renderer.finish(completion)
    return renderer, sink, completion


def feed_paced_run(pieces, rate):
    return feed_paced(pieces, rate)


def test_open_block_is_parsed_at_most_every_quarter_second():
    """A long paragraph is re-parsed at most every MARKDOWN_INTERVAL; updates in between are previews."""
    from gatewaykit.notebook.chat_views.live import MARKDOWN_INTERVAL

    renderer, _, _ = feed_paced([f"word{i} " for i in range(200)], rate=40)  # 5 s, no blank line
    assert renderer.parses <= 5 / MARKDOWN_INTERVAL + 1
    assert renderer.updates >= 2 * renderer.parses


def test_live_view_shows_markdown_while_streaming():
    """Emphasis in the open paragraph is rendered as <strong> in live updates, not only at the end."""
    _, sink, _ = feed_paced(["Some ", "**bold**", " text"] + [f"w{i} " for i in range(100)], rate=50)
    live = [bundle["text/html"] for _, bundle in sink.messages[1:-1]]
    assert any("<strong>bold</strong>" in html for html in live)


@pytest.mark.parametrize("rate", [20, 1000])
def test_hostile_text_stays_inert_in_previews(rate):
    """Hostile text shown before its block is parsed (the escaped preview) never becomes markup."""
    pieces = [HOSTILE[i : i + 3] for i in range(0, len(HOSTILE), 3)] * 4 + ["\n\n"] + list(HOSTILE)
    renderer, sink, _ = feed_paced(pieces, rate=rate)
    assert renderer.parses < renderer.updates  # some updates were previews
    for _, bundle in sink.messages:
        html = bundle.get("text/html", "")
        assert "<script" not in html and "<img" not in html and 'href="javascript' not in html


def test_final_answer_equals_a_fresh_whole_render(monkeypatch):
    """The final static answer (built from the incremental render) equals rendering the text from scratch."""
    import random

    from gatewaykit.notebook.markdown_html import markdown

    rng = random.Random(7)
    text = "# T\n\n- a\n- b\n\n- loose\n\n```py\nx = 1\n\ny = 2\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\nend *x*\n" * 3
    pieces, start = [], 0
    while start < len(text):
        pieces.append(text[start : start + rng.randint(1, 9)])
        start += len(pieces[-1])
    _, sink, completion = feed_paced(pieces, rate=200)
    monkeypatch.setattr(markdown, "_recent", {})
    assert sink.last == mimebundle(completion)


def test_no_live_update_shows_a_list_marker_as_text():
    """Streamed word by word, a list never shows a literal '- ' in a paragraph or a second item inside the first."""
    import re

    text = "Intro line.\n\n- Set an API key to send this prompt.\n- A real model's reply would differ.\n\nDone.\n"
    pieces = re.findall(r"\S+\s*|\s+", text)
    _, sink, _ = run(pieces, step=0.05)
    for _, bundle in sink.messages:
        html = bundle.get("text/html", "")
        assert not re.search(r"<p>\s*-\s", html), html
        assert not re.search(r"<li>[^<]*\n?- ", html), html
