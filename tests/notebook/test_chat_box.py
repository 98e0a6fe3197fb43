"""gk.chat_ui(): the chat box's behaviour (send, stop, undo, reset, attachments, totals), no browser."""

from __future__ import annotations

import functools
import math
import sys
import threading
from typing import Any, Iterator

import pytest

import gatewaykit as gk
from conditions import wait_for
from gateway_accounts import ACME_KEY, TEST_ACCOUNTS

_wait_for = functools.partial(wait_for, every=0.01)  # this file's pace

LONG = "Write a long explanation of server-sent events with ten bullet points and a code example in Python"


@pytest.fixture
def client(emulator: Any) -> Iterator[gk.Client]:
    with gk.Client(api_key=ACME_KEY, base_url=emulator.base_url, ledger=gk.Ledger(path=None), display=False) as made:
        yield made


@pytest.fixture(scope="module")
def paced() -> Iterator[Any]:
    """A gateway that streams at a realistic pace, so Stop can land mid-answer."""
    with gk.emulator.start(accounts=TEST_ACCOUNTS, time_scale=1.0, seed=0) as running:
        yield running


def test_send_adds_a_turn_and_returns_its_completion(client: gk.Client) -> None:
    """send(text) is one session turn; the completion is the turn's reply."""
    ui = gk.chat_ui(client, model="chat-mini")
    reply = ui.send("Name three rivers")
    assert isinstance(reply, gk.ChatCompletion)
    assert len(ui.session.turns) == 1 and ui.session.turns[0].reply is reply
    assert ui.session.history[-1]["content"] == reply.choices[0].message.content


def test_the_widgets_show_the_transcript_and_both_costs(client: gk.Client) -> None:
    """After two turns the transcript has both prompts and the totals line this turn and the conversation."""
    ui = gk.chat_ui(client, model="chat-mini")
    ui._widgets = None
    box = ui._build()
    ui._widgets["box"] = box  # type: ignore[index]
    ui.send("First <b>question</b>")
    ui.send("Second question")
    transcript = ui._widgets["transcript"].value  # type: ignore[index]
    assert "First &lt;b&gt;question&lt;/b&gt;" in transcript and "Second question" in transcript
    totals = ui._widgets["totals"].value  # type: ignore[index]
    assert "this turn $" in totals and "conversation $" in totals


def test_empty_text_sends_nothing(client: gk.Client) -> None:
    """Blank input is not a turn and costs nothing."""
    ui = gk.chat_ui(client, model="chat-mini")
    assert ui.send("   ") is None
    assert ui.session.turns == [] and len(client.ledger.rows) == 0


def test_undo_and_reset_take_turns_back(client: gk.Client) -> None:
    """Undo drops the last turn; Reset drops them all."""
    ui = gk.chat_ui(client, model="chat-mini")
    ui.send("one")
    ui.send("two")
    ui.undo()
    assert [t.messages[0]["content"] for t in ui.session.turns] == ["one"]
    ui.reset()
    assert ui.session.turns == []


def test_stop_keeps_the_partial_answer_and_says_so(paced: Any) -> None:
    """Stop mid-stream: the turn stays with what arrived, marked stopped; the next turn works."""
    with gk.Client(api_key=ACME_KEY, base_url=paced.base_url, ledger=gk.Ledger(path=None), display=False) as client:
        ui = gk.chat_ui(client, model="chat-mini")
        ui._widgets = None
        ui._widgets = {"box": None, **{k: v for k, v in _fake_widgets().items()}}
        ui.send(LONG, wait=False)
        _wait_for(lambda: len(ui._widgets["live"].value) > 400, "the answer to start streaming")
        conversation = ui._widgets["conversation"].layout
        assert conversation.height == conversation.max_height  # full height while it streams: the buttons stand still
        ui.stop()
        assert ui._worker is not None
        ui._worker.join(timeout=60)
        assert not ui._worker.is_alive()
        assert conversation.height is None  # as high as the conversation again
        turn = ui.session.turns[-1]
        partial = turn.reply.choices[0].message.content
        assert partial and len(partial) < 3000
        assert "stopped" in ui._widgets["transcript"].value
        assert ui.session.history[-1]["content"] == partial
        rows = client.ledger.rows
        assert rows[-1]["status"] == "interrupted"
        assert ui.send("Thanks").choices[0].message.content
        totals = ui._widgets["totals"].value
        assert "conversation $" in totals and "+ 1 turn of unknown cost" in totals, totals


