"""gk.playground() in a real IPython kernel: the widget displays, Run sends through the client and renders.

The Run button is clicked from code (``Button.click()`` runs the same handlers
as a click in the browser); the browser suite clicks the real button.
"""

from __future__ import annotations

import json

import pytest
from kernel_runner import run_notebook

pytestmark = pytest.mark.slow

LYRICS = "[Verse]\\nsmall lights on the water\\n[Chorus]\\nhome again"


def printed(cell) -> dict:
    """The JSON the cell printed as its last line."""
    text = "".join(out.get("text", "") for out in cell.outputs if out["output_type"] == "stream")
    return json.loads(text.strip().splitlines()[-1])


def mine(name: str = "pg") -> str:
    return f"[r for r in client.ledger.rows if {name}.tag in r['tags']]"


@pytest.fixture(scope="module")
def executed(emulator, keys):
    cells = [
        "import json, sys, gatewaykit as gk\n"
        f"client = gk.Client(base_url={emulator.base_url!r}, api_key={keys.acme!r})\n"
        "pg = gk.playground(client)\npg",
        "pg.kind_picker.value = 'image'; pg.model_picker.value = 'image-pixels'\n"
        "pg.values['prompt'].value = 'a red fox in snow'; pg.values['width'].value = 512\n"
        "pg.run_button.click(); pg.run_button.click()  # the second click lands while the first run is in flight\n"
        "assert pg.wait(60)\n"
        f"print(json.dumps({{'result': pg.result.value, 'cost': pg.cost.value, 'rows': len({mine()}),"
        " 'disabled': pg.run_button.disabled, 'fields': list(pg.values)}))",
        "pg.kind_picker.value = 'music'\npg.values['prompt'].value = 'folk, guitar'\n"
        "before = len(client.ledger.rows); pg.run_button.click(); assert pg.wait(5)\n"
        "print(json.dumps({'message': pg.message.value, 'sent': len(client.ledger.rows) - before,"
        " 'disabled': pg.run_button.disabled, 'fields': list(pg.values)}))",
        f"pg.values['lyrics_prompt'].value = '{LYRICS}'\n"
        "message = pg.message.value\npg.run_button.click(); assert pg.wait(60)\n"
        "print(json.dumps({'message': message, 'result': pg.result.value}))",
        "pg.kind_picker.value = 'video'; pg.model_picker.value = 'video-tiers'\n"
        "pg.values['prompt'].value = 'waves at dusk'; pg.values['resolution'].value = '480p'\n"
        "quote_480 = pg.quote.value; pg.values['resolution'].value = '1080p'; quote_1080 = pg.quote.value\n"
        "pg.values['resolution'].value = '480p'\n"
        "pg.run_button.click(); assert pg.wait(60)\n"
        "print(json.dumps({'result': pg.result.value, 'cost': pg.cost.value, 'quotes': [quote_480, quote_1080]}))",
        "pg.kind_picker.value = 'chat'; pg.values['prompt'].value = 'Explain SSE in two sentences'\n"
        "pg.run_button.click(); assert pg.wait(60)\n"
        f"print(json.dumps({{'result': pg.result.value, 'rows': [r['kind'] for r in {mine()}]}}))",
        "sys.modules['ipywidgets'] = None  # as if ipywidgets were not installed\n"
        "gk.playground(client)",
    ]
    return run_notebook(cells)


def test_the_playground_displays_as_a_widget_with_a_text_fallback(executed):
    """The cell's output is a widget view, with a plain-text line for front ends without widgets."""
    (output,) = executed.cells[0].outputs
    assert "application/vnd.jupyter.widget-view+json" in output["data"]
    assert "ipywidgets form" in output["data"]["text/plain"]


def test_image_run_shows_the_image_at_the_chosen_size_and_counts_once(executed):
    """Run with width 512 renders the image inline (512x1024); the double click sent one request."""
    seen = printed(executed.cells[1])
    assert '<img src="data:image/png;base64,' in seen["result"] and "512x1024" in seen["result"]
    assert seen["rows"] == 1 and not seen["disabled"]
    assert "Cost of this playground: $0.00" in seen["cost"] and "(1 run)" in seen["cost"]
    assert seen["fields"][:3] == ["prompt", "width", "height"]


def test_invalid_form_shows_the_client_check_inline_and_sends_nothing(executed):
    """A song without lyrics shows the client's 'requires lyrics_prompt' message and sends no request."""
    seen = printed(executed.cells[2])
    assert "requires lyrics_prompt" in seen["message"] and "gk-error" in seen["message"]
    assert "Traceback" not in seen["message"]
    assert seen["sent"] == 0 and not seen["disabled"]
    assert seen["fields"][:2] == ["prompt", "lyrics_prompt"]


def test_fixing_the_form_clears_the_message(executed):
    """Typing valid lyrics re-runs the checks and clears the message."""
    assert printed(executed.cells[3])["message"] == ""


def test_music_run_ends_as_an_audio_player(executed):
    """A song run shows the job's progress card and ends with the embedded audio player."""
    result = printed(executed.cells[3])["result"]
    assert 'data-status="completed"' in result and '<audio class="gk-audio" controls' in result


def test_video_run_ends_as_a_player_and_counts_the_job(executed):
    """A video run ends as the embedded player; the cost line counts the jobs at the catalog's prices, marked est."""
    seen = printed(executed.cells[4])
    assert 'data-status="completed"' in seen["result"] and '<video class="gk-video" controls' in seen["result"]
    assert "(3 runs)" in seen["cost"] and "≈ $0.26 est." in seen["cost"] and "does not report" not in seen["cost"]


def test_the_quote_beside_run_follows_the_form(executed):
    """The quote beside Run is the catalog price of the form's request and changes with the resolution."""
    quote_480, quote_1080 = printed(executed.cells[4])["quotes"]
    assert "≈ $0.20 est." in quote_480 and "≈ $1.00 est." in quote_1080 and "gk-quote" in quote_480


def test_chat_run_ends_as_the_static_answer(executed):
    """A chat run streams into the result area and ends as the static answer, tagged in the ledger."""
    seen = printed(executed.cells[5])
    assert 'class="gk-chat' in seen["result"] and "streaming…" not in seen["result"]
    assert seen["rows"] == ["image.generate", "music", "video", "chat.stream"]


def test_without_ipywidgets_the_playground_says_how_to_get_them(executed):
    """With ipywidgets missing, the output is a message naming the package to install."""
    (output,) = executed.cells[6].outputs
    assert "pip install" in output["data"]["text/plain"] and "ipywidgets" in output["data"]["text/plain"]
    assert "gk-playground-unavailable" in output["data"]["text/html"]


def test_outside_a_kernel_the_playground_says_where_to_run_it():
    """In a plain Python process gk.playground() returns a message instead of widgets."""
    import gatewaykit as gk

    shown = gk.playground()
    assert "Jupyter notebook" in repr(shown) and "voila" in repr(shown)


def test_an_async_client_is_refused_with_what_to_pass_instead(emulator, keys):
    """gk.playground(AsyncClient) raises a TypeError naming gk.Client (checked before anything else)."""
    import gatewaykit as gk

    client = gk.AsyncClient(base_url=emulator.base_url, api_key=keys.acme)
    with pytest.raises(TypeError, match=r"gk\.Client"):
        gk.playground(client)
