"""Python functions as tools: schemas from type hints, argument validation, bad tools refused early."""

from __future__ import annotations

import enum
import functools
from typing import Literal, Optional

import pydantic
import pytest

from gatewaykit.client.conversation.tools import Toolbox, result_text, tool_from_function
from gatewaykit.types import ToolCall


class Place(pydantic.BaseModel):
    city: str
    country: Optional[str] = None


class Unit(enum.Enum):
    celsius = "celsius"
    fahrenheit = "fahrenheit"


def get_weather(city: str, unit: Unit = Unit.celsius, days: int = 1) -> dict:
    """Get the weather forecast for a city.

    Returns the temperature per day.
    """
    return {"city": city, "unit": unit.value, "days": days}


def local_time(place: Place, style: Literal["12h", "24h"] = "24h") -> str:
    """The local time at a place."""
    return f"{place.city}: 12:00 ({style})"


async def slow_lookup(term: str) -> str:
    """Look a term up."""
    return term.upper()


class Opaque:
    """A class pydantic has no schema for."""


def call(name: str, arguments: str, call_id: str = "call_1") -> ToolCall:
    return ToolCall.model_validate({"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}})


def test_schema_comes_from_the_signature_and_docstring() -> None:
    """The definition has the function's name, its cleaned docstring, and a JSON Schema of its parameters."""
    definition = tool_from_function(get_weather).definition()
    function = definition["function"]
    assert definition["type"] == "function" and function["name"] == "get_weather"
    assert function["description"] == "Get the weather forecast for a city.\n\nReturns the temperature per day."
    schema = function["parameters"]
    assert schema["required"] == ["city"]
    assert schema["properties"]["city"]["type"] == "string"
    assert schema["properties"]["days"] == {"default": 1, "title": "Days", "type": "integer"}


def test_pydantic_model_parameters_are_schemas_and_instances() -> None:
    """A pydantic-model parameter appears in the schema and reaches the function as a model instance."""
    tool = tool_from_function(local_time)
    assert "Place" in str(tool.parameters)
    kwargs = tool.bind('{"place": {"city": "Oslo"}, "style": "12h"}')
    assert isinstance(kwargs["place"], Place) and kwargs["place"].city == "Oslo"
    assert local_time(**kwargs) == "Oslo: 12:00 (12h)"


def test_arguments_are_validated_and_defaults_filled() -> None:
    """Arguments are converted to the annotated types (enum members) and missing ones take their defaults."""
    kwargs = tool_from_function(get_weather).bind('{"city": "Rome", "unit": "fahrenheit"}')
    assert kwargs == {"city": "Rome", "unit": Unit.fahrenheit, "days": 1}


def test_async_functions_are_marked() -> None:
    """An async def tool is recognised as one (the sessions await it)."""
    assert tool_from_function(slow_lookup).is_async and not tool_from_function(get_weather).is_async


@pytest.mark.parametrize("value", [print, functools.partial(get_weather, "x"), "get_weather", 42, Place])
def test_non_functions_are_refused(value: object) -> None:
    """Builtins, partials, strings, numbers and classes are not tools: TypeError naming the fix."""
    with pytest.raises(TypeError, match="must be a Python function"):
        tool_from_function(value)


def test_lambdas_are_refused() -> None:
    """A lambda has no name to be called by: TypeError."""
    with pytest.raises(TypeError, match="lambda"):
        tool_from_function(lambda city: city)


def test_a_parameter_without_a_hint_is_refused() -> None:
    """Every parameter needs a type hint: the error names the parameter."""

    def lookup(term, limit: int = 3) -> str:
        return term

    with pytest.raises(TypeError, match="'term' a type hint"):
        tool_from_function(lookup)


def test_star_arguments_are_refused() -> None:
    """``*args`` cannot be described to a model: TypeError."""

    def add(*numbers: int) -> int:
        return sum(numbers)

    with pytest.raises(TypeError, match="numbers"):
        tool_from_function(add)


def test_annotations_without_a_json_schema_are_refused() -> None:
    """A type pydantic cannot describe (an arbitrary class) is refused with a TypeError naming the tool."""

    def use(thing: Opaque) -> str:
        return "x"

    with pytest.raises(TypeError, match="Tool 'use'.*JSON Schema"):
        tool_from_function(use)


def test_duplicate_names_are_refused() -> None:
    """Two tools with one name: ValueError before anything is sent."""

    def first() -> str:
        return "a"

    def second() -> str:
        return "b"

    second.__name__ = "first"
    with pytest.raises(ValueError, match="Two tools are named 'first'"):
        Toolbox([first, second])


def test_a_single_function_instead_of_a_list_is_refused() -> None:
    """tools=fn (not a list) is a TypeError that shows the right spelling."""
    with pytest.raises(TypeError, match=r"tools=\[get_weather\]"):
        Toolbox(get_weather)  # type: ignore[arg-type]


def test_unknown_tool_calls_become_an_error_outcome() -> None:
    """A call of a tool that does not exist gives an error outcome listing the real tools."""
    tool, outcome = Toolbox([get_weather]).prepare(call("launch_rocket", "{}"))
    assert tool is None and outcome.status == "unknown"
    assert "launch_rocket" in outcome.content and "get_weather" in outcome.content


def test_invalid_arguments_become_an_error_outcome() -> None:
    """Arguments that are not JSON, or miss a required field, give an error outcome, not an exception."""
    box = Toolbox([get_weather])
    for arguments in ("{not json", '{"days": 2}', "[1, 2]"):
        tool, outcome = box.prepare(call("get_weather", arguments))
        assert tool is None and outcome.status == "error" and outcome.content.startswith("Error:")


def test_results_become_text() -> None:
    """Strings stay as they are; models and data become JSON."""
    assert result_text("plain") == "plain"
    assert result_text(Place(city="Oslo")) == '{"city":"Oslo","country":null}'
    assert result_text({"a": [1, 2]}) == '{"a":[1,2]}'
