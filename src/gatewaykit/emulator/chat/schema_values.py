"""Instances of a JSON Schema, for tool-call arguments and ``json_schema`` answers.

The value validates against the whole schema: ``type`` (lists, nullable), ``enum``/``const``,
``properties``/``required``/``additionalProperties``/``patternProperties``/``minProperties``/
``maxProperties``, ``items``/``prefixItems``/``contains``/``minItems``/``maxItems``/``uniqueItems``,
``minimum``/``maximum`` (and the exclusive forms, draft-4 booleans too), ``multipleOf``,
``minLength``/``maxLength``, ``pattern``, ``format`` (date, date-time, time, email, uri, uuid,
hostname, ipv4, ipv6), ``anyOf``/``oneOf``/``allOf``/``not`` and local ``$ref`` (``#/$defs/...``,
``#/definitions/...``, ``#``). Values are plausible for the field's name (see :mod:`.field_values`).
Call :func:`.schema_checks.check_schema` first: it rejects malformed and oversized schemas.
``oneOf`` answers match exactly one option and ``not`` is honoured: see :mod:`.exclusive_choice`.
"""

from __future__ import annotations

import math
import random
import re
from typing import Any

from gatewaykit.emulator.chat.exclusive_choice import ExclusiveChoice, OptionsOverlap, field_label
from gatewaykit.emulator.chat.field_values import (WORDS, NumberSense, counted_thing, normal_name, number_sense,
                                                   prompt_names, string_for, takes_count)
from gatewaykit.emulator.chat.regex_strings import PatternError, string_matching
from gatewaykit.emulator.chat.schema_checks import MAX_ANSWER_CHARS, MAX_VALUES, SchemaProblem
from gatewaykit.emulator.chat.schema_match import SchemaMatcher
from gatewaykit.emulator.chat.schema_merge import merge_schemas, natural_range, number_bounds
from gatewaykit.emulator.chat.world import kind_of, place_record, record_for

#: Past this $ref/nesting depth the writer takes the smallest choices (null, fewest items) to end recursion.
_SHALLOW = 6
_NUMBER = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?(?!\w|\.\d)")
_MAX_DEPTH = 48


