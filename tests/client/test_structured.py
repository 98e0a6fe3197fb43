"""Structured output: completions.parse and chat.parse validate replies into pydantic models."""

from __future__ import annotations

import asyncio
from typing import Any, Iterator, Optional

import pydantic
import pytest

import gatewaykit as gk
from gatewaykit.client.resources.structured import OutputSchema, strict_schema

from .spying import SpyTransport, async_spy_client, spy_client


class Movie(pydantic.BaseModel):
    title: str
    year: int
    genres: list[str]


class Picky(pydantic.BaseModel):
    """A model whose validator no reply can pass (to exercise failures with any gateway)."""

    answer: str

    @pydantic.field_validator("answer")
    @classmethod
    def never(cls, value: str) -> str:
        raise ValueError("answer must be the secret word")


class Review(pydantic.BaseModel):
    movie: Movie
    stars: int
    note: Optional[str] = None


@pytest.fixture
def spied(emulator: Any, keys: Any) -> Iterator[tuple[gk.Client, SpyTransport]]:
    client, spy = spy_client(emulator, keys.acme, gk.Ledger())
    with client:
        yield client, spy


def ask(text: str) -> list[dict[str, str]]:
    return [{"role": "user", "content": text}]


def test_parse_gives_a_validated_instance(spied: Any) -> None:
    """completions.parse returns a ChatCompletion whose message.parsed is an instance of the model."""
    client, _ = spied
    completion = client.chat.completions.parse(model="chat-mini", messages=ask("Describe a movie"), response_format=Movie)
    assert isinstance(completion, gk.ChatCompletion)
    parsed = completion.choices[0].message.parsed
    assert isinstance(parsed, Movie) and parsed == Movie.model_validate_json(completion.content)


def test_parse_sends_the_models_strict_json_schema(spied: Any) -> None:
    """The request carries json_schema with the model's name, its schema made strict, and strict=True."""
    client, spy = spied
    client.chat.completions.parse(model="chat-mini", messages=ask("Review a movie"), response_format=Review)
    sent = spy.bodies[-1]["response_format"]
    assert sent["type"] == "json_schema" and sent["json_schema"]["name"] == "Review"
    assert sent["json_schema"]["strict"] is True
    schema = sent["json_schema"]["schema"]
    assert schema["required"] == ["movie", "stars", "note"] and schema["additionalProperties"] is False
    assert schema["$defs"]["Movie"]["additionalProperties"] is False


def test_nested_models_parse(spied: Any) -> None:
    """A model with a nested model and an optional field parses into instances."""
    client, _ = spied
    parsed = client.chat.completions.parse(
        model="chat-mini", messages=ask("Review a movie"), response_format=Review
    ).choices[0].message.parsed
    assert isinstance(parsed, Review) and isinstance(parsed.movie, Movie)


def test_parsed_is_not_part_of_the_dumped_message(spied: Any) -> None:
    """message.parsed never leaks into model_dump (so it is never sent back as history)."""
    client, _ = spied
    completion = client.chat.completions.parse(model="chat-mini", messages=ask("A movie"), response_format=Movie)
    assert "parsed" not in completion.choices[0].message.model_dump()


def test_a_reply_that_does_not_validate_raises_with_raw_text_and_errors(spied: Any) -> None:
    """StructuredOutputError carries the raw reply, pydantic's errors and the completion."""
    client, spy = spied
    with pytest.raises(gk.StructuredOutputError, match="does not match Picky") as caught:
        client.chat.completions.parse(model="chat-mini", messages=ask("Say it"), response_format=Picky)
    error = caught.value
    assert isinstance(error, gk.GatewayError) and isinstance(error, ValueError)
    assert error.raw == error.completion.content and error.errors[0]["loc"] == ("answer",)
    assert "secret word" in error.errors[0]["msg"] and error.attempts == 1 and len(spy.bodies) == 1


def test_retries_re_ask_with_the_validation_errors(spied: Any) -> None:
    """retries=2 sends two more requests, each showing the model its reply and what was wrong."""
    client, spy = spied
    with pytest.raises(gk.StructuredOutputError) as caught:
        client.chat.completions.parse(model="chat-mini", messages=ask("Say it"), response_format=Picky, retries=2)
    assert caught.value.attempts == 3 and len(spy.bodies) == 3
    last = spy.bodies[-1]["messages"]
    assert [m["role"] for m in last] == ["user", "assistant", "user", "assistant", "user"]
    assert "secret word" in last[-1]["content"] and "answer" in last[-1]["content"]
    assert last[:3] == spy.bodies[1]["messages"] and spy.bodies[0]["messages"] == last[:1]


