"""The least an answer to a JSON Schema must hold, known before any of it is written.

:func:`check_answer_size` refuses, up front, a schema whose every answer would pass the writer's limits
(:data:`.schema_checks.MAX_VALUES` values, :data:`.schema_checks.MAX_ANSWER_CHARS` characters): nested
``minItems`` multiply, so ``1,000 x 1,000`` items is a 400 at once instead of after seconds of writing.

The figures are lower bounds: only what the writer (:mod:`.schema_values`) always writes counts:
required properties, ``minItems`` items, ``minLength`` characters, the cheapest ``anyOf``/``oneOf``
option, the largest ``allOf`` part. A schema refused here would have failed while being written; one
accepted here can still fail then (the writer keeps its own checks). Each sub-schema is sized once
(``$ref`` cycles count as nothing), so the walk is linear in the schema's size.
"""

from __future__ import annotations

import math
from typing import Any

from gatewaykit.emulator.chat.schema_checks import MAX_ANSWER_CHARS, MAX_STRING_LENGTH, MAX_VALUES, SchemaProblem
from gatewaykit.emulator.chat.schema_merge import merge_schemas

#: Past this many nested $ref/allOf steps a branch counts as nothing (a lower bound stays a lower bound).
_MAX_STEPS = 200
#: Sizes are capped (past every limit) so that multiplying them stays cheap.
_CAP = 10**9


class _Sizer:
    def __init__(self, root: dict[str, Any]) -> None:
        self.root = root
        self.known: dict[int, tuple[int, int]] = {}
        self.keep: list[Any] = []  # merged schemas stay alive, so their ids are not reused while sizing

    def size(self, schema: Any, steps: int = 0) -> tuple[int, int]:
        """(values, characters) every answer to ``schema`` holds at least."""
        if not isinstance(schema, dict) or steps > _MAX_STEPS:
            return (1, 0) if steps <= _MAX_STEPS else (0, 0)
        key = id(schema)
        if key in self.known:
            return self.known[key]
        self.known[key] = (0, 0)  # while it is being sized: a $ref back to it adds nothing
        values, chars = self._size(schema, steps)
        self.known[key] = (min(values, _CAP), min(chars, _CAP))
        return self.known[key]

    def _size(self, schema: dict[str, Any], steps: int) -> tuple[int, int]:
        if "$ref" in schema:
            rest = {k: v for k, v in schema.items() if k != "$ref"}
            return self._merged(merge_schemas(self._resolve(schema["$ref"]), rest), steps)
        if isinstance(schema.get("allOf"), list):
            merged = {k: v for k, v in schema.items() if k != "allOf"}
            for part in schema["allOf"]:
                if isinstance(part, dict):
                    merged = merge_schemas(merged, self._resolve(part["$ref"]) if "$ref" in part else part)
            return self._merged(merged, steps)
        if "const" in schema or isinstance(schema.get("enum"), list):
            return 1, 0
        options = schema.get("anyOf") if isinstance(schema.get("anyOf"), list) else schema.get("oneOf")
        if isinstance(options, list) and options:
            rest = {k: v for k, v in schema.items() if k not in ("anyOf", "oneOf")}
            sizes = [self._merged(merge_schemas(rest, o) if isinstance(o, dict) else rest, steps) for o in options]
            return min(v for v, _ in sizes), min(c for _, c in sizes)
        kind = schema.get("type")
        if isinstance(kind, list):
            if "null" in kind or not kind:
                return 1, 0  # the writer may answer null
            kind = kind[0]
        if kind is None:  # as the writer guesses it
            kind = ("object" if {"properties", "required", "additionalProperties"} & set(schema) else
                    "array" if {"items", "prefixItems", "minItems"} & set(schema) else
                    "number" if {"minimum", "maximum", "multipleOf"} & set(schema) else "string")
        if kind == "object":
            return self._object(schema, steps)
        if kind == "array":
            return self._array(schema, steps)
        if kind == "string":  # (a patterned string has minLength characters too)
            least, most = schema.get("minLength", 0), schema.get("maxLength", math.inf)
            if isinstance(least, int) and isinstance(most, (int, float)):
                return 1, int(min(least, most))
        return 1, 0

    def _merged(self, schema: dict[str, Any], steps: int) -> tuple[int, int]:
        self.keep.append(schema)
        values, chars = self.size(schema, steps + 1)
        return values + 1, chars  # the writer counts the step itself as a value

    def _object(self, schema: dict[str, Any], steps: int) -> tuple[int, int]:
        properties: dict[str, Any] = schema["properties"] if isinstance(schema.get("properties"), dict) else {}
        extra = schema.get("additionalProperties", True)
        values, chars = 1, 0
        for name in dict.fromkeys(schema.get("required") or []):
            sub = properties.get(name, extra if isinstance(extra, dict) else {})
            more, more_chars = self.size(sub, steps + 1)
            values, chars = values + more, chars + more_chars
        return values, chars

    def _array(self, schema: dict[str, Any], steps: int) -> tuple[int, int]:
        least = schema.get("minItems", 0)
        most = schema.get("maxItems", math.inf)
        if not isinstance(least, int) or not isinstance(most, (int, float)):
            return 1, 0
        prefix = schema.get("prefixItems") or (schema["items"] if isinstance(schema.get("items"), list) else [])
        if schema.get("items") is False:
            most = min(most, len(prefix))
        count = int(min(least, most))
        if count == 0:
            return 1, 0
        items = schema.get("items") if isinstance(schema.get("items"), dict) else {}
        values, chars = 1, 0
        for index in range(min(count, len(prefix))):
            more, more_chars = self.size(prefix[index], steps + 1)
            values, chars = values + more, chars + more_chars
        rest = count - min(count, len(prefix))
        if rest:
            more, more_chars = self.size(items, steps + 1)
            values, chars = values + rest * more, chars + rest * more_chars
        return values, chars

    def _resolve(self, ref: Any) -> dict[str, Any]:
        if not isinstance(ref, str) or not ref.startswith("#"):
            return {}
        node: Any = self.root
        for part in [p for p in ref[1:].split("/") if p]:
            node = node.get(part.replace("~1", "/").replace("~0", "~")) if isinstance(node, dict) else None
        return node if isinstance(node, dict) else {}


def least_answer_size(schema: Any) -> tuple[int, int]:
    """(values, characters of strings) every answer to ``schema`` holds at least (each capped just past its
    limit). Call :func:`.schema_checks.check_schema` first: this assumes a well-formed schema."""
    root = schema if isinstance(schema, dict) else {}
    return _Sizer(root).size(root)


def check_answer_size(schema: Any) -> None:
    """Raise :class:`.SchemaProblem` (the writer's own message) when no answer to ``schema`` fits the limits."""
    values, chars = least_answer_size(schema)
    if values > MAX_VALUES:
        raise SchemaProblem("", f"the answer would hold more than {MAX_VALUES:,} values; lower minItems "
                                "(nested minItems multiply)")
    if chars > MAX_ANSWER_CHARS + MAX_STRING_LENGTH:  # the writer checks before each value: the last may cross
        raise SchemaProblem("", f"the answer would be longer than {MAX_ANSWER_CHARS:,} characters; lower "
                                "minItems or minLength")
