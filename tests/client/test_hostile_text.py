"""Text from a gateway meets a terminal, a key or a password (issue 28, items 6, 10, 11, 15).

The hostile answers are a foreign server's (``httpx.MockTransport`` through the foreign-shapes
helpers): the offline gateway never sends escape sequences or echoes keys.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest

import gatewaykit as gk
from gatewaykit.errors import error_from_response, excerpt

from tests.client.conftest import RecordingLedger
from tests.client.foreign_shapes.foreign_server import Answer, foreign_client

CHAT = "POST /v1/chat/completions"
MESSAGES = [{"role": "user", "content": "hi"}]
CLIPBOARD = "\x1b]52;c;ZWNobyBwd25lZA==\x07"  # OSC 52: writes the terminal's clipboard
CLEAR = "\x1b[2J\x1b[H"  # CSI: clears the screen
HIDDEN_LINK = "\x1b]8;;https://evil.example/\x1b\\docs\x1b]8;;\x1b\\"  # OSC 8: a link under innocent text


def answer_body(content: str, model: str = "mock-chat") -> dict[str, Any]:
    return {
        "id": "c1", "object": "chat.completion", "created": 1, "model": model,
        "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": content}}],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
    }  # fmt: skip


def assert_terminal_safe(text: str) -> None:
    assert "\x1b" not in text and "\x07" not in text and "\x9b" not in text, repr(text)
    assert "52;c;" not in text and "evil.example" not in text and "[2J" not in text, repr(text)


# -- item 10: escape sequences ---------------------------------------------------------------


def test_error_str_has_no_escape_sequences() -> None:
    """``str(error)`` of a server message and code carrying OSC 52, CSI and OSC 8 is plain text."""
    body = {"error": {"message": f"bad{CLIPBOARD} request {HIDDEN_LINK}{CLEAR}", "code": f"oops{CLEAR}", "param": f"x{CLIPBOARD}"}}
    error = error_from_response(400, body)
    assert_terminal_safe(str(error))
    assert_terminal_safe(error.message)
    assert "bad request docs" in str(error)
    shown = "\n".join(error._render_traceback_())
    for colour in ("\x1b[31m", "\x1b[1m", "\x1b[2m", "\x1b[0m"):  # the short traceback's own colours aside
        shown = shown.replace(colour, "")
    assert_terminal_safe(shown)
    assert error.code == "oops" and error.param == "x"


def test_print_answer_footer_strips_the_model_id() -> None:
    """``print(answer)``: the footer's model id, from the server, loses its escape sequences."""
    with foreign_client({CHAT: Answer(answer_body("hello", model=f"gpt{HIDDEN_LINK}{CLIPBOARD}"))}) as client:
        answer = client.chat.completions.create(model="mock-chat", messages=MESSAGES)
    text = str(answer)
    assert_terminal_safe(text)
    assert text.startswith("hello\n— gptdocs")


def test_print_comparison_strips_model_answers() -> None:
    """``print(comparison)``: each model's answer loses clipboard writes, screen clears and hidden links."""
    hostile = f"{CLEAR}Sure{CLIPBOARD}, see {HIDDEN_LINK}"
    with foreign_client({CHAT: Answer(answer_body(hostile))}, gk.Ledger()) as client:  # type: ignore[arg-type]
        comparison = client.compare("hi", models=["mock-chat", "mock-free"])
    text = str(comparison)
    assert_terminal_safe(text)
    assert "Sure, see docs" in text


# -- item 6: error excerpts cut before any pattern runs ---------------------------------------


def test_an_excerpt_reads_only_the_start_of_a_page() -> None:
    """A title beyond the first EXCERPT_SCAN characters is not searched for: the page is cut first."""
    from gatewaykit.errors import EXCERPT_SCAN

    page = "<html><body><p>Bad gateway</p>" + "<a " * EXCERPT_SCAN + "<title>Far away</title></body></html>"
    assert "Far away" not in excerpt(page) and "Bad gateway" in excerpt(page)


def test_a_hostile_page_still_reads_its_title() -> None:
    """A page of unclosed ``<script``/``<style``/``<`` openings gives its title and first text."""
    page = "<html><head><title>502 Bad Gateway</title></head><body><h1>Down</h1>" + "<script <style <a " * 20_000
    error = error_from_response(502, page)
    assert isinstance(error, gk.ServerError) and "502 Bad Gateway" in error.message and "Down" in error.message


# -- item 11: the client's own key, whatever its shape -----------------------------------------

ODD_KEY = "gwk_live.4f9a2c7e1b8d4a6f9c3e"  # no sk- prefix: the shape pattern alone never matched it


def odd_key_client(ledger: Any) -> gk.Client:
    body = {"error": {"message": f"Incorrect API key provided: {ODD_KEY}. Check it.", "code": "invalid_api_key"}}
    handler = lambda request: httpx.Response(401, json=body)  # noqa: E731
    return gk.Client(
        api_key=ODD_KEY, base_url="http://keys.test", http_transport=httpx.MockTransport(handler),
        max_retries=0, display=False, validate=False, ledger=ledger,
    )  # fmt: skip


def test_an_echoed_key_of_any_shape_is_scrubbed_from_the_error_and_rows() -> None:
    """The client's own key echoed by the server is ``***`` in the exception and the ledger's row."""
    ledger = RecordingLedger()
    with odd_key_client(ledger) as client:
        with pytest.raises(gk.AuthenticationError) as caught:
            client.chat.completions.create(model="m", messages=MESSAGES)
    error = caught.value
    assert ODD_KEY not in error.message and ODD_KEY not in str(error) and ODD_KEY not in repr(error)
    assert "Incorrect API key provided: ***" in error.message
    (row,) = ledger.records
    assert ODD_KEY not in json.dumps(row.__dict__ if hasattr(row, "__dict__") else row, default=str)


def test_an_echoed_key_never_reaches_the_ledger_file(tmp_path: Path) -> None:
    """A ledger file (JSON Lines) written after such an error holds no trace of the key."""
    path = tmp_path / "ledger.jsonl"
    ledger = gk.Ledger(path=path)
    with odd_key_client(ledger) as client:
        with pytest.raises(gk.AuthenticationError):
            client.chat.completions.create(model="m", messages=MESSAGES)
    text = path.read_text()
    assert "Incorrect API key provided" in text and ODD_KEY not in text


# -- item 15: a password in the base URL -------------------------------------------------------

PASSWORD = "hunter2-s3cret"
URL = f"https://alice:{PASSWORD}@gateway.example"


def test_a_base_url_password_is_masked_in_repr_errors_and_rows() -> None:
    """``repr(client)``, a connection error naming the URL and the ledger's row show ``alice:***@``."""

    def refuse(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError(f"could not reach {URL}/v1/chat/completions")

    ledger = RecordingLedger()
    with gk.Client(
        api_key="sk-url-test-0123456789", base_url=URL, http_transport=httpx.MockTransport(refuse),
        max_retries=0, display=False, validate=False, ledger=ledger,
    ) as client:  # fmt: skip
        assert PASSWORD not in repr(client) and "alice:***@gateway.example" in repr(client)
        with pytest.raises(gk.APIConnectionError) as caught:
            client.chat.completions.create(model="m", messages=MESSAGES)
    assert PASSWORD not in caught.value.message and "alice:***@gateway.example" in caught.value.message
    (row,) = ledger.records
    assert row.base_url == "https://alice:***@gateway.example"