def _fake_widgets() -> dict[str, Any]:
    import ipywidgets as widgets

    names = ("transcript", "live", "status", "totals")
    made: dict[str, Any] = {name: widgets.HTML() for name in names}
    made.update(input=widgets.Textarea(), send=widgets.Button(), stop=widgets.Button(),
                budget=widgets.FloatProgress(), pending="", steps="",
                conversation=widgets.Box(layout=widgets.Layout(max_height="460px")))  # fmt: skip
    return made


def test_a_second_send_while_streaming_is_refused_politely(paced: Any) -> None:
    """While an answer streams, Send says to wait and sends nothing."""
    with gk.Client(api_key=ACME_KEY, base_url=paced.base_url, ledger=gk.Ledger(path=None), display=False) as client:
        ui = gk.chat_ui(client, model="chat-mini")
        ui._widgets = {"box": None, **_fake_widgets()}
        ui.send(LONG, wait=False)
        assert ui.send("another") is None
        assert "still arriving" in ui._widgets["status"].value
        ui.stop()
        ui._worker.join(timeout=60)  # type: ignore[union-attr]
        assert len(ui.session.turns) == 1


def test_an_attachment_that_is_not_an_image_is_refused(client: gk.Client) -> None:
    """A text file attached says what is wrong; nothing is attached or sent."""
    ui = gk.chat_ui(client, model="chat-vision")
    ui._widgets = {"box": None, **_fake_widgets()}
    ui._attached({"new": ({"name": "notes.txt", "content": memoryview(b"not a picture")},)})
    assert "not an image" in ui._widgets["status"].value
    assert ui._attachments == [] and len(client.ledger.rows) == 0


def test_an_image_attachment_goes_with_the_next_message(client: gk.Client) -> None:
    """An attached PNG is sent as an image part of the next turn."""
    import io

    from PIL import Image

    buffer = io.BytesIO()
    Image.new("RGB", (32, 32), "red").save(buffer, format="PNG")
    ui = gk.chat_ui(client, model="chat-vision")
    ui._widgets = {"box": None, **_fake_widgets()}
    ui._attached({"new": ({"name": "red.png", "content": memoryview(buffer.getvalue())},)})
    ui.send("What colour is this?")
    content = ui.session.history[0]["content"]
    assert isinstance(content, list) and any(part.get("type") == "image_url" for part in content)
    assert ui._attachments == []


def test_an_error_is_shown_in_the_box_and_raised_to_a_caller(client: gk.Client) -> None:
    """A gateway error ends the turn with an error card; the history keeps nothing of it."""
    ui = gk.chat_ui(client, model="no-such-model")
    ui._widgets = {"box": None, **_fake_widgets()}
    with pytest.raises(gk.GatewayError):
        ui.send("hello")
    assert "no-such-model" in ui._widgets["live"].value
    assert ui.session.turns == []


def test_the_static_transcript_reads_without_widgets(client: gk.Client) -> None:
    """static_html() is the conversation (what a saved notebook shows)."""
    ui = gk.chat_ui(client, model="chat-mini")
    ui.send("Name a <script> tag")
    html = ui.static_html()
    assert "Name a &lt;script&gt; tag" in html and "<script>" not in html
    usage = ui.session.turns[0].reply.usage
    footer = html.rsplit('class="gk-footer"', 1)[1]
    assert f"{usage.prompt_tokens:,} in + {usage.completion_tokens:,} out tokens" in footer  # as an answer's footer
    assert "<strong>synthetic</strong> (offline gateway)" in footer  # the offline gateway's answer says so here too