def test_a_json_schema_dict_parses_to_data(spied: Any) -> None:
    """A plain JSON Schema dict is sent as given and the reply parses to plain data."""
    client, spy = spied
    schema = {"type": "object", "properties": {"name": {"type": "string"}, "age": {"type": "integer"}},
              "required": ["name", "age"], "additionalProperties": False}  # fmt: skip
    completion = client.chat.completions.parse(model="chat-mini", messages=ask("A person"), response_format=schema)
    parsed = completion.choices[0].message.parsed
    assert isinstance(parsed, dict) and isinstance(parsed["name"], str) and isinstance(parsed["age"], int)
    assert spy.bodies[-1]["response_format"]["json_schema"]["schema"] == schema


@pytest.mark.parametrize(
    ("response_format", "error"),
    [(dict, TypeError), ("Movie", TypeError), (Movie(title="x", year=1, genres=[]), TypeError), ({"foo": 1}, ValueError)],
)
def test_a_response_format_that_is_no_schema_fails_before_sending(spied: Any, response_format: Any, error: type) -> None:
    """A class that is no pydantic model, a string, an instance or a dict that is no schema: nothing is sent."""
    client, spy = spied
    with pytest.raises(error, match="response_format"):
        client.chat.completions.parse(model="chat-mini", messages=ask("x"), response_format=response_format)
    assert spy.bodies == []


def test_bad_retries_and_streaming_fail_before_sending(spied: Any) -> None:
    """retries=-1 is a ValueError and stream=True a TypeError, before anything is sent."""
    client, spy = spied
    with pytest.raises(ValueError, match="retries"):
        client.chat.completions.parse(model="chat-mini", messages=ask("x"), response_format=Movie, retries=-1)
    with pytest.raises(TypeError, match="stream"):
        client.chat.completions.parse(model="chat-mini", messages=ask("x"), response_format=Movie, stream=True)
    assert spy.bodies == []


def test_chat_parse_keeps_the_turn_in_the_history(spied: Any) -> None:
    """chat.parse returns the instance; the prompt and the JSON reply join the history."""
    client, spy = spied
    chat = client.chat.session(model="chat-mini", system="Be brief.")
    movie = chat.parse("Describe a movie", Movie)
    assert isinstance(movie, Movie)
    assert [(m["role"], m.get("tool_calls")) for m in chat.history] == [("system", None), ("user", None), ("assistant", None)]
    assert chat.history[1]["content"] == "Describe a movie"
    assert Movie.model_validate_json(chat.history[-1]["content"]) == movie
    assert spy.bodies[-1]["response_format"]["json_schema"]["name"] == "Movie"
    chat("Thanks")
    assert spy.bodies[-1]["messages"][:3] == chat.history[:3] and "response_format" not in spy.bodies[-1]


def test_chat_parse_failure_leaves_the_history_unchanged(spied: Any) -> None:
    """A failed chat.parse raises StructuredOutputError, commits nothing, and still counts the spend."""
    client, _ = spied
    chat = client.chat.session(model="chat-mini")
    with pytest.raises(gk.StructuredOutputError):
        chat.parse("Say it", Picky, retries=1)
    assert chat.history == [] and chat.requests == 2 and chat.cost > 0


def test_async_parse(emulator: Any, keys: Any) -> None:
    """The async client's completions.parse and session parse are awaited for the same results."""

    async def main() -> None:
        client, spy = async_spy_client(emulator, keys.acme, gk.Ledger())
        async with client:
            completion = await client.chat.completions.parse(
                model="chat-mini", messages=ask("Describe a movie"), response_format=Movie
            )
            assert isinstance(completion.choices[0].message.parsed, Movie)
            chat = client.chat.session(model="chat-mini")
            assert isinstance(await chat.parse("Describe a movie", Movie), Movie)
            assert len(chat.history) == 2
            with pytest.raises(gk.StructuredOutputError):
                await client.chat.completions.parse(model="chat-mini", messages=ask("x"), response_format=Picky, retries=1)
            assert len(spy.bodies) == 4

    asyncio.run(main())


def test_strict_schema_closes_objects_and_requires_every_property() -> None:
    """strict_schema: additionalProperties false and all properties required, recursively; null defaults dropped."""
    schema = strict_schema(Review.model_json_schema())
    assert schema["required"] == ["movie", "stars", "note"]
    assert "default" not in schema["properties"]["note"]
    assert schema["$defs"]["Movie"]["required"] == ["title", "year", "genres"]
    assert Review.model_json_schema()["required"] == ["movie", "stars"]  # the model's own schema is untouched


def test_output_schema_accepts_a_full_response_format_dict() -> None:
    """A ready {"type": "json_schema", ...} dict keeps its name and strict flag."""
    given = {"type": "json_schema", "json_schema": {"name": "person", "schema": {"type": "object"}, "strict": False}}
    assert OutputSchema(given).response_format() == given


def test_chat_parse_refuses_a_non_schema_before_sending(spied: Any) -> None:
    """chat.parse with something that is no model or schema is a TypeError; nothing is sent or kept."""
    client, spy = spied
    chat = client.chat.session(model="chat-mini")
    with pytest.raises(TypeError, match="response_format"):
        chat.parse("Describe a movie", "Movie")
    assert spy.bodies == [] and chat.history == []
