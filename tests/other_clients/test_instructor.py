"""instructor (on openai-python) against the offline gateway: its tool and JSON modes."""

from __future__ import annotations

from typing import Iterator

import instructor
import openai
import pytest

from tests.other_clients.conftest import MODEL
from tests.other_clients.models import City

MESSAGES = [{"role": "user", "content": "Paris"}]


@pytest.fixture
def sdk(v1: str, key: str) -> Iterator[openai.OpenAI]:
    with openai.OpenAI(base_url=v1, api_key=key, max_retries=0) as client:
        yield client


@pytest.mark.parametrize("mode", [instructor.Mode.TOOLS, instructor.Mode.JSON, instructor.Mode.MD_JSON, instructor.Mode.JSON_SCHEMA])
def test_structured_output(sdk: openai.OpenAI, mode: instructor.Mode) -> None:
    """``response_model=City`` gives a City in the tool, JSON, MD_JSON and JSON-schema modes."""
    client = instructor.from_openai(sdk, mode=mode)
    city = client.chat.completions.create(model=MODEL, response_model=City, messages=MESSAGES, max_retries=0)
    assert isinstance(city, City)


def test_chat(sdk: openai.OpenAI) -> None:
    """``response_model=None`` passes a plain chat through."""
    client = instructor.from_openai(sdk)
    answer = client.chat.completions.create(model=MODEL, response_model=None, messages=[{"role": "user", "content": "hi"}])
    assert answer.choices[0].message.content


def test_streaming_partial(sdk: openai.OpenAI) -> None:
    """``create_partial`` streams growing partial Cities, the last one whole."""
    client = instructor.from_openai(sdk, mode=instructor.Mode.TOOLS)
    partials = list(client.chat.completions.create_partial(model=MODEL, response_model=City, messages=MESSAGES))
    assert len(partials) > 1 and partials[-1].name and partials[-1].population is not None


def test_iterable_tool_round_trip(sdk: openai.OpenAI) -> None:
    """``create_iterable`` (a forced tool whose list is optional) gives Cities."""
    client = instructor.from_openai(sdk, mode=instructor.Mode.TOOLS)
    cities = list(client.chat.completions.create_iterable(model=MODEL, response_model=City, messages=MESSAGES, max_retries=0))
    assert cities and all(isinstance(city, City) for city in cities)
