"""In a real kernel: a misspelled keyword warns once at the user's line; plot() shows one figure, no echo."""

from __future__ import annotations

import pytest
from kernel_runner import run_notebook

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def executed(emulator, keys):
    cells = [
        "import gatewaykit as gk\n"
        "ledger = gk.Ledger(path=None)\n"
        f"client = gk.Client(base_url={emulator.base_url!r}, api_key={keys.acme!r}, ledger=ledger)",
        "size = 256\nresult = client.images.generate(model='image-pixels', prompt='a cat', widht=size)\nlen(result.data)",
        "client.chat.ask('hello', model='chat-mini')\nledger.plot()",
        "answer = client.chat.ask('hello', model='chat-mini', temprature=0.2)",
    ]
    return run_notebook(cells)


def _stderr(cell) -> str:
    return "".join(out.get("text", "") for out in cell.outputs if out.get("name") == "stderr")


def _cards(cell) -> list[str]:
    return [out["data"]["text/html"] for out in cell.outputs
            if "text/html" in out.get("data", {}) and "gk-warning" in out["data"]["text/html"]]


def test_unknown_keyword_shows_one_card_at_the_users_line(executed):
    """The warning is one card naming width= and quoting the user's line; nothing on stderr, no temp path."""
    (card,) = _cards(executed.cells[1])
    assert "UnknownParameterWarning" in card and "did you mean width=?" in card
    assert "widht=size" in card and ".py" not in card and "ipykernel" not in card
    assert "UnknownParameterWarning" not in _stderr(executed.cells[1])


def test_the_card_names_the_call_the_user_made_and_says_it_was_sent(executed):
    """chat.ask(temprature=...) is named as client.chat.ask(), not chat.completions.create(), and says it was sent."""
    (card,) = _cards(executed.cells[3])
    assert "client.chat.ask() got an unknown keyword temprature=" in card
    assert "completions.create" not in card and "sent anyway" in card


def test_the_call_goes_on_after_the_warning(executed):
    """The image still arrives (the gateway ignores the unknown field)."""
    results = [out for out in executed.cells[1].outputs if out["output_type"] == "execute_result"]
    assert results and results[0]["data"]["text/plain"] == "1"


def test_plot_shows_one_figure_and_no_axes_echo(executed):
    """ledger.plot() as a last line leaves one PNG and no <Axes ...> or <Figure ...> text."""
    outputs = [out for out in executed.cells[2].outputs if "data" in out]
    pngs = [out for out in outputs if "image/png" in out["data"]]
    assert len(pngs) == 1
    texts = [out["data"].get("text/plain", "") for out in outputs if "image/png" not in out["data"]]
    assert not any("<Axes" in text or "<Figure" in text for text in texts)
