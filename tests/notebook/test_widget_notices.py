"""What the chat box and the playground say, without a browser (issue 31: items 7, 8, 10).

JupyterLab typesets ``$...$`` in a widget's ``description`` as LaTeX, so money
never goes into one; the browser check (test_browser_notices.py) looks at the
drawn page. A fresh playground has nothing to send: it hints, it does not
show an error card.
"""

from __future__ import annotations

import datetime
import functools
from typing import Any, Iterator

import pytest

import gatewaykit as gk
from conditions import wait_for
from gateway_accounts import ACME_KEY

_wait_for = functools.partial(wait_for, every=0.01)  # this file's pace


@pytest.fixture
def client(emulator: Any) -> Iterator[gk.Client]:
    ledger = gk.Ledger(path=None, budget=0.05)
    with gk.Client(api_key=ACME_KEY, base_url=emulator.base_url, ledger=ledger, display=False) as made:
        yield made


def _all_widgets(widget: Any) -> Iterator[Any]:
    yield widget
    for child in getattr(widget, "children", ()):
        yield from _all_widgets(child)


def _descriptions(root: Any) -> list[str]:
    return [str(getattr(w, "description", "") or "") for w in _all_widgets(root)]


def test_the_chat_box_budget_shows_money_outside_any_widget_description(client: gk.Client) -> None:
    """After a priced turn the budget reads '$… of $0.05' in an HTML widget; no description holds a '$'."""
    ui = gk.chat_ui(client, model="chat-mini")
    box = ui._build()
    ui._widgets["box"] = box  # type: ignore[index]
    ui.send("Name three rivers")
    assert [text for text in _descriptions(box) if "$" in text] == []
    label = ui._widgets["budget_label"]  # type: ignore[index]
    assert "of $0.05" in label.value and "tex2jax_ignore" in label.value
    assert label.layout.display is None and ui._widgets["budget"].layout.display is None  # type: ignore[index]


def _playground(client: gk.Client) -> Any:
    import ipywidgets

    from gatewaykit.notebook.widgets.playground import Playground

    return Playground(client, ipywidgets)


def test_no_playground_description_holds_a_dollar(client: gk.Client) -> None:
    """Every kind's form: labels are words, never amounts (the quote and the cost are HTML widgets)."""
    pg = _playground(client)
    for kind in pg.kinds:
        pg.kind_picker.value = kind
        assert [text for text in _descriptions(pg.widget) if "$" in text] == [], kind


def test_a_fresh_playground_hints_instead_of_showing_an_error(client: gk.Client) -> None:
    """Opened, and on every switch of kind, the empty prompt gives a quiet hint, never a 400 card."""
    pg = _playground(client)
    for kind in [*pg.kinds, next(iter(pg.kinds))]:
        pg.kind_picker.value = kind
        message = pg.message.value
        assert "Write a prompt" in message and "gk-playground-hint" in message, kind
        assert "400" not in message and "Error" not in message, kind
    pg.values["prompt"].value = "a red fox"
    assert "Write a prompt" not in pg.message.value


def test_run_with_an_empty_prompt_sends_nothing_and_stays_a_hint(client: gk.Client) -> None:
    """Run on a fresh form: no request, no ledger row, the hint and no error card."""
    pg = _playground(client)
    pg.run_button.click()
    assert pg.wait(5)
    assert len(client.ledger.rows) == 0
    assert "Write a prompt" in pg.message.value and "Error" not in pg.message.value


def test_a_real_mistake_still_shows_the_error_card(client: gk.Client) -> None:
    """A song without lyrics is a mistake in the form: the client's message shows as before."""
    pg = _playground(client)
    pg.kind_picker.value = "music"
    pg.values["prompt"].value = "folk, guitar"
    assert "lyrics" in pg.message.value and "gk-playground-hint" not in pg.message.value


def _png() -> bytes:
    import io

    from PIL import Image

    buffer = io.BytesIO()
    Image.new("RGB", (32, 32), "red").save(buffer, format="PNG")
    return buffer.getvalue()


def _upload(name: str, data: bytes) -> dict[str, Any]:
    return {"name": name, "type": "", "size": len(data), "content": memoryview(data),
            "last_modified": datetime.datetime(2026, 1, 1, tzinfo=datetime.timezone.utc)}


def test_the_upload_count_goes_back_to_zero_once_the_image_is_sent(client: gk.Client) -> None:
    """'Image (1)' is the upload's value: sending the message that took the image empties it (item 10)."""
    ui = gk.chat_ui(client, model="chat-vision")
    box = ui._build()
    ui._widgets["box"] = box  # type: ignore[index]
    attach = ui._widgets["attach"]  # type: ignore[index]
    attach.value = (_upload("red.png", _png()),)
    assert "1 image attached" in ui._widgets["status"].value  # type: ignore[index]
    ui.send("What colour is this?")
    assert len(attach.value) == 0 and ui._attachments == []


def test_a_text_file_beside_an_image_is_named_not_dropped(client: gk.Client) -> None:
    """A .txt picked with a PNG: the PNG is attached, the .txt named as not attached, the count reset (item 10)."""
    ui = gk.chat_ui(client, model="chat-vision")
    box = ui._build()
    ui._widgets["box"] = box  # type: ignore[index]
    attach = ui._widgets["attach"]  # type: ignore[index]
    attach.value = (_upload("red.png", _png()), _upload("notes.txt", b"plain words"))
    status = ui._widgets["status"].value  # type: ignore[index]
    assert "1 image attached" in status and "Not attached: &#x27;notes.txt&#x27; is not an image" in status
    assert len(ui._attachments) == 1 and len(attach.value) == 0


