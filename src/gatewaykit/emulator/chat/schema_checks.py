"""Checks of a JSON Schema before the synthetic model fills it in: keyword types and size limits.

Documented limits (past them the request is a 400 naming the field):

- :data:`MAX_SCHEMA_NODES` sub-schemas in one schema, nested at most :data:`MAX_SCHEMA_DEPTH` deep;
- ``minItems`` / ``minProperties`` at most :data:`MAX_ITEMS`, ``minLength`` at most :data:`MAX_STRING_LENGTH`;
- a ``pattern`` whose strings cannot have ``minLength`` to ``maxLength`` characters (``^\\d{3}$`` with
  ``minLength: 5``) is refused, as no answer could satisfy it;
- at most :data:`MAX_VALUES` generated values and :data:`MAX_ANSWER_CHARS` characters of strings in one
  answer (nested ``minItems`` multiply).

Generated arrays stay short (``maxItems`` is honoured, but lists rarely get past a few items).
The walk is iterative, so a 1,000-level schema is a clear 400 rather than a RecursionError.
"""

from __future__ import annotations

import re
from typing import Any

from gatewaykit.emulator.chat.regex_strings import length_problem

MAX_SCHEMA_NODES = 5_000
MAX_SCHEMA_DEPTH = 64
MAX_ITEMS = 1_000
MAX_STRING_LENGTH = 10_000
MAX_VALUES = 20_000
MAX_ANSWER_CHARS = 2_000_000
#: Nesting of any JSON value in a request (messages, tools, schemas).
MAX_JSON_DEPTH = 200

_NUMBERS = ("minimum", "maximum", "multipleOf")
_COUNTS = ("minItems", "maxItems", "minLength", "maxLength", "minProperties", "maxProperties",
           "minContains", "maxContains")
_SCHEMA_LISTS = ("anyOf", "oneOf", "allOf", "prefixItems")
_SCHEMA_MAPS = ("properties", "$defs", "definitions", "patternProperties", "dependentSchemas")
_SCHEMA_ONES = ("items", "additionalProperties", "not", "contains", "propertyNames", "if", "then", "else",
                "additionalItems", "unevaluatedProperties", "unevaluatedItems")


class SchemaProblem(ValueError):
    """A schema the synthetic model will not fill in; ``where`` is a JSON pointer into it."""

    def __init__(self, where: str, message: str) -> None:
        super().__init__(f"{message} (at {where})" if where else message)
        self.where = where


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and value == value \
        and value not in (float("inf"), float("-inf"))


def json_depth(value: Any, limit: int = MAX_JSON_DEPTH) -> int:
    """Nesting depth of a JSON value, counted without recursion and stopping past ``limit``."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, (dict, list)):
            deepest = max(deepest, depth)
            if deepest > limit:
                return deepest
            stack.extend((child, depth + 1) for child in (node.values() if isinstance(node, dict) else node))
    return deepest


def _check_keywords(node: dict[str, Any], where: str) -> None:
    for key in _NUMBERS:
        if key in node and not _is_number(node[key]):
            raise SchemaProblem(where, f"'{key}' must be a number, not {node[key]!r}")
    if "multipleOf" in node and node["multipleOf"] <= 0:
        raise SchemaProblem(where, "'multipleOf' must be greater than 0")
    for key in ("exclusiveMinimum", "exclusiveMaximum"):
        if key in node and not (_is_number(node[key]) or isinstance(node[key], bool)):
            raise SchemaProblem(where, f"'{key}' must be a number, not {node[key]!r}")
    for key in _COUNTS:
        value = node.get(key)
        if key in node and (not isinstance(value, int) or isinstance(value, bool) or value < 0):
            raise SchemaProblem(where, f"'{key}' must be a non-negative integer, not {value!r}")
    for key, cap in (("minItems", MAX_ITEMS), ("minProperties", MAX_ITEMS), ("minLength", MAX_STRING_LENGTH)):
        if node.get(key, 0) > cap:
            raise SchemaProblem(where, f"'{key}' is {node[key]:,}; the offline gateway generates at most "
                                       f"{cap:,}; lower it")
    required = node.get("required")
    if required is not None and not (isinstance(required, list) and all(isinstance(r, str) for r in required)):
        raise SchemaProblem(where, "'required' must be an array of property names (strings)")
    if "enum" in node and not (isinstance(node["enum"], list) and node["enum"]):
        raise SchemaProblem(where, "'enum' must be a non-empty array")
    kind = node.get("type")
    if kind is not None and not (isinstance(kind, str) or (isinstance(kind, list) and kind
                                                            and all(isinstance(k, str) for k in kind))):
        raise SchemaProblem(where, "'type' must be a type name or an array of them")
    if "pattern" in node:
        if not isinstance(node["pattern"], str):
            raise SchemaProblem(where, "'pattern' must be a string")
        try:
            re.compile(node["pattern"])
        except (re.error, RecursionError, OverflowError) as exc:
            raise SchemaProblem(where, f"'pattern' is not a valid regular expression: {exc}") from None
        kinds = node.get("type", "string")
        if "string" in (kinds if isinstance(kinds, list) else [kinds]):  # (a pattern only constrains strings)
            problem = length_problem(node["pattern"], node.get("minLength", 0), node.get("maxLength"))
            if problem:
                raise SchemaProblem(where, f"no string fits 'pattern' with 'minLength'/'maxLength': {problem}")
    for key in ("format", "$ref"):
        if key in node and not isinstance(node[key], str):
            raise SchemaProblem(where, f"'{key}' must be a string")


def check_schema(schema: Any) -> None:
    """Raise :class:`SchemaProblem` for a schema that is malformed or too large to fill in."""
    if json_depth(schema, MAX_SCHEMA_DEPTH * 3) > MAX_SCHEMA_DEPTH * 3:
        raise SchemaProblem("", f"the schema is nested more than {MAX_SCHEMA_DEPTH} levels deep")
    stack: list[tuple[Any, str, int]] = [(schema, "", 0)]
    nodes = 0
    while stack:
        node, where, depth = stack.pop()
        if isinstance(node, bool):
            continue
        if not isinstance(node, dict):
            raise SchemaProblem(where, f"a schema must be an object, not {type(node).__name__}")
        nodes += 1
        if nodes > MAX_SCHEMA_NODES:
            raise SchemaProblem("", f"the schema has more than {MAX_SCHEMA_NODES:,} sub-schemas")
        if depth > MAX_SCHEMA_DEPTH:
            raise SchemaProblem(where, f"the schema is nested more than {MAX_SCHEMA_DEPTH} levels deep")
        _check_keywords(node, where)
        for key in _SCHEMA_LISTS:
            if key in node:
                if not isinstance(node[key], list) or (key != "prefixItems" and not node[key]):
                    raise SchemaProblem(where, f"'{key}' must be a non-empty array of schemas")
                stack += [(sub, f"{where}/{key}/{i}", depth + 1) for i, sub in enumerate(node[key])]
        for key in _SCHEMA_MAPS:
            if key in node:
                if not isinstance(node[key], dict):
                    raise SchemaProblem(where, f"'{key}' must be an object mapping names to schemas")
                stack += [(sub, f"{where}/{key}/{name}", depth + 1) for name, sub in node[key].items()]
        for key in _SCHEMA_ONES:
            if key in node:
                sub = node[key]
                if key == "items" and isinstance(sub, list):  # draft-4 tuple form
                    stack += [(s, f"{where}/items/{i}", depth + 1) for i, s in enumerate(sub)]
                else:
                    stack.append((sub, f"{where}/{key}", depth + 1))
