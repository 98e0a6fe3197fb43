"""A json_schema string with a ``pattern`` honours ``minLength`` and ``maxLength`` too.

Seen before: with a pattern the lengths were dropped (``^[a-z]+$`` with ``minLength: 20`` came back as
``"abc"``). Now every answer matches the pattern within the lengths, or, when no string can, the request
is a 400 that says which limits clash before any answer is written.
"""

from __future__ import annotations

import json
import re

import jsonschema
import pytest

CASES = [
    (r"^[a-z]+$", 20, 24),
    (r"^[A-Z]{2}-\d{4,}$", 12, None),
    (r"^\d{3}-\d{4}$", 8, 8),
    (r"^(ab)+$", 9, 12),
    (r"^[a-z]{3,8}@[a-z]{3,6}\.com$", 18, 19),
    (r"^(cat|horse|elephant)s?$", 8, 9),
    (r"^\w+( \w+)*$", 40, 50),
    (r"^(?:[0-9a-f]{2}:){5}[0-9a-f]{2}$", 17, 17),
    (r"^(\d)\1+$", 6, 6),
    (r"\d{3}", 15, 20),  # unanchored: text around the match makes up the length
    (r"^v\d+\.\d+\.\d+(-rc\d)?$", 12, 14),
    (r"^[A-Z][a-z]*$", 1, 1),
]


def _answer(http, schema, seed):  # noqa: ANN001, ANN202
    return http.post("/v1/chat/completions", json={
        "model": "chat-mini", "seed": seed, "messages": [{"role": "user", "content": "Fill in the record"}],
        "response_format": {"type": "json_schema", "json_schema": {"name": "record", "strict": True,
                                                                   "schema": schema}}})


@pytest.mark.parametrize("pattern,least,most", CASES)
def test_patterned_strings_have_their_lengths(http, pattern, least, most):
    """Three seeds, a field and a list of them: every string matches the pattern within minLength..maxLength."""
    field = {"type": "string", "pattern": pattern, "minLength": least}
    if most is not None:
        field["maxLength"] = most
    schema = {"type": "object", "properties": {"code": field, "codes": {"type": "array", "items": field,
                                                                       "minItems": 3}},
              "required": ["code", "codes"], "additionalProperties": False}
    for seed in range(3):
        answer = _answer(http, schema, seed)
        assert answer.status_code == 200, answer.text
        value = json.loads(answer.json()["choices"][0]["message"]["content"])
        jsonschema.Draft202012Validator(schema).validate(value)
        for text in [value["code"], *value["codes"]]:
            assert re.search(pattern, text) and least <= len(text) <= (most or len(text)), text


@pytest.mark.parametrize("field,says", [
    ({"pattern": r"^\d{3}$", "minLength": 5}, "at most 3 characters, fewer than minLength 5"),
    ({"pattern": r"^[a-z]{6,}$", "maxLength": 4}, "at least 6 characters, more than maxLength 4"),
    ({"pattern": r"[a-z]{6}", "maxLength": 5}, "at least 6 characters, more than maxLength 5"),
    ({"pattern": r"^(yes|no)$", "minLength": 4}, "at most 3 characters, fewer than minLength 4"),
])
def test_lengths_no_patterned_string_can_have_are_a_400(http, field, says):
    """A pattern whose strings can never have the lengths asked for: a 400 naming both, not an answer
    that breaks the schema."""
    schema = {"type": "object", "properties": {"code": {"type": "string", **field}}, "required": ["code"],
              "additionalProperties": False}
    answer = _answer(http, schema, 0)
    assert answer.status_code == 400, answer.text
    error = answer.json()["error"]
    assert error["param"] == "response_format.json_schema.schema"
    assert says in error["message"] and "/properties/code" in error["message"]
    assert field["pattern"] in error["message"]


def test_lengths_only_the_draw_finds_impossible_are_a_400_too(http):
    """``^(ab)+$`` has 2, 4, 6... characters: with exactly 5 asked for, no draw fits, and the answer is a 400
    naming the pattern and the lengths (it used to be "ababab", which breaks maxLength)."""
    schema = {"type": "object", "properties": {"code": {"type": "string", "pattern": "^(ab)+$", "minLength": 5,
                                                        "maxLength": 5}},
              "required": ["code"], "additionalProperties": False}
    answer = _answer(http, schema, 0)
    assert answer.status_code == 400, answer.text
    error = answer.json()["error"]
    assert error["param"] == "response_format.json_schema.schema"
    assert "'^(ab)+$' of 5 to 5 characters" in error["message"]
