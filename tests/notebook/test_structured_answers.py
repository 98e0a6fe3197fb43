"""A structured-output answer from the offline gateway is tagged synthetic like any other answer.

Every way of asking for structured output (``completions.parse`` with a pydantic
model, ``response_format`` json_schema or json_object, buffered or streamed
through the live view) ends in a ``ChatCompletion`` whose footer, in HTML and in
text/plain, says ``synthetic (offline gateway)``, as a plain chat's does.
"""

from __future__ import annotations

import re
from typing import Any, Iterator

import pydantic
import pytest

import gatewaykit as gk
from gatewaykit.notebook.cell_output.sinks import CapturingSink
from gatewaykit.notebook.chat_views.live import render_stream
from gatewaykit.notebook.html_views.rendering import mimebundle

HTML_TAG = "<strong>synthetic</strong> (offline gateway)"
TEXT_TAG = "synthetic (offline gateway)"
SCHEMA = {"type": "json_schema", "json_schema": {"name": "city", "strict": True, "schema": {
    "type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"], "additionalProperties": False}}}


class City(pydantic.BaseModel):
    name: str
    population: int


def footer(html: str) -> str:
    return re.findall(r'<div class="gk-footer"[^>]*>(.*?)</div>', html)[-1]


@pytest.fixture
def client(emulator: Any, keys: Any) -> Iterator[gk.Client]:
    with gk.Client(api_key=keys.acme, base_url=emulator.base_url, ledger=gk.Ledger(), display=False) as made:
        yield made


def assert_tagged(bundle: dict[str, Any]) -> None:
    assert HTML_TAG in footer(bundle["text/html"])
    assert TEXT_TAG in bundle["text/plain"].splitlines()[-1]


def test_a_plain_answer_is_tagged(client: gk.Client) -> None:
    """The reference: a plain chat's footer says synthetic (offline gateway)."""
    assert_tagged(mimebundle(client.chat.completions.create(model="chat-mini", messages=[{"role": "user", "content": "hi"}])))


def test_a_parsed_answer_is_tagged(client: gk.Client) -> None:
    """completions.parse(response_format=a pydantic model): parsed, and tagged like a plain answer."""
    answer = client.chat.completions.parse(model="chat-mini", messages=[{"role": "user", "content": "A city"}],
                                           response_format=City)  # fmt: skip
    assert isinstance(answer.choices[0].message.parsed, City)
    assert_tagged(mimebundle(answer))


@pytest.mark.parametrize("response_format", [SCHEMA, {"type": "json_object"}], ids=["json_schema", "json_object"])
def test_a_json_answer_is_tagged(client: gk.Client, response_format: dict[str, Any]) -> None:
    """create(response_format=json_schema | json_object), buffered: tagged."""
    answer = client.chat.completions.create(model="chat-mini", messages=[{"role": "user", "content": "A city as JSON"}],
                                            response_format=response_format)  # fmt: skip
    assert answer.content is not None and answer.content.lstrip().startswith("{")
    assert_tagged(mimebundle(answer))


@pytest.mark.parametrize("response_format", [SCHEMA, {"type": "json_object"}], ids=["json_schema", "json_object"])
def test_a_streamed_json_answer_is_tagged_live_and_at_the_end(client: gk.Client, response_format: dict[str, Any]) -> None:
    """Streamed through the live view (chat.ask in a notebook): the status line and the final footer are tagged."""
    sink = CapturingSink()
    stream = client.chat.completions.create(model="chat-mini", messages=[{"role": "user", "content": "A city as JSON"}],
                                            response_format=response_format, stream=True)  # fmt: skip
    render_stream(stream, sink=sink, interval=0)  # every chunk an update: the offline gateway streams at once
    live = [bundle["text/html"] for _kind, bundle in sink.messages[1:-1] if 'class="gk-footer"' in bundle.get("text/html", "")]
    assert live and all(TEXT_TAG in re.sub(r"<[^>]+>", "", footer(html)) for html in live)
    assert_tagged(sink.saved()[0])
