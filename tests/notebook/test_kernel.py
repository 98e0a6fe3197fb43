"""The notebook layer in a real kernel (nbclient) against the offline gateway."""

import pytest
from kernel_runner import html_outputs, output_types, run_notebook

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def executed(emulator, keys):
    """One notebook exercising display, live chat, magics and the banner."""
    setup = (
        "import gatewaykit as gk\n"
        f"client = gk.Client(base_url={emulator.base_url!r}, api_key={keys.acme!r})"
    )
    cells = [
        setup,
        "client.chat.ask('Explain streaming in a table', model='chat-mini')",
        "answer = client.chat.ask('Explain queues', model='chat-mini')\nanswer",
        "client.models.list()",
        "%load_ext gatewaykit\nfrom gatewaykit.notebook.magics import use_client\nuse_client(client)",
        "%%chat --model chat-mini\nWhat is a kernel?",
        "%%chat\nAnd a front end?",
        "len(get_ipython().magics_manager.registry['GatewayMagics'].messages)",
        "%%image --model image-pixels --size 256x256\na red square",
        "offline = gk.Client(offline=True)",
        "print(type(client.display).__name__)",
        f"quiet = gk.Client(base_url={emulator.base_url!r}, api_key={keys.acme!r}, display=False)\n"
        "_ = quiet.chat.ask('Explain queues', model='chat-mini')",
    ]
    return run_notebook(cells)


def test_ask_as_last_expression_shows_the_answer_once(executed):
    """chat.ask() as a cell's last expression leaves one static answer, not two."""
    cell = executed.cells[1]
    assert [out["output_type"] for out in cell.outputs if out.get("data")] == ["display_data"]
    html = html_outputs(cell)[0]
    assert "gk-chat" in html and "gk-live" not in html and "chat-mini" in html


def test_answer_displays_again_in_the_same_cell_only_once(executed):
    """Assigning then showing the answer in the same cell still shows it once."""
    assert len(html_outputs(executed.cells[2])) == 1


def test_saved_answer_is_complete_static_markdown(executed):
    """The saved output is the complete rendered answer with the cost footer."""
    html = html_outputs(executed.cells[1])[0]
    assert "<table style=" in html and "$" in html and "streaming…" not in html


def test_model_list_is_a_table(executed):
    """A model list as the last expression is an HTML table with every model."""
    html = html_outputs(executed.cells[3])[0]
    assert "gk-models" in html and "video-tiers" in html and "music-song" in html


def test_chat_magic_streams_an_answer(executed):
    """%%chat shows the answer as static HTML."""
    html = html_outputs(executed.cells[5])[0]
    assert "gk-chat" in html and "gk-live" not in html


def test_chat_magic_keeps_the_conversation(executed):
    """Two %%chat cells make a four-message conversation."""
    assert executed.cells[7].outputs[0]["data"]["text/plain"] == "4"


def test_image_magic_shows_the_image(executed):
    """%%image shows the generated image inline."""
    html = html_outputs(executed.cells[8])[0]
    assert '<img src="data:image/png;base64,' in html


def test_offline_client_shows_banner(executed):
    """Client(offline=True) in a kernel shows the offline banner."""
    html = "".join(html_outputs(executed.cells[9]))
    assert "synthetic results from the offline gateway" in html


def test_a_client_built_in_a_kernel_gets_the_kernel_display(executed):
    """Inside a kernel, Client() chooses the notebook layer's KernelDisplay once, at construction."""
    assert executed.cells[10].outputs[0]["text"].strip() == "KernelDisplay"


def test_display_false_shows_no_live_view_in_a_kernel(executed):
    """Client(display=False) in a kernel streams without any live output."""
    assert output_types(executed.cells[11]) == []
