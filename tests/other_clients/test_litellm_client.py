"""litellm's ``completion()`` (the SDK, as a client) against the offline gateway."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.other_clients.conftest import MODEL, WEATHER_PROMPT, get_weather
from tests.other_clients.models import City

litellm = pytest.importorskip("litellm")  # after conftest set LITELLM_LOCAL_MODEL_COST_MAP

# litellm's own TypedDicts make pydantic warn when it builds them (not about anything here).
pytestmark = pytest.mark.filterwarnings("ignore:.*ReadOnly:UserWarning")

WEATHER_TOOL = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Get the current weather in a city.",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
    },
}


def complete(v1: str, key: str, **params: Any) -> Any:
    return litellm.completion(model=f"openai/{MODEL}", api_base=v1, api_key=key, num_retries=0, **params)


def test_chat(v1: str, key: str) -> None:
    """``completion`` answers with usage."""
    response = complete(v1, key, messages=[{"role": "user", "content": "Say hello"}])
    assert response.choices[0].message.content and response.usage.total_tokens > 0


def test_streaming(v1: str, key: str) -> None:
    """``stream=True`` yields several chunks."""
    chunks = list(complete(v1, key, messages=[{"role": "user", "content": "Explain streams"}], stream=True))
    text = "".join(chunk.choices[0].delta.content or "" for chunk in chunks if chunk.choices)
    assert len(chunks) > 1 and text


def test_tool_round_trip(v1: str, key: str) -> None:
    """The model calls get_weather; its result goes back; an answer comes."""
    messages: list[Any] = [{"role": "user", "content": WEATHER_PROMPT}]
    asked = complete(v1, key, messages=messages, tools=[WEATHER_TOOL])
    (call,) = asked.choices[0].message.tool_calls
    result = get_weather(**json.loads(call.function.arguments))
    messages += [asked.choices[0].message.model_dump(), {"role": "tool", "tool_call_id": call.id, "content": result}]
    answer = complete(v1, key, messages=messages, tools=[WEATHER_TOOL])
    assert answer.choices[0].message.content


def test_structured_output(v1: str, key: str) -> None:
    """``response_format=City`` (a json_schema) gives JSON that validates as a City."""
    response = complete(v1, key, messages=[{"role": "user", "content": "Paris"}], response_format=City)
    assert City.model_validate_json(response.choices[0].message.content)
