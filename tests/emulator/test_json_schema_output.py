"""json_schema answers and tool arguments validate against the whole schema (checked with jsonschema)."""

from __future__ import annotations

import datetime
import json
import re
import uuid
from typing import Literal, Optional

import jsonschema
import openai
import pytest
from gateway_accounts import ACME_KEY
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, Field

PATTERNS = [r"^[A-Z]{2}-\d{4}$", r"^\+?[0-9 ]{7,15}$", r"^[a-z]+(-[a-z]+)*$", r"^(red|green|blue)$", r"\d{3}",
            r"^[^@\s]+@[^@\s]+\.[a-z]{2,}$", r"^(?:[01]\d|2[0-3]):[0-5]\d$", r"^[A-Za-z0-9_]{3,16}$",
            r"^ab+c?$", r"^(\w)\w*\1$", r"^[^0-9]{2,5}$", r"^v\d+\.\d+\.\d+(-rc\d)?$"]
NAMES = ["name", "country", "city", "age", "email", "price", "count", "title", "tags", "id", "score",
         "created_at", "website", "colour", "notes", "x"]


def json_answer(http, schema, prompt="Fill in the record for Ada in Paris", seed=0):
    answer = http.post("/v1/chat/completions", json={
        "model": "chat-mini", "seed": seed, "messages": [{"role": "user", "content": prompt}],
        "response_format": {"type": "json_schema", "json_schema": {"name": "record", "strict": True,
                                                                   "schema": schema}}})
    assert answer.status_code == 200, answer.text
    return json.loads(answer.json()["choices"][0]["message"]["content"])


def assert_valid(value, schema):
    jsonschema.Draft202012Validator(schema, format_checker=jsonschema.FormatChecker()).validate(value)


