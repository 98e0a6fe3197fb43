"""An answer replayed from a cassette says so where it is shown (not charged), instead of a paid-looking cost.

A module fixture records, against the shared offline gateway, a streamed chat and
a conversation turn with a tool call into a cassette, keeping what their live views
showed; the tests replay the cassette with no gateway and no key, through the same
live views (``render_stream``, ``render_async_stream``, ``LiveTurnView``), and compare.
"""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

import pytest

import gatewaykit as gk
from gatewaykit.client.core.display import NullBatchProgress
from gatewaykit.money import format_usd
from gatewaykit.notebook.cell_output.sinks import CapturingSink
from gatewaykit.notebook.chat_views.live import render_async_stream, render_stream
from gatewaykit.notebook.chat_views.turn_view import LiveTurnView
from gatewaykit.notebook.html_views.rendering import mimebundle

LABEL = "replayed from a cassette: not charged"
QUESTION = [{"role": "user", "content": "Name three rivers in one sentence."}]
WEATHER = "What is the weather in Paris?"
BUFFERED = [{"role": "user", "content": "Name one lake, buffered."}]


def get_weather(city: str) -> dict:
    """The current weather in a city."""
    return {"city": city, "sky": "sunny"}


def footers(html: str) -> list[str]:
    return re.findall(r'<div class="gk-footer"[^>]*>(.*?)</div>', html)


class TurnDisplay:
    """A display whose conversation turns stream through a LiveTurnView, one CapturingSink per output."""

    def __init__(self) -> None:
        self.outputs: list[CapturingSink] = []

    def _new_sink(self) -> CapturingSink:
        self.outputs.append(CapturingSink())
        return self.outputs[-1]

    def turn_view(self) -> LiveTurnView:
        return LiveTurnView(self._new_sink)

    def chat_stream(self, stream: Any) -> Any:
        return render_stream(stream, sink=self._new_sink())

    async def async_chat_stream(self, stream: Any) -> Any:
        return await render_async_stream(stream, sink=self._new_sink())

    def job_wait(self, job: Any, wait: Any) -> Any:
        return wait(None)

    def batch_progress(self, total: int) -> Any:
        return NullBatchProgress()

    def offline_notice(self, base_url: str, *, implicit: bool) -> None:
        pass


@dataclass
class Recorded:
    path: Path
    stream_html: str = ""  # the fresh streamed answer's final output
    cost: float = 0.0  # what the recording session paid for it
    buffered: dict[str, Any] = field(default_factory=dict)  # the fresh buffered answer's bundle
    image: dict[str, Any] = field(default_factory=dict)  # the fresh image's bundle
    turn_html: list[str] = field(default_factory=list)  # the fresh turn's outputs


@pytest.fixture(scope="module")
def recorded(emulator: Any, keys: Any, tmp_path_factory: pytest.TempPathFactory) -> Recorded:
    out = Recorded(tmp_path_factory.mktemp("replayed-answers") / "answers.jsonl")
    display = TurnDisplay()
    with gk.Client(api_key=keys.acme, base_url=emulator.base_url, cassette=out.path, cassette_mode="record",
                   ledger=gk.Ledger(), display=display) as client:  # fmt: skip
        sink = CapturingSink()
        answer = render_stream(client.chat.completions.create(model="chat-mini", messages=QUESTION, stream=True), sink=sink)
        out.stream_html, out.cost = sink.saved()[0]["text/html"], answer.usage.total_cost
        client.chat.session(model="chat-mini", tools=[get_weather])(WEATHER)
        out.turn_html = [sink.saved()[0]["text/html"] for sink in display.outputs]
        out.buffered = mimebundle(client.chat.completions.create(model="chat-mini", messages=BUFFERED))
        out.image = mimebundle(client.images.generate(model="image-pixels", prompt="a red fox", width=256, height=256))
    return out


@pytest.fixture
def replay(recorded: Recorded, no_key: None) -> Iterator[gk.Client]:
    with gk.Client(cassette=recorded.path, cassette_mode="replay", ledger=gk.Ledger(), display=TurnDisplay()) as client:
        yield client


def test_a_fresh_answer_shows_its_cost_and_no_replay_label(recorded: Recorded) -> None:
    """The recording session's own answer: a paid cost in the footer, no word of a cassette."""
    assert recorded.cost > 0
    assert LABEL not in recorded.stream_html and format_usd(recorded.cost) in footers(recorded.stream_html)[0]


