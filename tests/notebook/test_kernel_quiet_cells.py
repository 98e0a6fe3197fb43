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
    ]
    return run_notebook(cells)


def _stderr(cell) -> str:
    return "".join(out.get("text", "") for out in cell.outputs if out.get("name") == "stderr")


def test_unknown_keyword_warns_once_at_the_users_line(executed):
    """The cell's stderr has the warning once, naming width= and the cell's own line 2."""
    text = _stderr(executed.cells[1])
    assert text.count("UnknownParameterWarning") == 1 and "did you mean width=?" in text
    assert ":2: UnknownParameterWarning" in text and "widht=size" in text  # the user's line, quoted
    assert "gatewaykit" not in text.split("UnknownParameterWarning")[0]  # not a library file


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
