"""Does a value satisfy a sub-schema? A compact validator over the keywords the value writer supports.

Used to make ``oneOf`` answers match exactly one option and ``not`` answers miss their sub-schema
(``jsonschema`` is only a test dependency, so the gateway cannot import it).
The answer leans to "matches": a keyword it does not check (``format``, ``if``/``then``,
``dependentSchemas``, remote ``$ref``...) counts as satisfied, so a value it calls exclusive is
exclusive, while a value it calls matching may, rarely, be rejected needlessly.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any, TypeGuard, Union

_MAX_DEPTH = 64


def _is_number(value: Any) -> TypeGuard[Union[int, float]]:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _has_type(value: Any, kind: str) -> bool:
    if kind == "integer":
        return _is_number(value) and (isinstance(value, int) or math.isfinite(value) and value.is_integer())
    return {"number": _is_number(value), "string": isinstance(value, str), "boolean": isinstance(value, bool),
            "null": value is None, "object": isinstance(value, dict), "array": isinstance(value, list)}.get(kind, True)


def same(left: Any, right: Any) -> bool:
    """JSON equality: 1 == 1.0, but true is not 1."""
    if isinstance(left, bool) or isinstance(right, bool):
        return isinstance(left, bool) and isinstance(right, bool) and left == right
    if isinstance(left, dict) and isinstance(right, dict):
        return left.keys() == right.keys() and all(same(left[k], right[k]) for k in left)
    if isinstance(left, list) and isinstance(right, list):
        return len(left) == len(right) and all(same(a, b) for a, b in zip(left, right))
    if _is_number(left) and _is_number(right):
        return left == right
    return type(left) is type(right) and left == right


def _search(pattern: str, text: str) -> bool:
    try:
        return re.search(pattern, text) is not None
    except (re.error, RecursionError, OverflowError):
        return True


class SchemaMatcher:
    def __init__(self, root: dict[str, Any]) -> None:
        self.root = root

    def resolve(self, ref: Any) -> Any:
        if not isinstance(ref, str) or not ref.startswith("#"):
            return True
        node: Any = self.root
        for part in [p for p in ref[1:].split("/") if p]:
            node = node.get(part.replace("~1", "/").replace("~0", "~")) if isinstance(node, dict) else None
        return node if isinstance(node, (dict, bool)) else True

    def matches(self, value: Any, schema: Any, depth: int = 0) -> bool:
        if schema is True or not isinstance(schema, dict) or depth > _MAX_DEPTH:
            return schema is not False
        checks = (self._general, self._number, self._string, self._array, self._object, self._logic)
        return all(check(value, schema, depth) for check in checks)

    def _general(self, value: Any, schema: dict, depth: int) -> bool:
        kind = schema.get("type")
        kinds = kind if isinstance(kind, list) else [kind] if isinstance(kind, str) else None
        if kinds is not None and not any(_has_type(value, k) for k in kinds):
            return False
        if "const" in schema and not same(value, schema["const"]):
            return False
        if isinstance(schema.get("enum"), list) and not any(same(value, v) for v in schema["enum"]):
            return False
        return "$ref" not in schema or self.matches(value, self.resolve(schema["$ref"]), depth + 1)

    def _number(self, value: Any, schema: dict, depth: int) -> bool:
        if not _is_number(value):
            return True
        low, high = schema.get("minimum", -math.inf), schema.get("maximum", math.inf)
        ex_low, ex_high = schema.get("exclusiveMinimum"), schema.get("exclusiveMaximum")
        if value < low or value > high or ex_low is True and value <= low or ex_high is True and value >= high:
            return False
        if _is_number(ex_low) and value <= ex_low or _is_number(ex_high) and value >= ex_high:
            return False
        step = schema.get("multipleOf")
        if _is_number(step) and step > 0:
            quotient = value / step
            if math.isfinite(quotient) and not quotient.is_integer() and abs(quotient - round(quotient)) > 1e-9:
                return False
        return True

    def _string(self, value: Any, schema: dict, depth: int) -> bool:
        if not isinstance(value, str):
            return True
        if len(value) < schema.get("minLength", 0) or len(value) > schema.get("maxLength", math.inf):
            return False
        return not isinstance(schema.get("pattern"), str) or _search(schema["pattern"], value)

    def _array(self, value: Any, schema: dict, depth: int) -> bool:
        if not isinstance(value, list):
            return True
        if len(value) < schema.get("minItems", 0) or len(value) > schema.get("maxItems", math.inf):
            return False
        if schema.get("uniqueItems") and len({json.dumps(v, sort_keys=True) for v in value}) < len(value):
            return False
        items = schema.get("items", True)
        prefix = schema.get("prefixItems") or (items if isinstance(items, list) else [])
        rest = schema.get("additionalItems", True) if isinstance(items, list) else items
        for index, item in enumerate(value):
            if not self.matches(item, prefix[index] if index < len(prefix) else rest, depth + 1):
                return False
        contains = schema.get("contains")
        return contains is None or any(self.matches(item, contains, depth + 1) for item in value)

    def _object(self, value: Any, schema: dict, depth: int) -> bool:
        if not isinstance(value, dict):
            return True
        if len(value) < schema.get("minProperties", 0) or len(value) > schema.get("maxProperties", math.inf):
            return False
        if any(name not in value for name in schema.get("required") or []):
            return False
        properties = schema.get("properties") or {}
        patterns = schema.get("patternProperties") or {}
        extra = schema.get("additionalProperties", True)
        for name, item in value.items():
            matched = [sub for pattern, sub in patterns.items() if _search(pattern, name)]
            if name in properties:
                matched.append(properties[name])
            elif not matched:
                matched.append(extra)
            if not all(self.matches(item, sub, depth + 1) for sub in matched):
                return False
        return True

    def _logic(self, value: Any, schema: dict, depth: int) -> bool:
        if "allOf" in schema and not all(self.matches(value, s, depth + 1) for s in schema["allOf"]):
            return False
        if "anyOf" in schema and not any(self.matches(value, s, depth + 1) for s in schema["anyOf"]):
            return False
        if "oneOf" in schema and not any(self.matches(value, s, depth + 1) for s in schema["oneOf"]):
            return False  # "exactly one" is not checked: leaning to "matches", as the module says
        return "not" not in schema or not self._surely(value, schema["not"], depth + 1)

    def _surely(self, value: Any, schema: Any, depth: int) -> bool:
        """Under ``not`` the lean flips: only a sub-schema without unchecked keywords can be said to match."""
        return self.matches(value, schema, depth) and _checked_fully(schema)


_CHECKED = {"type", "const", "enum", "$ref", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
            "multipleOf", "minLength", "maxLength", "pattern", "minItems", "maxItems", "uniqueItems", "items",
            "prefixItems", "additionalItems", "contains", "minProperties", "maxProperties", "required",
            "properties", "patternProperties", "additionalProperties", "allOf", "anyOf", "not", "$defs",
            "definitions", "title", "description", "default", "examples", "$schema", "$id", "$comment"}


def _checked_fully(schema: Any) -> bool:
    """No unchecked keyword anywhere inside."""
    stack = [schema]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            if not set(node) <= _CHECKED or "$ref" in node:
                return False
            for key, sub in node.items():
                if key in ("properties", "patternProperties", "$defs", "definitions") and isinstance(sub, dict):
                    stack.extend(sub.values())
                elif key not in ("const", "enum", "default", "examples"):
                    stack.append(sub)
        elif isinstance(node, list):
            stack.extend(node)
    return True
