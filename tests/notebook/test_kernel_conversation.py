"""Conversations in a real kernel (nbclient): each request renders live, the session displays itself."""

import pytest
from kernel_runner import html_outputs, output_types, run_notebook

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def executed(emulator, keys):
    """One notebook: a tool-calling session, its display, and two %%chat cells."""
    cells = [
        "import gatewaykit as gk\n"
        f"client = gk.Client(base_url={emulator.base_url!r}, api_key={keys.acme!r})",
        "def get_weather(city: str) -> str:\n"
        "    '''Get the current weather for a city.'''\n"
        "    return f'<script>alert(1)</script> sunny in {city}'\n"
        "chat = client.chat.session(model='chat-mini', tools=[get_weather])\n"
        "chat('What is the weather in Paris?')",
        "chat",
        "%load_ext gatewaykit\nfrom gatewaykit.notebook.magics import use_client\nuse_client(client)",
        "%%chat --model chat-mini\nWhat is a kernel?",
        "%%chat\nAnd a front end?",
        "len(_chat_session.history), type(_chat_session).__name__",
    ]
    return run_notebook(cells)


def test_each_request_of_a_turn_renders_once(executed):
    """The tool-call reply and the answer each leave one static view; the returned reply is not shown twice."""
    cell = executed.cells[1]
    assert output_types(cell) == ["display_data", "display_data"]
    first, answer = html_outputs(cell)
    assert "get_weather" in first and "gk-live" not in answer and "gk-chat" in answer


def test_the_session_displays_the_conversation_sanitised(executed):
    """A session as the last expression shows the turns, the tool call and its escaped result, and the cost."""
    (html,) = html_outputs(executed.cells[2])
    assert "gk-conversation" in html and "get_weather" in html and "$" in html
    assert "&lt;script&gt;" in html and "<script>" not in html


def test_chat_magic_continues_one_session(executed):
    """Two %%chat cells are two turns of one ChatSession, available as _chat_session."""
    assert executed.cells[6].outputs[0]["data"]["text/plain"] == "(4, 'ChatSession')"
    assert "gk-chat" in html_outputs(executed.cells[5])[0]
