"""The live tool-loop view in a real kernel (nbclient): the messages a front end receives and what a saved notebook keeps."""

from __future__ import annotations

from typing import Any

import pytest
from kernel_runner import display_messages, html_outputs, output_types, run_notebook

pytestmark = pytest.mark.slow

SYNC_CELL, ASYNC_CELL = 1, 2
ANSWER_MARK = "The offline model only repeats the tool"  # a sentence of the synthetic answer after tool results


@pytest.fixture(scope="module")
def recorded(emulator: Any, keys: Any) -> tuple[Any, list[Any]]:
    """One notebook: a sync and an async tool turn as a cell's last line, then %%chat, %%chat, %%chat --new."""
    cells = [
        "import gatewaykit as gk\n"
        f"client = gk.Client(base_url={emulator.base_url!r}, api_key={keys.acme!r})\n"
        f"aclient = gk.AsyncClient(base_url={emulator.base_url!r}, api_key={keys.acme!r})\n"
        "def get_weather(city: str) -> str:\n"
        "    '''Get the current weather for a city.'''\n"
        "    return f'<b onmouseover=x>sunny</b> in {city}'",
        "chat = client.chat.session(model='chat-mini', tools=[get_weather])\n"
        "chat('What is the weather in Paris?')",
        "achat = aclient.chat.session(model='chat-mini', tools=[get_weather])\n"
        "await achat('What is the weather in Lisbon?')",
        "%load_ext gatewaykit\nfrom gatewaykit.notebook.magics import use_client\nuse_client(client)",
        "%%chat --model chat-mini\nWhat is a kernel?",
        "%%chat\nAnd a front end?",
        "first = _chat_session\nlen(first.history)",
        "%%chat --new\nStart again: what is a cell?",
        "len(_chat_session.history), _chat_session is first, len(first.history)",
    ]
    messages: list[Any] = []
    nb = run_notebook(cells, messages=messages)
    return nb, messages


def html_sequence(messages: list[Any], cell: int) -> list[str]:
    return [content["data"].get("text/html", "") for _, content in display_messages(messages, cell)]


def first_index(sequence: list[str], *needles: str) -> int:
    return next(i for i, html in enumerate(sequence) if all(needle in html for needle in needles))


@pytest.mark.parametrize("cell, city", [(SYNC_CELL, "Paris"), (ASYNC_CELL, "Lisbon")])
def test_live_messages_show_call_then_result_then_answer(recorded: Any, cell: int, city: str) -> None:
    """The front end sees the request stream, the tool block running, its result, then the streamed answer."""
    sequence = html_sequence(recorded[1], cell)
    assert "gk-live" in sequence[0]
    running = first_index(sequence, "gk-tool-step", f"get_weather(city=&quot;{city}&quot;)", "running…")
    result = first_index(sequence, "gk-tool-step", f"&lt;b onmouseover=x&gt;sunny&lt;/b&gt; in {city}")
    answer = first_index(sequence, "gk-chat", ANSWER_MARK)
    assert running < result < answer
    assert not any("<b onmouseover" in html for html in sequence)


@pytest.mark.parametrize("cell", [SYNC_CELL, ASYNC_CELL])
def test_saved_outputs_hold_the_step_and_the_answer_once(recorded: Any, cell: int) -> None:
    """The saved cell keeps two static outputs, the tool step and the answer, and no second copy of the reply."""
    saved = recorded[0].cells[cell]
    assert output_types(saved) == ["display_data", "display_data"]
    step, answer = html_outputs(saved)
    assert "<details" in step and 'data-status="ok"' in step and "gk-live" not in step and ANSWER_MARK not in step
    assert "gk-live" not in answer and sum(html.count(ANSWER_MARK) for html in html_outputs(saved)) == 1


def test_chat_magic_new_starts_over(recorded: Any) -> None:
    """Two %%chat cells share one session (4 messages); %%chat --new gives a fresh session of one turn."""
    nb = recorded[0]
    assert nb.cells[6].outputs[0]["data"]["text/plain"] == "4"
    assert nb.cells[8].outputs[0]["data"]["text/plain"] == "(2, False, 4)"
