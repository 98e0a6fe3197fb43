"""Instances of a JSON Schema, for tool-call arguments and ``json_schema`` answers.

Supports what tool definitions use in practice: ``type`` (or a list of types),
``enum``/``const``, ``properties``/``required``, ``items``, ``minItems``/``maxItems``,
``minimum``/``maximum`` (and the exclusive forms), ``minLength``/``maxLength``,
``format`` (date, date-time, email, uri), ``anyOf``/``oneOf``/``allOf`` and local
``$ref`` (``#/$defs/...``, ``#/definitions/...``). Strings are taken from the
prompt where the property name suggests it (a city, a name, a query).
"""

from __future__ import annotations

import random
import re
from typing import Any

from gatewaykit.emulator.chat.writing import keywords, topic_of

_MAX_DEPTH = 8


class SchemaWriter:
    def __init__(self, root: dict[str, Any], rng: random.Random, prompt: str, *, all_properties: bool) -> None:
        self.root = root
        self.rng = rng
        self.prompt = prompt
        self.words = keywords(prompt, 8)
        self.all_properties = all_properties

    def value(self, schema: Any, name: str = "", depth: int = 0) -> Any:
        if not isinstance(schema, dict) or depth > _MAX_DEPTH:
            return self._string({}, name)
        if "$ref" in schema:
            return self.value(self._resolve(schema["$ref"]), name, depth + 1)
        if "const" in schema:
            return schema["const"]
        if isinstance(schema.get("enum"), list) and schema["enum"]:
            return self.rng.choice(schema["enum"])
        for combinator in ("anyOf", "oneOf"):
            options = schema.get(combinator)
            if isinstance(options, list) and options:
                non_null = [o for o in options if not (isinstance(o, dict) and o.get("type") == "null")]
                return self.value((non_null or options)[0], name, depth + 1)
        if isinstance(schema.get("allOf"), list):
            merged: dict[str, Any] = {}
            for part in schema["allOf"]:
                if isinstance(part, dict):
                    merged = _merge(merged, self._resolve(part["$ref"]) if "$ref" in part else part)
            return self.value(merged, name, depth + 1)
        kind = schema.get("type")
        if isinstance(kind, list):
            kind = next((k for k in kind if k != "null"), "null")
        if kind is None:
            kind = "object" if "properties" in schema else "array" if "items" in schema else "string"
        if kind == "object":
            return self._object(schema, depth)
        if kind == "array":
            return self._array(schema, name, depth)
        if kind == "integer":
            return self._integer(schema)
        if kind == "number":
            return self._number(schema)
        if kind == "boolean":
            return self.rng.random() < 0.5
        if kind == "null":
            return None
        return self._string(schema, name)

    def _resolve(self, ref: Any) -> Any:
        if not isinstance(ref, str) or not ref.startswith("#/"):
            return {}
        node: Any = self.root
        for part in ref[2:].split("/"):
            node = node.get(part.replace("~1", "/").replace("~0", "~")) if isinstance(node, dict) else None
        return node if isinstance(node, dict) else {}

    def _object(self, schema: dict, depth: int) -> dict[str, Any]:
        properties = schema.get("properties") if isinstance(schema.get("properties"), dict) else {}
        required = set(schema.get("required") or []) if isinstance(schema.get("required"), list) else set()
        out: dict[str, Any] = {}
        for prop, sub in properties.items():
            if prop in required or self.all_properties or self.rng.random() < 0.5:
                out[prop] = self.value(sub, prop, depth + 1)
        for prop in required - set(out):
            out[str(prop)] = self._string({}, str(prop))
        return out

    def _array(self, schema: dict, name: str, depth: int) -> list[Any]:
        low = _int(schema.get("minItems"), 1 if not schema.get("minItems") == 0 else 0)
        high = max(low, _int(schema.get("maxItems"), max(low, 3)))
        count = self.rng.randint(max(low, min(1, high)), min(high, max(low, 3)))
        items = schema.get("items") if isinstance(schema.get("items"), dict) else {}
        values: list[Any] = []
        for _ in range(count * 3):
            if len(values) == count:
                break
            item = self.value(items, name.rstrip("s"), depth + 1)
            if not schema.get("uniqueItems") or item not in values:
                values.append(item)
        return values

    def _integer(self, schema: dict) -> int:
        low = schema.get("minimum", 0 if schema.get("maximum", 100) >= 0 else schema.get("maximum", 0) - 100)
        high = schema.get("maximum", max(low, 0) + 100)
        if "exclusiveMinimum" in schema and not isinstance(schema["exclusiveMinimum"], bool):
            low = max(low, schema["exclusiveMinimum"] + 1)
        if "exclusiveMaximum" in schema and not isinstance(schema["exclusiveMaximum"], bool):
            high = min(high, schema["exclusiveMaximum"] - 1)
        low, high = int(-(-low // 1)), int(high // 1)
        return self.rng.randint(low, high) if high >= low else low

    def _number(self, schema: dict) -> float:
        low = float(schema.get("minimum", schema.get("exclusiveMinimum", 0) or 0))
        high = float(schema.get("maximum", schema.get("exclusiveMaximum", low + 100) or low + 100))
        value = round(self.rng.uniform(low, high), 2)
        return min(max(value, low), high)

    def _string(self, schema: dict, name: str) -> str:
        fmt = schema.get("format")
        low_name = name.lower()
        if fmt == "date" or low_name.endswith("date"):
            text = f"2026-0{self.rng.randint(1, 9)}-{self.rng.randint(10, 28)}"
        elif fmt == "date-time":
            text = f"2026-07-{self.rng.randint(10, 28)}T{self.rng.randint(10, 23)}:00:00Z"
        elif fmt == "email" or "email" in low_name:
            text = "ada@example.com"
        elif fmt in ("uri", "url") or low_name in ("url", "uri", "link", "website"):
            text = "https://example.com/" + (self.words[0].lower() if self.words else "page")
        elif low_name in ("city", "location", "place", "town", "country", "region", "destination"):
            text = self._proper_noun() or "Paris"
        elif low_name in ("name", "first_name", "username", "person", "author"):
            text = self._proper_noun() or "Ada"
        elif low_name in ("query", "q", "search", "text", "topic", "prompt", "question", "subject", "title"):
            text = topic_of(self.prompt)
        elif low_name in ("unit", "units"):
            text = "celsius"
        elif low_name in ("language", "lang"):
            text = "en"
        elif low_name.endswith("id"):
            text = f"{low_name[:-2].strip('_') or 'item'}_{self.rng.randint(100, 999)}"
        else:
            text = self.rng.choice(self.words).lower() if self.words else "example"
        low_len, high_len = _int(schema.get("minLength"), 0), _int(schema.get("maxLength"), 10_000)
        if len(text) < low_len:
            text = (text + " " + "x" * low_len)[:max(low_len, 1)]
        return text[:high_len]

    def _proper_noun(self) -> str | None:
        names = re.findall(r"(?<![.!?]\s)(?<!^)\b([A-Z][a-z]{2,}(?:\s[A-Z][a-z]{2,})?)", self.prompt)
        return names[0] if names else None


def _int(value: Any, default: int) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else default


def _merge(left: dict[str, Any], right: dict[str, Any]) -> dict[str, Any]:
    merged = {**left, **right}
    if "properties" in left and "properties" in right:
        merged["properties"] = {**left["properties"], **right["properties"]}
    if "required" in left and "required" in right:
        merged["required"] = list({*left["required"], *right["required"]})
    return merged


def instance_of(schema: Any, rng: random.Random, prompt: str, *, all_properties: bool = False) -> Any:
    """A value conforming to ``schema`` (an object schema gives a dict)."""
    root = schema if isinstance(schema, dict) else {}
    return SchemaWriter(root, rng, prompt, all_properties=all_properties).value(root)
