"""Simon Willison's ``llm`` (its OpenAI-compatible ``Chat`` model) against the offline gateway."""

from __future__ import annotations

import json
from typing import Any, Iterator

import pytest
from llm.default_plugins.openai_models import Chat

from tests.other_clients.conftest import MODEL, WEATHER_PROMPT
from tests.other_clients.models import City


class ClosingChat(Chat):
    """llm's Chat makes an openai client per prompt and never closes it: these are closed after the test."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.made: list[Any] = []

    def get_client(self, key: Any, *, async_: bool = False) -> Any:
        client = super().get_client(key, async_=async_)
        self.made.append(client)
        return client


@pytest.fixture
def model(v1: str, key: str, tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> Iterator[Chat]:
    monkeypatch.setenv("LLM_USER_PATH", str(tmp_path))  # its keys and logs: never the user's
    chat = ClosingChat(MODEL, key=key, model_name=MODEL, api_base=v1, supports_tools=True, supports_schema=True)
    yield chat
    for client in chat.made:
        client.close()


def test_chat(model: Chat) -> None:
    """``prompt(...).text()`` answers, with token usage."""
    response = model.prompt("Say hello", stream=False)
    assert response.text() and response.usage().input > 0  # type: ignore[operator]


def test_streaming(model: Chat) -> None:
    """Iterating a streamed response yields several pieces."""
    pieces = list(model.prompt("Explain streams", stream=True))
    assert len(pieces) > 1 and "".join(pieces)


def test_tool_round_trip(model: Chat) -> None:
    """``chain`` runs the Python tool on the model's call and answers after its result."""
    calls: list[str] = []

    def get_weather(city: str) -> str:
        """Get the current weather in a city."""
        calls.append(city)
        return f"Sunny and 21 C in {city}"

    text = model.chain(WEATHER_PROMPT, tools=[get_weather], stream=False).text()
    assert calls and text


def test_structured_output(model: Chat) -> None:
    """``schema=City`` gives JSON that validates as a City."""
    text = model.prompt("Paris", schema=City, stream=False).text()
    assert City.model_validate(json.loads(text))