KEYWORD_SCHEMAS = {
    "pattern": {"type": "string", "pattern": r"^[A-Z]{3}-\d{2}[a-z]?$"},
    "multipleOf": {"type": "integer", "minimum": 7, "maximum": 1000, "multipleOf": 7},
    "multipleOf_float": {"type": "number", "minimum": 0.1, "maximum": 3, "multipleOf": 0.05},
    "minimum_maximum": {"type": "integer", "minimum": 500, "maximum": 505},
    "exclusive": {"type": "number", "exclusiveMinimum": 1, "exclusiveMaximum": 1.5},
    "exclusive_integer": {"type": "integer", "exclusiveMinimum": 4, "exclusiveMaximum": 6},
    "minLength_maxLength": {"type": "string", "minLength": 40, "maxLength": 45},
    "maxLength": {"type": "string", "maxLength": 2},
    "minItems_maxItems": {"type": "array", "items": {"type": "integer"}, "minItems": 6, "maxItems": 7},
    "uniqueItems": {"type": "array", "items": {"enum": [1, 2, 3, 4]}, "minItems": 4, "uniqueItems": True},
    "minProperties": {"type": "object", "additionalProperties": {"type": "integer"}, "minProperties": 4},
    "maxProperties": {"type": "object", "properties": {k: {"type": "string"} for k in "abcdef"},
                      "maxProperties": 2},
    "additionalProperties_false": {"type": "object", "properties": {"a": {"type": "string"}},
                                   "required": ["a"], "additionalProperties": False},
    "enum": {"enum": ["x", 2, None]},
    "const": {"const": {"fixed": [1, 2]}},
    "format_date": {"type": "string", "format": "date"},
    "format_date_time": {"type": "string", "format": "date-time"},
    "format_email": {"type": "string", "format": "email"},
    "format_uri": {"type": "string", "format": "uri"},
    "format_uuid": {"type": "string", "format": "uuid"},
    "anyOf": {"anyOf": [{"type": "integer", "minimum": 3, "maximum": 3}, {"type": "string"}]},
    "oneOf": {"oneOf": [{"type": "string", "maxLength": 3}, {"type": "integer"}]},
    "allOf": {"allOf": [{"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]},
                        {"properties": {"b": {"type": "string"}}, "required": ["b"]},
                        {"properties": {"a": {"minimum": 50, "maximum": 60}}}]},
    "ref_defs": {"$defs": {"Point": {"type": "object", "properties": {"x": {"type": "number", "minimum": 10}},
                                     "required": ["x"]}},
                 "type": "object", "properties": {"p": {"$ref": "#/$defs/Point"}}, "required": ["p"]},
    "recursive_ref": {"$defs": {"Node": {"type": "object", "required": ["children"], "properties": {
        "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}}}}, "$ref": "#/$defs/Node"},
    "nullable": {"type": ["integer", "null"], "minimum": 2, "maximum": 2},
    "prefixItems": {"type": "array", "prefixItems": [{"type": "string"}, {"type": "integer"}], "minItems": 2},
    "contains": {"type": "array", "items": {"type": "integer"}, "contains": {"const": 99}},
}


@pytest.mark.parametrize("keyword", sorted(KEYWORD_SCHEMAS))
def test_each_constraint_keyword_is_honoured(http, keyword):
    """The answer to a schema built around one keyword validates against it."""
    schema = {"type": "object", "properties": {"value": KEYWORD_SCHEMAS[keyword]}, "required": ["value"],
              "additionalProperties": False}
    if "$defs" in KEYWORD_SCHEMAS[keyword]:
        inner = dict(KEYWORD_SCHEMAS[keyword])
        schema["$defs"] = inner.pop("$defs")
        schema["properties"]["value"] = inner
    for seed in range(5):
        assert_valid(json_answer(http, schema, seed=seed), schema)


def test_formats_are_real_dates_and_uuids(http):
    """date, date-time and uuid values parse as what they claim to be."""
    schema = {"type": "object", "required": ["d", "t", "u"], "properties": {
        "d": {"type": "string", "format": "date"}, "t": {"type": "string", "format": "date-time"},
        "u": {"type": "string", "format": "uuid"}}}
    value = json_answer(http, schema)
    datetime.date.fromisoformat(value["d"])
    datetime.datetime.fromisoformat(value["t"].replace("Z", "+00:00"))
    uuid.UUID(value["u"])


def test_draft4_boolean_exclusive_bounds(http):
    """Draft-4 exclusiveMinimum/exclusiveMaximum booleans exclude the bounds."""
    schema = {"type": "object", "required": ["n"], "properties": {
        "n": {"type": "integer", "minimum": 1, "maximum": 3, "exclusiveMinimum": True, "exclusiveMaximum": True}}}
    assert json_answer(http, schema)["n"] == 2


def test_values_are_plausible_for_field_names(http):
    """A country is a country, an age a sensible integer, an email an email."""
    schema = {"type": "object", "required": ["country", "age", "email", "city"], "properties": {
        "country": {"type": "string"}, "age": {"type": "integer"}, "email": {"type": "string"},
        "city": {"type": "string"}}}
    value = json_answer(http, schema, prompt="What is the capital of France?")
    assert value["country"] == "France" and value["city"] != "France"
    assert 18 <= value["age"] <= 90 and re.fullmatch(r"[\w.]+@example\.com", value["email"])


OVERLAPPING_ONE_OF = {
    "number_integer": {"oneOf": [{"type": "number"}, {"type": "integer"}]},
    "integer_number": {"oneOf": [{"type": "integer"}, {"type": "number"}]},
    "bounded_number_integer": {"oneOf": [{"type": "integer", "minimum": 2, "maximum": 9},
                                         {"type": "number", "minimum": 2, "maximum": 9}]},
    "open_object_required": {"oneOf": [{"type": "object", "properties": {"a": {"type": "string"}}},
                                       {"type": "object", "required": ["b"]}]},
    "required_open_object": {"oneOf": [{"type": "object", "required": ["b"]},
                                       {"type": "object", "properties": {"a": {"type": "string"}}}]},
    "patterns": {"oneOf": [{"type": "string", "pattern": "^[a-c]+$"}, {"type": "string", "pattern": "^[a-z]+$"}]},
    "pattern_and_length": {"oneOf": [{"type": "string", "pattern": "^[a-z]+$"}, {"type": "string", "maxLength": 5}]},
    "const_in_type": {"oneOf": [{"const": 3}, {"type": "integer", "minimum": 1, "maximum": 4}]},
    "enum_in_nullable": {"oneOf": [{"enum": ["x", None]}, {"type": ["string", "null"]}]},
    "ranges": {"oneOf": [{"type": "integer", "minimum": 0}, {"type": "integer", "maximum": 100}]},
    "three_options": {"oneOf": [{"type": "number"}, {"type": "integer"}, {"type": "integer", "minimum": 0}]},
    "nested": {"type": "array", "minItems": 3, "items": {"oneOf": [{"type": "number"}, {"type": "integer"}]}},
    "not": {"type": "integer", "minimum": 1, "maximum": 6, "not": {"enum": [1, 2, 3, 4, 5]}},
    "anyOf_overlap": {"anyOf": [{"type": "number"}, {"type": "integer"}]},
    # told apart only by keywords a hand-written matcher took as satisfied (format, if/then, dependentRequired)
    "formats": {"oneOf": [{"type": "string", "format": "date"}, {"type": "string", "format": "email"}]},
    "if_then": {"oneOf": [{"type": "integer"}, {"type": "integer", "if": {"minimum": 0}, "then": {"minimum": 10**9}}]},
    "dependent_required": {"oneOf": [
        {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"], "additionalProperties": False},
        {"type": "object", "required": ["a"], "dependentRequired": {"a": ["b"]}}]},
}


@pytest.mark.parametrize("case", sorted(OVERLAPPING_ONE_OF))
def test_overlapping_one_of_matches_exactly_one_option(http, case):
    """With overlapping oneOf options, the answer matches exactly one of them (and honours not/anyOf)."""
    schema = {"type": "object", "properties": {"value": OVERLAPPING_ONE_OF[case]}, "required": ["value"]}
    for seed in range(8):
        assert_valid(json_answer(http, schema, seed=seed), schema)


def test_inseparable_one_of_is_400_naming_the_field(http):
    """oneOf options that accept the same values are a 400 naming the field and saying they overlap."""
    schema = {"type": "object", "required": ["flag"], "properties": {
        "flag": {"oneOf": [{"type": "boolean"}, {"enum": [True, False]}]}}}
    answer = http.post("/v1/chat/completions", json={
        "model": "chat-mini", "messages": [{"role": "user", "content": "Set the flag"}],
        "response_format": {"type": "json_schema", "json_schema": {"name": "x", "schema": schema}}})
    assert answer.status_code == 400, answer.text
    error = answer.json()["error"]
    assert error["param"] == "response_format.json_schema.schema"
    assert "'flag'" in error["message"] and "oneOf options" in error["message"] and "overlap" in error["message"]


leaf_schemas = st.one_of(
    st.builds(lambda lo, extra, pattern: {"type": "string", "minLength": lo, "maxLength": lo + extra}
              if pattern is None else {"type": "string", "pattern": pattern},
              st.integers(0, 30), st.integers(0, 30), st.none() | st.sampled_from(PATTERNS)),
    st.builds(lambda lo, width, step, ex: {"type": "integer", "minimum" if not ex else "exclusiveMinimum": lo,
                                           "maximum": lo + width + 2 * (step or 1) + 1,
                                           **({"multipleOf": step} if step else {})},
              st.integers(-10**6, 10**6), st.integers(0, 500), st.none() | st.integers(1, 3), st.booleans()),
    st.builds(lambda lo, width, step: {"type": "number", "exclusiveMinimum": lo, "maximum": lo + width + 3 * (step or 1),
                                       **({"multipleOf": step} if step else {})},
              st.floats(-1000, 1000, allow_nan=False).map(lambda f: round(f, 1)), st.integers(1, 100),
              st.none() | st.sampled_from([0.5, 0.25, 0.1, 0.01, 2.5])),
    st.sampled_from([{"type": "boolean"}, {"type": "null"}, {"enum": ["a", "b", 3]}, {"const": "fixed"},
                     {"type": "string", "format": "email"}, {"type": "string", "format": "date-time"},
                     {"type": ["string", "null"], "format": "date"}, {"type": "string", "format": "uuid"}]),
)


def _object(props, required_flags, extra):
    names = list(props)
    return {"type": "object", "properties": props,
            "required": [n for n, flag in zip(names, required_flags) if flag], "additionalProperties": extra}


schemas = st.recursive(leaf_schemas, lambda children: st.one_of(
    st.builds(lambda items, lo, extra: {"type": "array", "items": items, "minItems": lo, "maxItems": lo + extra},
              children, st.integers(0, 4), st.integers(0, 3)),
    st.builds(_object, st.dictionaries(st.sampled_from(NAMES), children, min_size=1, max_size=4),
              st.lists(st.booleans(), min_size=4, max_size=4), st.sampled_from([False, True, {"type": "integer"}])),
    st.builds(lambda a, b: {"anyOf": [a, b]}, children, children),
    st.builds(lambda s: {"oneOf": [{"type": "string", "maxLength": 0}, {"type": "array", "items": s}]}, children),
    st.builds(lambda s: {"allOf": [s]}, children),
    # Overlapping options: the second accepts everything the first does, plus null.
    st.builds(lambda s, flip: {"oneOf": [s, {"anyOf": [s, {"type": "null"}]}][::-1 if flip else 1]},
              children, st.booleans()),
    st.builds(lambda lo, width, flip: {"oneOf": [{"type": "number", "minimum": lo, "maximum": lo + width},
                                                 {"type": "integer", "minimum": lo, "maximum": lo + width}]
                                       [::-1 if flip else 1]},
              st.integers(-1000, 1000), st.integers(1, 50), st.booleans()),
    st.builds(lambda p, q: {"oneOf": [{"type": "string", "pattern": p}, {"type": "string", "pattern": q}]},
              st.sampled_from(PATTERNS), st.sampled_from(PATTERNS)).filter(lambda s: s["oneOf"][0] != s["oneOf"][1]),
), max_leaves=12)


def _null_overlaps(schema):
    """The generated oneOf [s, anyOf [s, null]] nodes whose s already accepts null (no exclusive value exists)."""
    found, stack = [], [schema]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            options = node.get("oneOf")
            for inner, wider in [options, options[::-1]] if isinstance(options, list) and len(options) == 2 else []:
                if wider == {"anyOf": [inner, {"type": "null"}]} and jsonschema.Draft202012Validator(inner).is_valid(None):
                    found.append(node)
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return found


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(schema=schemas, seed=st.integers(0, 2**31))
def test_generated_schemas_validate(http, schema, seed):
    """Property: for random schemas mixing every keyword (overlapping oneOf options too), the answer validates."""
    wrapped = {"type": "object", "properties": {"value": schema}, "required": ["value"]}
    answer = http.post("/v1/chat/completions", json={
        "model": "chat-mini", "seed": seed, "messages": [{"role": "user", "content": "Fill in the record for Ada"}],
        "response_format": {"type": "json_schema", "json_schema": {"name": "record", "strict": True,
                                                                   "schema": wrapped}}})
    if answer.status_code == 400:  # only where some oneOf really has no value matching exactly one option
        assert "overlap" in answer.json()["error"]["message"] and _null_overlaps(schema), answer.text
        return
    assert answer.status_code == 200, answer.text
    assert_valid(json.loads(answer.json()["choices"][0]["message"]["content"]), wrapped)


class Address(BaseModel):
    street: str = Field(min_length=3, max_length=60)
    postcode: str = Field(pattern=r"^\d{5}$")
    country: str


class Person(BaseModel):
    name: str = Field(max_length=40)
    age: int = Field(ge=0, le=130)
    code: str = Field(pattern=r"^[A-Z]{2}\d{3}$")
    ratio: float = Field(gt=0, lt=1)
    tags: list[str] = Field(min_length=1, max_length=4)
    kind: Literal["student", "teacher"]
    born: datetime.date
    ident: uuid.UUID
    home: Address
    previous: Optional[Address] = None
    step: int = Field(multiple_of=5, ge=10, le=40)


@pytest.mark.parametrize("seed", range(10))
def test_pydantic_model_validates_the_answer(http, seed):
    """A pydantic model with Field constraints validates the gateway's JSON (model_validate_json)."""
    schema = Person.model_json_schema()
    answer = http.post("/v1/chat/completions", json={
        "model": "chat-mini", "seed": seed, "messages": [{"role": "user", "content": "A person, please"}],
        "response_format": {"type": "json_schema", "json_schema": {"name": "Person", "schema": schema}}})
    Person.model_validate_json(answer.json()["choices"][0]["message"]["content"])


@pytest.mark.parametrize("seed", range(5))
def test_openai_parse_succeeds(emulator, seed):
    """openai's chat.completions.parse(response_format=Model) parses the answer into the model."""
    with openai.OpenAI(api_key=ACME_KEY, base_url=emulator.base_url + "/v1", max_retries=0) as client:
        completion = client.chat.completions.parse(
            model="chat-mini", seed=seed, messages=[{"role": "user", "content": "Describe someone"}],
            response_format=Person)
    assert isinstance(completion.choices[0].message.parsed, Person)


def test_tool_arguments_follow_constraints(http):
    """Tool-call arguments honour pattern, bounds and formats too."""
    parameters = {"type": "object", "required": ["city", "day", "code"], "additionalProperties": False,
                  "properties": {"city": {"type": "string"}, "day": {"type": "string", "format": "date"},
                                 "code": {"type": "string", "pattern": r"^[A-Z]{3}$"},
                                 "days": {"type": "integer", "minimum": 1, "maximum": 3}}}
    answer = http.post("/v1/chat/completions", json={
        "model": "chat-mini", "messages": [{"role": "user", "content": "Weather in Lisbon"}],
        "tool_choice": "required", "tools": [{"type": "function", "function": {
            "name": "get_weather", "description": "weather forecast", "parameters": parameters}}]})
    arguments = json.loads(answer.json()["choices"][0]["message"]["tool_calls"][0]["function"]["arguments"])
    assert_valid(arguments, parameters)
    assert arguments["city"] == "Lisbon"