def test_a_replayed_stream_says_it_is_not_charged(recorded: Recorded, replay: gk.Client) -> None:
    """Replayed, the same answer's footer (HTML and text/plain) says it was not charged, with the recorded cost
    as such; the ledger row agrees (replayed, $0)."""
    sink = CapturingSink()
    answer = render_stream(replay.chat.completions.create(model="chat-mini", messages=QUESTION, stream=True), sink=sink)
    final = sink.saved()[0]
    recorded_cost = f"{LABEL} (recorded cost {format_usd(recorded.cost)})"
    footer = footers(final["text/html"])[0]
    assert recorded_cost in footer and "<strong>synthetic</strong> (offline gateway)" in footer
    assert f"· {format_usd(recorded.cost)}" not in footer  # no paid-looking cost beside it
    assert final["text/plain"].splitlines()[-1].endswith(recorded_cost)
    assert answer.content and answer.content[:40] in final["text/plain"]
    row = replay.ledger.rows[-1]
    assert (row["cost_source"], row["total_cost"]) == ("replayed", 0.0)


def test_the_live_status_line_says_replayed_while_it_streams(recorded: Recorded, replay: gk.Client) -> None:
    """Before the answer ends, the status line under the streaming text already says it is a replay."""
    sink = CapturingSink()
    render_stream(replay.chat.completions.create(model="chat-mini", messages=QUESTION, stream=True), sink=sink)
    live = [footers(bundle["text/html"]) for _kind, bundle in sink.messages[:-1] if "gk-live" in bundle.get("text/html", "")]
    status_lines = [found[-1] for found in live if found]  # a finished part moved to its own output has none
    assert status_lines and all(LABEL in line for line in status_lines)


def test_an_async_replayed_stream_says_it_is_not_charged(recorded: Recorded, no_key: None) -> None:
    """The AsyncClient's replayed stream, through render_async_stream, ends with the same footer."""

    async def run() -> str:
        async with gk.AsyncClient(cassette=recorded.path, cassette_mode="replay", ledger=gk.Ledger()) as client:
            sink = CapturingSink()
            stream = await client.chat.completions.create(model="chat-mini", messages=QUESTION, stream=True)
            await render_async_stream(stream, sink=sink)
            return str(sink.saved()[0]["text/html"])

    assert LABEL in footers(asyncio.run(run()))[0]


def test_a_replayed_turn_labels_its_tool_step_and_its_answer(recorded: Recorded, replay: gk.Client) -> None:
    """A conversation turn replayed: the tool-calling step's footer and the answer's both say not charged."""
    replay.chat.session(model="chat-mini", tools=[get_weather])(WEATHER)
    shown = [sink.saved()[0]["text/html"] for sink in replay.display.outputs]
    assert len(shown) == len(recorded.turn_html) == 2
    step, answer = shown
    assert "gk-turn-step" in step and "get_weather" in step and LABEL in footers(step)[-1]
    assert "gk-turn-step" not in answer and LABEL in footers(answer)[-1]
    assert not any(LABEL in html for html in recorded.turn_html)


def test_a_cached_answer_plain_text_says_what_it_saved(emulator: Any, keys: Any, tmp_path: Path) -> None:
    """The text/plain footer follows the HTML one for a cached answer too: what it saved, not a cost."""
    messages = [{"role": "user", "content": "A cached question about lakes."}]
    with gk.Client(api_key=keys.acme, base_url=emulator.base_url, cache=tmp_path, ledger=gk.Ledger()) as client:
        client.chat.completions.create(model="chat-mini", messages=messages)
        again = client.chat.completions.create(model="chat-mini", messages=messages)
    bundle = mimebundle(again)
    assert "cached: not sent, not charged (saved $" in footers(bundle["text/html"])[0]
    assert "cached: not sent, not charged (saved $" in bundle["text/plain"].splitlines()[-1]


def test_a_replayed_buffered_answer_and_image_say_they_are_not_charged(recorded: Recorded, replay: gk.Client) -> None:
    """Not streamed: the cassette marks a replayed answer that reports usage, and its HTML and text/plain footers
    say not charged where the recording's showed a cost (a chat answer and an image alike)."""
    assert LABEL not in str(recorded.buffered) and LABEL not in str(recorded.image)
    answer = replay.chat.completions.create(model="chat-mini", messages=BUFFERED)
    image = replay.images.generate(model="image-pixels", prompt="a red fox", width=256, height=256)
    for shown in (mimebundle(answer), mimebundle(image)):
        assert LABEL in footers(shown["text/html"])[-1]
        assert LABEL in shown["text/plain"]
    assert answer.choices[0].message.content[:40] in recorded.buffered["text/plain"]  # the same answer, replayed
    assert (answer.model_extra or {}).get("gatewaykit_cassette") == "replayed"
    assert [row["cost_source"] for row in replay.ledger.rows[-2:]] == ["replayed", "replayed"]
