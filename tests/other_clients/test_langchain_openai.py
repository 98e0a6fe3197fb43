"""langchain-openai's ``ChatOpenAI`` against the offline gateway."""

from __future__ import annotations

import json
from typing import Iterator

import httpx
import pytest
from langchain_core.messages import HumanMessage, ToolMessage
from langchain_core.output_parsers import PydanticOutputParser
from langchain_openai import ChatOpenAI

from tests.other_clients.conftest import MODEL, WEATHER_PROMPT, get_weather
from tests.other_clients.models import City


@pytest.fixture
def llm(v1: str, key: str) -> Iterator[ChatOpenAI]:
    with httpx.Client(timeout=60) as http_client:  # its own, closed after (LangChain shares a default one)
        yield ChatOpenAI(model=MODEL, base_url=v1, api_key=key, max_retries=0, http_client=http_client)  # type: ignore[arg-type]


def test_chat(llm: ChatOpenAI) -> None:
    """``invoke`` answers text with token usage."""
    answer = llm.invoke("Say hello")
    assert answer.content and answer.usage_metadata and answer.usage_metadata["total_tokens"] > 0


def test_streaming(llm: ChatOpenAI) -> None:
    """``stream`` yields several chunks that add up to the answer."""
    pieces = [chunk.content for chunk in llm.stream("Explain streams")]
    assert len(pieces) > 1 and "".join(str(piece) for piece in pieces)


def test_tool_round_trip(llm: ChatOpenAI) -> None:
    """``bind_tools``: the model calls get_weather, its result goes back, an answer comes."""
    with_tools = llm.bind_tools([get_weather])
    question = HumanMessage(WEATHER_PROMPT)
    asked = with_tools.invoke([question])
    (call,) = asked.tool_calls
    assert call["name"] == "get_weather" and "city" in call["args"]
    result = ToolMessage(get_weather(**call["args"]), tool_call_id=call["id"])
    answer = with_tools.invoke([question, asked, result])
    assert answer.content and not answer.tool_calls


@pytest.mark.parametrize("method", ["json_schema", "function_calling"])
def test_structured_output(llm: ChatOpenAI, method: str) -> None:
    """``with_structured_output(City)`` by json_schema and by function calling gives a City."""
    assert isinstance(llm.with_structured_output(City, method=method).invoke("Paris"), City)


def test_structured_output_json_mode(llm: ChatOpenAI) -> None:
    """``json_mode`` with the parser's format instructions (the schema only in the prompt) gives a City."""
    instructions = PydanticOutputParser(pydantic_object=City).get_format_instructions()
    value = llm.with_structured_output(City, method="json_mode").invoke(f"Paris\n\n{instructions}")
    assert isinstance(value, City) or isinstance(City.model_validate(json.loads(json.dumps(value))), City)