def test_undo_of_the_only_priced_turn_says_where_its_cost_went(client: gk.Client) -> None:
    """After Undo the conversation is $0.00 and the undone turn's cost is named as still in the ledger (item 10)."""
    ui = gk.chat_ui(client, model="chat-mini")
    box = ui._build()
    ui._widgets["box"] = box  # type: ignore[index]
    ui.send("Name three rivers")
    spent = client.ledger.total_cost
    ui.undo()
    totals = ui._widgets["totals"].value  # type: ignore[index]
    assert "not reported" not in totals and "conversation $0.00 · " in totals  # $0.00, not $0.0000663
    assert f"undone turns {gk.money.format_usd(spent)} (still in the ledger)" in totals
    assert client.ledger.total_cost == spent


def test_undo_of_the_last_of_two_turns_takes_its_cost_out_of_the_conversation(client: gk.Client) -> None:
    """The conversation's figure is what the turns still in it cost: after Undo it drops by the undone turn,
    which is named apart once (it read "conversation $0.000203 · undone turns $0.000123": counted twice)."""
    from gatewaykit.client.conversation.turn_costs import turn_cost

    ui = gk.chat_ui(client, model="chat-mini")
    ui._widgets["box"] = ui._build()  # type: ignore[index]
    ui.send("Explain what a prime number is")
    first = turn_cost(ui.session.turns[0])
    ui.send("What is a closure in Python?")
    second = turn_cost(ui.session.turns[1])
    assert first and second
    ui.undo()
    totals = ui._widgets["totals"].value  # type: ignore[index]
    money = gk.money.format_usd
    assert f"conversation {money(first)} · undone turns {money(second)} (still in the ledger)" in totals, totals
    assert ui.cost == pytest.approx(first + second) == pytest.approx(client.ledger.total_cost)  # the spend stays


def test_after_an_image_the_picker_offers_only_models_that_read_images(client: gk.Client) -> None:
    """An image in the conversation: non-vision models leave the picker (and come back after Undo) (item 9)."""
    ui = gk.chat_ui(client, model="chat-vision")
    box = ui._build()
    ui._widgets["box"] = box  # type: ignore[index]
    picker = ui._widgets["picker"]  # type: ignore[index]
    everyone = list(picker.options)
    assert "chat-mini" in everyone and "chat-vision" in everyone
    ui._attachments.append(_png())
    ui.send("What colour is this?")
    assert list(picker.options) == ["chat-vision"] and picker.value == "chat-vision"
    assert "read images" in ui._widgets["status"].value and "read images" in picker.tooltip  # type: ignore[index]
    ui.send("And now in one word?")  # the next message still goes to a model that can see the image
    assert len(ui.session.turns) == 2 and ui.error is None
    ui.undo()
    ui.undo()
    assert list(picker.options) == everyone


@pytest.fixture(scope="module")
def paced() -> Iterator[Any]:
    """A gateway that streams at a realistic pace, so Stop lands mid-answer."""
    from gateway_accounts import TEST_ACCOUNTS

    with gk.emulator.start(accounts=TEST_ACCOUNTS, time_scale=1.0, seed=0) as running:
        yield running


def test_the_playground_chat_has_a_stop_that_keeps_the_partial_answer(paced: Any) -> None:
    """While a chat answer streams, Stop shows beside Run; pressing it ends the run with what arrived (item 12)."""
    with gk.Client(api_key=ACME_KEY, base_url=paced.base_url, ledger=gk.Ledger(path=None), display=False) as client:
        pg = _playground(client)
        pg.values["prompt"].value = ("Write a long explanation of server-sent events with ten bullet points "
                                     "and a code example in Python")  # fmt: skip
        pg.run_button.click()
        _wait_for(lambda: pg.cancel_button.layout.display is None and pg.cancel_button.description == "Stop", "Stop")
        _wait_for(lambda: "gk-chat" in pg.result.value and len(pg.result.value) > 400, "the answer streaming")
        pg.cancel_button.click()
        assert pg.wait(60)
        assert "interrupted" in pg.result.value and pg.cancel_button.layout.display == "none"
        assert pg.stopping is None and not pg.run_button.disabled


def test_an_app_banner_says_what_the_results_are_not_how_to_set_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    """Served by Voilà (VOILA_REQUEST_URL set), the offline banner has no developer instructions (item 12)."""
    from gatewaykit.notebook.displays.banner import served_as_app
    from gatewaykit.notebook.html_views.html import render_offline_banner_html

    monkeypatch.delenv("VOILA_REQUEST_URL", raising=False)
    assert not served_as_app() and "SVC_API_KEY" in render_offline_banner_html("http://127.0.0.1:1", implicit=True)
    monkeypatch.setenv("VOILA_REQUEST_URL", "http://127.0.0.1:8866/")
    assert served_as_app()
    app = render_offline_banner_html("http://127.0.0.1:1", implicit=True, app=True)
    assert "synthetic" in app and "SVC_API_KEY" not in app and "127.0.0.1" not in app


def test_the_playground_app_shows_no_developer_text() -> None:
    """Voilà shows Markdown cells: notebook 09's notes on voila and keys live in code comments (item 12)."""
    import json
    from pathlib import Path

    notebook = json.loads((Path(__file__).resolve().parents[2] / "notebooks" / "09-playground.ipynb").read_text())
    shown = "".join("".join(cell["source"]) for cell in notebook["cells"] if cell["cell_type"] == "markdown")
    assert "voila" not in shown.lower() and "SVC_API_KEY" not in shown
