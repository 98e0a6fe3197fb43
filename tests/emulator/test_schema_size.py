"""The up-front size check of a schema is a true lower bound: it refuses only what writing would refuse.

:func:`check_answer_size` runs before any answer is written (issue 28, item 3), so it must never refuse
a schema the writer can answer, and must stay cheap on schemas built to explode ($ref trees).
"""

from __future__ import annotations

import random

import pytest

from gatewaykit.emulator.chat.schema_checks import SchemaProblem
from gatewaykit.emulator.chat.schema_size import check_answer_size, least_answer_size
from gatewaykit.emulator.chat.schema_values import SchemaWriter

ROW = {"type": "object", "required": ["a", "b"], "properties": {"a": {"type": "string", "minLength": 5},
                                                                  "b": {"type": "integer"}, "c": {"type": "string"}}}
WITHIN_LIMITS = [
    {"type": "object", "required": ["rows"], "properties": {"rows": {"type": "array", "minItems": 50, "items": ROW}}},
    {"$defs": {"row": ROW}, "type": "array", "minItems": 30, "items": {"$ref": "#/$defs/row"}},
    {"type": "array", "minItems": 20, "items": {"allOf": [ROW, {"required": ["c"]}]}},
    {"type": "array", "minItems": 20, "items": {"anyOf": [ROW, {"type": "null"}]}},
    {"type": "array", "minItems": 20, "items": {"oneOf": [{"type": "string", "maxLength": 0}, ROW]}},
    {"type": "array", "prefixItems": [ROW, {"type": "string", "minLength": 40}], "items": False, "minItems": 2},
    {"type": ["array", "null"], "minItems": 10, "items": ROW},
    {"type": "array", "minItems": 5, "items": {"type": "string", "pattern": "^[a-z]+$", "minLength": 3}},
    {"$defs": {"node": {"type": "object", "properties": {"next": {"anyOf": [{"$ref": "#/$defs/node"},
                                                                          {"type": "null"}]}}}},
     "$ref": "#/$defs/node"},
]


@pytest.mark.parametrize("schema", WITHIN_LIMITS, ids=range(len(WITHIN_LIMITS)))
def test_the_least_size_is_never_more_than_what_is_written(schema):
    """For schemas the writer answers, the least size is at most the values and characters it wrote."""
    check_answer_size(schema)
    values, chars = least_answer_size(schema)
    for seed in range(3):
        writer = SchemaWriter(schema, random.Random(seed), "fill it in", all_properties=True)
        writer.value(schema)
        assert values <= writer.values and chars <= writer.chars


def test_nested_min_items_multiply():
    """1,000 x 1,000 items is a million values: refused, naming the limit and what to lower."""
    schema = {"type": "array", "minItems": 1000, "items": {"type": "array", "minItems": 1000, "items": {}}}
    assert least_answer_size(schema)[0] > 1_000_000
    with pytest.raises(SchemaProblem, match="more than 20,000 values; lower minItems"):
        check_answer_size(schema)


def test_long_strings_add_up():
    """1,000 strings of at least 10,000 characters pass the 2,000,000-character limit: refused."""
    schema = {"type": "array", "minItems": 1000, "items": {"type": "string", "minLength": 10_000}}
    with pytest.raises(SchemaProblem, match="longer than 2,000,000 characters"):
        check_answer_size(schema)


def test_a_ref_tree_of_two_to_the_forty_is_sized_without_walking_it():
    """Each definition refers twice to the next, forty deep: 2**40 values (the size is capped far past the
    limit), found by sizing each of the 41 definitions once."""
    defs = {f"d{i}": {"type": "object", "required": ["a", "b"], "properties": {
        "a": {"$ref": f"#/$defs/d{i + 1}"}, "b": {"$ref": f"#/$defs/d{i + 1}"}}} for i in range(40)}
    defs["d40"] = {"type": "integer"}
    schema = {"$defs": defs, "$ref": "#/$defs/d0"}
    assert least_answer_size(schema)[0] >= 10**9
    with pytest.raises(SchemaProblem):
        check_answer_size(schema)


def test_a_required_cycle_counts_as_nothing_more():
    """A required $ref back to itself is sized once (the writer reports the cycle itself)."""
    schema = {"$defs": {"n": {"type": "object", "required": ["next"], "properties": {"next": {"$ref": "#/$defs/n"}}}},
              "$ref": "#/$defs/n"}
    check_answer_size(schema)
    assert least_answer_size(schema)[0] < 10
