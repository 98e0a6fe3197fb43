"""Structured output asked for in the prompt (json_object + a schema in a message) and forced tool calls."""

from __future__ import annotations

import json
import re
from typing import Any

import jsonschema
import pytest

from gatewaykit.emulator.chat.prompt_schema import schema_in_messages

CITY = {
    "title": "City", "type": "object",
    "properties": {
        "name": {"type": "string"}, "population": {"type": "integer", "minimum": 0},
        "country": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": None},
        "tags": {"type": "array", "items": {"type": "string"}},
    },
    "required": ["name", "population"],
}
# LangChain's PydanticOutputParser format instructions: an example schema first, the real one last.
LANGCHAIN_INSTRUCTIONS = (
    "The output should be formatted as a JSON instance that conforms to the JSON schema below.\n\n"
    'As an example, for the schema {"properties": {"foo": {"title": "Foo", "description": "a list of strings", '
    '"type": "array", "items": {"type": "string"}}}, "required": ["foo"]}\nthe object {"foo": ["bar", "baz"]} is a '
    'well-formatted instance of the schema. The object {"properties": {"foo": ["bar", "baz"]}} is not well-formatted.'
    "\n\nHere is the output schema:\n```\n" + json.dumps(CITY) + "\n```"
)


def chat(http: Any, **body: Any) -> dict[str, Any]:
    response = http.post("/v1/chat/completions", json={"model": "chat-mini", **body})
    assert response.status_code == 200, response.text
    return response.json()["choices"][0]["message"]


def test_json_object_answers_the_schema_in_the_system_message(http: Any) -> None:
    """json_object + a schema in the system message (instructor JSON, pydantic-ai PromptedOutput): an instance of it."""
    messages = [{"role": "system", "content": "Answer with JSON matching this json_schema:\n" + json.dumps(CITY, indent=2)},
                {"role": "user", "content": "Tell me about Paris"}]
    value = json.loads(chat(http, messages=messages, response_format={"type": "json_object"})["content"])
    jsonschema.validate(value, CITY)
    assert set(value) == set(CITY["properties"])


def test_json_object_answers_langchain_format_instructions(http: Any) -> None:
    """LangChain's format instructions (example schema, then the real one): an instance of the real one."""
    messages = [{"role": "user", "content": "Paris\n\n" + LANGCHAIN_INSTRUCTIONS}]
    value = json.loads(chat(http, messages=messages, response_format={"type": "json_object"})["content"])
    jsonschema.validate(value, CITY)


def test_json_object_without_a_schema_is_still_a_generic_object(http: Any) -> None:
    """json_object with no schema anywhere keeps the generic synthetic object."""
    value = json.loads(chat(http, messages=[{"role": "user", "content": "hi"}], response_format={"type": "json_object"})["content"])
    assert value["synthetic"] is True


def test_json_code_block_asked_for_in_the_prompt(http: Any) -> None:
    """No response_format, a schema and "```json" asked for (instructor MD_JSON): a fenced instance."""
    system = ("Return the correct JSON response within a ```json codeblock. not the JSON_SCHEMA. "
              "The schema:\n" + json.dumps(CITY))
    content = chat(http, messages=[{"role": "system", "content": system}, {"role": "user", "content": "Paris"}])["content"]
    block = re.fullmatch(r"```json\n(.*)\n```", content, re.DOTALL)
    assert block is not None
    jsonschema.validate(json.loads(block.group(1)), CITY)


def test_forced_tool_gets_its_optional_arguments(http: Any) -> None:
    """A tool forced by tool_choice gets every property, optional ones too (instructor's create_iterable)."""
    tasks = {"type": "object", "properties": {"tasks": {"type": "array", "items": CITY}}}
    tool = {"type": "function", "function": {"name": "IterableCity", "parameters": tasks}}
    message = chat(http, messages=[{"role": "user", "content": "Paris and Rome"}], tools=[tool],
                   tool_choice={"type": "function", "function": {"name": "IterableCity"}})
    arguments = json.loads(message["tool_calls"][0]["function"]["arguments"])
    assert arguments["tasks"] and all(set(item) == set(CITY["properties"]) for item in arguments["tasks"])


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ("no schema here {not json}", None),
        ('{"name": "an instance, not a schema"}', None),
        ('{"name": "City", "schema": ' + json.dumps(CITY) + "}", CITY),
    ],
)
def test_schema_extraction(content: str, expected: Any) -> None:
    """Instances are not schemas; a written-out json_schema format ``{name, schema}`` gives its schema."""
    assert schema_in_messages([{"role": "user", "content": content}]) == expected