def test_the_textarea_fallback_syncs_its_text_when_focus_leaves_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without anywidget, the input syncs on blur (before Send's click), not per key (throttled, overtaken by the click)."""
    from gatewaykit.notebook.widgets.message_input import message_input

    monkeypatch.setitem(sys.modules, "anywidget", None)  # a kernel without anywidget (Colab)
    area, enter_sends = message_input("Message", lambda _text: None)
    assert not enter_sends and type(area).__name__ == "Textarea"
    assert area.continuous_update is False


def test_the_input_takes_the_whole_text_when_focus_leaves_it() -> None:
    """The anywidget input's "draft" message (sent on blur, before Send's click) sets its value at once."""
    from gatewaykit.notebook.widgets.message_input import message_input

    area, enter_sends = message_input("Message", lambda _text: None)
    assert enter_sends
    area._handle_custom_msg({"type": "draft", "text": "A long answer please"}, [])
    assert area.value == "A long answer please"


def test_the_conversation_total_keeps_what_is_known_beside_a_stopped_turn() -> None:
    """Turns of known cost are summed; a turn that reported none is counted beside them, never as $0."""
    from gatewaykit.notebook.widgets.chat_box import conversation_cost_text

    assert conversation_cost_text(0.003, [0.001, 0.002]) == "$0.003"
    assert conversation_cost_text(None, [0.001, None, 0.002]) == "$0.003 + 1 turn of unknown cost"
    assert conversation_cost_text(None, [None, None]) == "not reported"


def test_a_replayed_turn_says_not_charged_where_a_turn_shows_its_cost(emulator: Any, tmp_path: Any, no_key: None) -> None:
    """A chat box over a cassette's replay: each turn's footer, 'this turn' and the conversation total say what
    the ledger rows say (replayed, not charged, the recorded cost as such), not the recording's cost as paid."""
    import re

    from gatewaykit.money import format_usd

    path = tmp_path / "box.jsonl"
    prompts = ["Name a river, boxed.", "And a lake?"]

    def converse(client: gk.Client) -> gk.ChatUI:
        ui = gk.chat_ui(client, model="chat-mini")
        for prompt in prompts:
            ui.send(prompt)
        return ui

    with gk.Client(api_key=ACME_KEY, base_url=emulator.base_url, cassette=path, cassette_mode="record",
                   ledger=gk.Ledger(path=None), display=False) as recording:  # fmt: skip
        fresh = converse(recording)
    with gk.Client(cassette=path, cassette_mode="replay", ledger=gk.Ledger(path=None), display=False) as client:
        ui = converse(client)
        rows = client.ledger.rows
    paid = [turn.reply.usage.total_cost for turn in fresh.session.turns]
    notes = [f"replayed from a cassette: not charged (recorded cost {format_usd(cost)})" for cost in paid]
    footers = re.findall(r'<div class="gk-footer"[^>]*>(.*?)</div>', ui.static_html())
    assert [footer.split(" · ")[-1] for footer in footers] == notes
    assert [row["note"] for row in rows] == notes and {row["total_cost"] for row in rows} == {0.0}
    fresh_footers = re.findall(r'<div class="gk-footer"[^>]*>(.*?)</div>', fresh.static_html())
    assert [footer.split(" · ")[-1] for footer in fresh_footers] == [format_usd(cost) for cost in paid]
    assert "replayed" not in fresh._totals_html()
    totals = ui._totals_html()
    assert f"this turn {notes[1]}" in totals
    assert f"conversation $0.00, 2 turns replayed from a cassette: not charged (recorded cost {format_usd(math.fsum(paid))})" in totals
    assert ui.cost == 0.0 == math.fsum(row["total_cost"] for row in rows)  # the session agrees with its ledger rows


def test_a_cached_turn_says_not_charged_where_a_turn_shows_its_cost(emulator: Any, tmp_path: Any) -> None:
    """A chat box over the response cache's answers: each turn's footer, 'this turn' and the conversation total
    say what the ledger rows say (cached, not sent, not charged, what it saved), not the kept answer's cost as
    spent again (the box read the turn's cost from its answers, which carry the kept cost)."""
    import re

    from gatewaykit.money import format_usd

    prompts = ["Name a river, kept.", "And a lake?"]

    def converse() -> tuple[gk.ChatUI, list[dict[str, Any]]]:
        with gk.Client(api_key=ACME_KEY, base_url=emulator.base_url, cache=tmp_path / "cache",
                       ledger=gk.Ledger(path=None), display=False) as client:  # fmt: skip
            ui = gk.chat_ui(client, model="chat-mini")
            for prompt in prompts:
                ui.send(prompt)
            return ui, client.ledger.rows

    fresh, _ = converse()
    ui, rows = converse()
    paid = [turn.reply.usage.total_cost for turn in fresh.session.turns]
    notes = [f"cached: not sent, not charged (saved {format_usd(cost)})" for cost in paid]
    assert [row["note"] for row in rows] == notes and {row["total_cost"] for row in rows} == {0.0}
    footers = re.findall(r'<div class="gk-footer"[^>]*>(.*?)</div>', ui.static_html())
    assert [footer.split(" · ")[-1] for footer in footers] == notes
    totals = ui._totals_html()
    assert f"this turn {notes[1]}" in totals
    assert f"conversation $0.00, 2 turns cached: not sent, not charged (saved {format_usd(math.fsum(paid))})" in totals
    assert "cached" not in fresh._totals_html()
