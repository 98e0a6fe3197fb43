"""pydantic-ai (``pydantic-ai-slim[openai]``) against the offline gateway."""

from __future__ import annotations

import asyncio
from typing import Any, Awaitable, Callable

from openai import AsyncOpenAI
from pydantic_ai import Agent, PromptedOutput
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.providers.openai import OpenAIProvider

from tests.other_clients.conftest import MODEL, WEATHER_PROMPT, get_weather
from tests.other_clients.models import City


def run(v1: str, key: str, work: Callable[[OpenAIChatModel], Awaitable[Any]]) -> Any:
    """``work(model)`` on one event loop, the HTTP client closed after it."""

    async def main() -> Any:
        async with AsyncOpenAI(base_url=v1, api_key=key, max_retries=0) as openai_client:
            return await work(OpenAIChatModel(MODEL, provider=OpenAIProvider(openai_client=openai_client)))

    return asyncio.run(main())


def test_chat(v1: str, key: str) -> None:
    """``agent.run`` answers text."""
    result = run(v1, key, lambda model: Agent(model).run("Say hello"))
    assert isinstance(result.output, str) and result.output


def test_streaming(v1: str, key: str) -> None:
    """``run_stream`` yields text pieces that add up to the answer."""

    async def work(model: OpenAIChatModel) -> list[str]:
        async with Agent(model).run_stream("Explain streams") as streamed:
            return [piece async for piece in streamed.stream_text(delta=True, debounce_by=None)]

    pieces = run(v1, key, work)
    assert len(pieces) > 1 and "".join(pieces)


def test_tool_round_trip(v1: str, key: str) -> None:
    """The agent runs a Python tool on the model's call and answers after its result."""
    calls: list[str] = []

    def weather(city: str) -> str:
        calls.append(city)
        return get_weather(city)

    def work(model: OpenAIChatModel) -> Awaitable[Any]:
        agent = Agent(model)
        agent.tool_plain(name="get_weather", description="Get the current weather in a city.")(weather)
        return agent.run(WEATHER_PROMPT)

    result = run(v1, key, work)
    assert calls and isinstance(result.output, str) and result.output


def test_structured_output_tool(v1: str, key: str) -> None:
    """``output_type=City`` (pydantic-ai's default: an output tool) gives a City."""
    result = run(v1, key, lambda model: Agent(model, output_type=City).run("Paris"))
    assert isinstance(result.output, City)


def test_structured_output_prompted(v1: str, key: str) -> None:
    """``PromptedOutput(City)`` (the schema in the prompt, json_object) gives a City."""
    result = run(v1, key, lambda model: Agent(model, output_type=PromptedOutput(City)).run("Paris"))
    assert isinstance(result.output, City)