class SchemaWriter(ExclusiveChoice):
    def __init__(self, root: dict[str, Any], rng: random.Random, prompt: str, *, all_properties: bool,
                 prompt_numbers: bool = False, subject: str = "") -> None:
        self.root = root
        #: What the answer describes (a json_schema's ``name``, a tool's name); objects take real values for it.
        self.subject = subject
        #: The record (a real city, a country) whose values the object being written takes, innermost last.
        self.records: list[dict[str, Any] | None] = []
        self.rng = rng
        self.prompt = prompt
        self.names = prompt_names(prompt)
        # Tool arguments take the numbers the user wrote, in order (``convert 98.6 F`` calls with 98.6), where they
        # make sense: (number, what it counts or None) per number ("3 cities" counts cities: no population).
        self.numbers = [(float(m.group()), counted_thing(prompt, m.end(), float(m.group())))
                        for m in _NUMBER.finditer(prompt)] if prompt_numbers else []
        self.all_properties = all_properties
        self.values = 0
        self.chars = 0
        self.matcher = SchemaMatcher(root)
        self.retries = 0
        #: The retry number while retrying for ``oneOf``/``not`` (0 otherwise): free choices (anyOf option, type
        #: lists, optional properties, words, numbers: first the range's edges) vary.
        self.varied = 0

    def value(self, schema: Any, name: str = "", depth: int = 0) -> Any:
        self.values += 1
        if self.values > MAX_VALUES:
            raise SchemaProblem("", f"the answer would hold more than {MAX_VALUES:,} values; lower minItems "
                                    "(nested minItems multiply)")
        if self.chars > MAX_ANSWER_CHARS:
            raise SchemaProblem("", f"the answer would be longer than {MAX_ANSWER_CHARS:,} characters; lower "
                                    "minItems or minLength")
        if depth > _MAX_DEPTH:
            raise SchemaProblem("", "the schema recurses without a way out (a required $ref cycle)")
        if schema is True or schema == {} or not isinstance(schema, dict):
            return self._string({}, name)
        if "$ref" in schema:
            rest = {k: v for k, v in schema.items() if k != "$ref"}
            return self.value(merge_schemas(self._resolve(schema["$ref"]), rest), name, depth + 1)
        if "allOf" in schema:
            merged = {k: v for k, v in schema.items() if k != "allOf"}
            for part in schema["allOf"]:
                if isinstance(part, dict):
                    merged = merge_schemas(merged, self._resolve(part["$ref"]) if "$ref" in part else part)
            return self.value(merged, name, depth + 1)
        if "not" in schema:
            rest = {k: v for k, v in schema.items() if k != "not"}
            found, value = self._avoiding(rest, [schema["not"]], name, depth)
            if not found:
                raise OptionsOverlap("", f"no value for {field_label(name)} was found that its 'not' schema rejects; "
                                         "loosen the 'not' or tighten the rest of the schema")
            return value
        if isinstance(schema.get("oneOf"), list):
            return self._one_of(schema, name, depth)
        if "const" in schema:
            return schema["const"]
        if isinstance(schema.get("enum"), list) and schema["enum"]:
            return self.rng.choice(schema["enum"])
        if isinstance(schema.get("anyOf"), list):
            rest = {k: v for k, v in schema.items() if k != "anyOf"}
            options = schema["anyOf"]  # a retry takes each option in turn
            option = options[self.varied % len(options)] if self.varied else self._option(options, depth)
            return self.value(merge_schemas(rest, option if isinstance(option, dict) else {}), name, depth + 1)
        kind = schema.get("type")
        if isinstance(kind, list) and self.varied:
            kind = kind[self.varied % len(kind)]
        elif isinstance(kind, list):
            real = [k for k in kind if k != "null"]
            kind = (real[0] if real and depth <= _SHALLOW * 2 else "null") if real else "null"
        if kind is None:
            kind = ("object" if {"properties", "required", "additionalProperties"} & set(schema) else
                    "array" if {"items", "prefixItems", "minItems"} & set(schema) else
                    "number" if {"minimum", "maximum", "multipleOf"} & set(schema) else "string")
        writer = {"object": self._object, "array": self._array, "integer": self._integer, "number": self._number,
                  "boolean": lambda s, n, d: self.rng.random() < 0.5, "null": lambda s, n, d: None}
        return writer.get(kind, lambda s, n, d: self._string(s, n))(schema, name, depth)

    def _option(self, options: list[Any], depth: int) -> Any:
        def is_null(option: Any) -> bool:
            return isinstance(option, dict) and option.get("type") == "null"

        if depth > _SHALLOW:
            simple = [o for o in options if is_null(o)] or [o for o in options
                                                             if isinstance(o, dict) and "$ref" not in o]
            if simple:
                return simple[0]
        non_null = [o for o in options if not is_null(o)]
        return (non_null or options)[0]

    def _resolve(self, ref: Any) -> dict[str, Any]:
        if not isinstance(ref, str) or not ref.startswith("#"):
            return {}
        node: Any = self.root
        for part in [p for p in ref[1:].split("/") if p]:
            node = node.get(part.replace("~1", "/").replace("~0", "~")) if isinstance(node, dict) else None
        return node if isinstance(node, dict) else {}

    def _record(self, schema: dict, name: str, depth: int) -> dict[str, Any] | None:
        """A real place for an object that describes one (by its title, its field name, the subject, the
        prompt), or that holds a city and a country; None otherwise."""
        properties = schema.get("properties") or {}
        named = [h for h in (schema.get("title"), name, self.subject if depth == 0 else "") if isinstance(h, str) and h]
        kind = kind_of(*named) if named else kind_of(self.prompt) if depth == 0 else None
        if kind and {"name", "city", "country", "population", "capital"} & {normal_name(p) for p in properties}:
            return record_for(kind, self.rng, self.prompt, self.names)
        if {"city", "country"} <= {normal_name(p) for p in properties}:
            return place_record(self.rng, self.names)
        return None

    def _from_record(self, name: str) -> Any:
        record = self.records[-1] if self.records else None
        return None if record is None else record.get(normal_name(name))

    def _object(self, schema: dict, name: str, depth: int) -> dict[str, Any]:
        self.records.append(self._record(schema, name, depth))
        try:
            return self._object_values(schema, name, depth)
        finally:
            self.records.pop()

    def _object_values(self, schema: dict, name: str, depth: int) -> dict[str, Any]:
        properties = schema.get("properties") or {}
        required = list(schema.get("required") or [])
        extra = schema.get("additionalProperties", True)
        most = schema.get("maxProperties", math.inf)
        out: dict[str, Any] = {}
        for prop in required:
            out[prop] = self.value(properties.get(prop, extra if isinstance(extra, dict) else {}), prop, depth + 1)
        for prop, sub in properties.items():
            if prop not in out and len(out) < most and (self.all_properties and depth <= _SHALLOW and not self.varied
                                                       or self.rng.random() < 0.5 and depth <= _SHALLOW):
                out[prop] = self.value(sub, prop, depth + 1)
        patterns = schema.get("patternProperties") or {}
        number = 1
        while len(out) < schema.get("minProperties", 0) and number < 10 * (len(out) + 10):
            if patterns:
                pattern, sub = list(patterns.items())[number % len(patterns)]
                key = self._pattern_string(pattern, 0, None)
            elif extra is not False:
                key, sub = f"extra_{number}", extra if isinstance(extra, dict) else {}
            else:
                remaining = [prop for prop in properties if prop not in out]
                if not remaining:
                    break
                key, sub = remaining[0], properties[remaining[0]]
            if key not in out:
                out[key] = self.value(sub, key, depth + 1)
            number += 1
        return out

    def _array(self, schema: dict, name: str, depth: int) -> list[Any]:
        low = schema.get("minItems", 0)
        high = schema.get("maxItems", math.inf)
        prefix = schema.get("prefixItems") or (schema["items"] if isinstance(schema.get("items"), list) else [])
        items = schema.get("items") if isinstance(schema.get("items"), (dict, bool)) else {}
        if items is False:
            high = min(high, len(prefix))
        natural = 0 if depth > _SHALLOW else self.rng.randint(1, 3)
        count = int(min(high, max(low, natural, 1 if "contains" in schema else 0)))
        item_name = singular(name)
        values: list[Any] = []
        attempts = 0
        while len(values) < count and attempts < count * 10 + 20:
            attempts += 1
            sub = prefix[len(values)] if len(values) < len(prefix) else items
            if len(values) == 0 and "contains" in schema and not prefix:
                sub = schema["contains"]
            item = self.value(sub, item_name, depth + 1)
            if schema.get("uniqueItems") and item in values:
                continue
            values.append(item)
        return values

    def _number(self, schema: dict, name: str, depth: int, integer: bool = False) -> float | int:
        low, low_ex, high, high_ex = number_bounds(schema)
        sense = number_sense(name) or NumberSense((0, 100), (-math.inf, math.inf), 2)
        if integer and sense.typical[1] <= 1:  # a whole-number probability or share is a percentage
            sense = NumberSense((5, 95), (0, 100))
        natural = (-10**6, 10**6) if self.varied and self.rng.random() < 0.5 else sense.typical
        lowest, highest = max(low, sense.plausible[0]), min(high, sense.plausible[1])
        if lowest <= highest and not self.varied:  # within what makes sense for the name, if the schema allows
            start, stop = natural_range(natural, lowest, highest)
        else:  # a retry (oneOf, not) may need any number the schema allows, fractions too
            start, stop = natural_range(natural, low, high)
        whole = integer or (sense.decimals == 0 and not self.varied)

        def fits(v: float) -> bool:
            ok = (v > low if low_ex else v >= low) and (v < high if high_ex else v <= high)
            step = schema.get("multipleOf")
            if step and ok:
                quotient = v / step
                ok = quotient == int(quotient) if math.isfinite(quotient) else False
            return ok and (not integer or float(v).is_integer())

        edges = [e for e in (high, low, high - 1, low + 1) if math.isfinite(e)]
        if 0 < self.varied <= len(edges):  # a retry tries the range's edges first (not: {enum: [...]} and the like)
            edge = (math.floor if self.varied % 2 else math.ceil)(edges[self.varied - 1])
            if fits(edge):
                return edge
        for entry in [] if self.varied else self.numbers:  # "1 large city" gives no population of 1
            given, thing = entry
            if fits(given) and sense.plausible[0] <= given <= sense.plausible[1] and (
                    thing is None or takes_count(name, thing)):
                self.numbers.remove(entry)
                return int(given) if integer or given.is_integer() else given
        known = None if self.varied else self._from_record(name)
        if isinstance(known, (int, float)) and not isinstance(known, bool) and fits(known):
            return int(known) if integer else known
        step = schema.get("multipleOf")
        for _ in range(60):
            if step:
                k = self.rng.randint(math.ceil(start / step), max(math.ceil(start / step), math.floor(stop / step)))
                v: float = k * step if isinstance(step, int) else round(k * step, 12)
            elif whole and math.floor(stop) >= math.ceil(start):
                v = self.rng.randint(math.ceil(start), math.floor(stop))
            else:
                v = round(self.rng.uniform(start, stop), sense.decimals or 2)  # whole: no whole number fits
            if fits(v):
                return int(v) if whole and float(v).is_integer() else v
        for v in (0, math.ceil(low) + 1, math.ceil(low), math.floor(high) - 1, (low + high) / 2):
            if math.isfinite(v) and fits(v):
                return int(v) if integer else v
        if step:
            k = math.ceil(low / step)
            while k * step <= high and not fits(k * step) and k < math.ceil(low / step) + 50:
                k += 1
            return int(k * step) if integer else k * step
        return int(start) if integer else start

    def _integer(self, schema: dict, name: str, depth: int) -> int:
        return int(self._number(schema, name, depth, integer=True))

    def _pattern_string(self, pattern: str, low: int, high: int | None) -> str:
        try:
            return string_matching(pattern, self.rng, low, high)
        except PatternError as exc:
            raise SchemaProblem("", str(exc)) from None

    def _string(self, schema: dict, name: str) -> str:
        low, high = schema.get("minLength", 0), schema.get("maxLength")
        if isinstance(schema.get("pattern"), str):
            text = self._pattern_string(schema["pattern"], low, high)
        else:
            known = None if self.varied or schema.get("format") else self._from_record(name)
            text = known if isinstance(known, str) else string_for(name, schema.get("format"), self.rng,
                                                                    self.names, self.prompt)
            if self.varied and not schema.get("format") and self.rng.random() < 0.5:
                text = " ".join(self.rng.choice(WORDS) for _ in range(self.rng.randint(0, 3)))
            while len(text) < low:
                text += " " + self.rng.choice(WORDS)
            if len(text) > low and low:
                text = text[:max(low, len(text.rstrip()))]
            if high is not None and len(text) > high:
                text = text[:high].rstrip() if len(text[:high].rstrip()) >= low else text[:high]
        self.chars += len(text)
        return text


def singular(name: str) -> str:
    """The name of one item of a list field: ``cities`` → ``city``, ``prices`` → ``price``, ``address`` stays."""
    if len(name) <= 3 or not name.endswith("s") or name.endswith("ss"):
        return name
    if name.endswith("ies"):
        return name[:-3] + "y"
    return name[:-1]


def instance_of(schema: Any, rng: random.Random, prompt: str, *, all_properties: bool = False,
                prompt_numbers: bool = False, subject: str = "") -> Any:
    """A value conforming to ``schema`` (an object schema gives a dict); check it with ``check_schema`` first.

    ``subject`` (a json_schema's name) says what the answer describes: a ``city`` gets a real city's values."""
    root = schema if isinstance(schema, dict) else {}
    return SchemaWriter(root, rng, prompt, all_properties=all_properties, prompt_numbers=prompt_numbers,
                        subject=subject).value(root)
