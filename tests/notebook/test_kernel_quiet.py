"""Quiet cells in a real kernel (nbclient): one offline notice, short error tracebacks, a streamed answer saved once."""

import pytest
from kernel_runner import html_outputs, run_notebook

pytestmark = pytest.mark.slow

NO_KEY = {"SVC_API_KEY": "", "SVC_BASE_URL": "", "GATEWAYKIT_OFFLINE_TIME_SCALE": "0.3"}


def banners(cell):
    return [html for html in html_outputs(cell) if "gk-offline-banner" in html]


def stderr_text(cell):
    return "".join(out.get("text", "") for out in cell.outputs if out.get("name") == "stderr")


def shown(cell):
    """Outputs a saved notebook shows (display updates can leave emptied parts behind)."""
    return [out for out in cell.outputs if out.get("output_type") != "display_data" or out.get("data")]


@pytest.fixture(scope="module")
def quiet():
    """No key: two clients, an AsyncClient and %%chat on the offline gateway, then errors and a streamed answer."""
    cells = [
        "import gatewaykit as gk\nclient = gk.Client()",
        "second = gk.Client()",
        "aclient = gk.AsyncClient()",
        "%load_ext gatewaykit",
        "%%chat --model chat-mini\nWhat is a kernel?",
        "client.images.generate(model='image-pixels', prompt='a fox', width=999, height=256)",
        "%tb",
        "answer = client.chat.ask('Explain queues with a table and python code', model='chat-mini')\nanswer",
    ]
    return run_notebook(cells, env=NO_KEY, allow_errors=True, timeout=180)


def test_the_offline_banner_shows_once_per_process(quiet):
    """Two clients, an AsyncClient and %%chat on the offline gateway show one banner in all."""
    counts = [len(banners(cell)) for cell in quiet.cells]
    assert counts[0] == 1 and sum(counts) == 1


def test_no_offline_warning_text_in_a_kernel(quiet):
    """No OfflineGatewayWarning appears in any cell; the first cell shows the banner and nothing else."""
    assert all("OfflineGatewayWarning" not in stderr_text(cell) for cell in quiet.cells)
    assert [out["output_type"] for out in quiet.cells[0].outputs] == ["display_data"]


def test_a_gateway_error_renders_as_a_short_traceback(quiet):
    """A rejected parameter shows the error, its message with allowed values, the parameter and the line: no frames."""
    (error,) = [out for out in quiet.cells[5].outputs if out["output_type"] == "error"]
    text = "\n".join(error["traceback"])
    assert error["ename"] == "BadRequestError"
    assert "(got 999)" in text and "from 256 to " in text and "parameter: width" in text
    assert "client.images.generate(" in text
    assert "site-packages" not in text and "gatewaykit/client" not in text
    assert len(error["traceback"]) <= 6


def test_a_headless_run_leaves_out_the_tb_hint(quiet):
    """Saved by a headless run (nbconvert, build.py), the error does not end with '%tb', meaningless in a static page."""
    (error,) = [out for out in quiet.cells[5].outputs if out["output_type"] == "error"]
    assert "%tb" not in "\n".join(error["traceback"])


def test_tb_after_a_short_error_shows_the_full_traceback(quiet):
    """%tb in the next cell shows the library frames the short view left out."""
    text = "".join("\n".join(out.get("traceback", [])) + out.get("text", "") for out in quiet.cells[6].outputs)
    assert "Traceback" in text and "gatewaykit" in text and "validation.py" in text


def test_a_streamed_answer_is_saved_exactly_once(quiet):
    """After a streamed answer, the saved cell shows one static answer (the streaming parts were emptied)."""
    cell = quiet.cells[7]
    outputs = shown(cell)
    assert len(cell.outputs) > 1  # it did stream in parts (time scale 0.3)
    assert len(outputs) == 1
    html = outputs[0]["data"]["text/html"]
    assert "gk-chat" in html and "gk-live" not in html and "streaming…" not in html
    assert "synthetic</strong> (offline gateway)" in html


def test_a_streamed_answer_has_a_highlighted_code_block(quiet):
    """The saved answer's code block has a background and coloured tokens."""
    html = shown(quiet.cells[7])[0]["data"]["text/html"]
    assert '<pre style="background:' in html and '<span style="color:#' in html
