"""Structured output: a pydantic model (or a JSON Schema) as ``response_format``, the reply validated.

``client.chat.completions.parse(..., response_format=Model)`` sends a ``json_schema`` (made strict for a
pydantic model) and returns the ``ChatCompletion`` with ``choices[0].message.parsed`` set (openai's
shape); a reply that does not validate raises :class:`StructuredOutputError`, after ``retries=N``
re-asks. The retry loop is a sans-I/O flow (:func:`parse_flow`). Details: ``docs/internals.md``.
"""

from __future__ import annotations

import copy
import inspect
import json
import re
from dataclasses import dataclass
from typing import Any, Generator, Optional

import pydantic

from gatewaykit.errors import StructuredOutputError
from gatewaykit.types import ChatCompletion

__all__ = ["Ask", "OutputSchema", "parse_flow", "strict_schema"]


@dataclass
class Ask:
    """One chat request a flow wants sent: the messages and the other fields (an instruction to a driver)."""

    messages: list[dict[str, Any]]
    fields: dict[str, Any]

_MAX_ERRORS_SHOWN = 8


class OutputSchema:
    """What a reply must match: a pydantic model class, or a JSON Schema dict."""

    def __init__(self, response_format: Any) -> None:
        self.model: Optional[type[pydantic.BaseModel]] = None
        if inspect.isclass(response_format) and issubclass(response_format, pydantic.BaseModel):
            self.model = response_format
            self.name = _schema_name(response_format.__name__)
            self.schema = response_format.model_json_schema()
        elif isinstance(response_format, dict):
            if response_format.get("type") == "json_schema" and isinstance(response_format.get("json_schema"), dict):
                spec = response_format["json_schema"]
                self.schema, self.name = spec.get("schema"), _schema_name(str(spec.get("name") or "response"))
                self._strict = spec.get("strict")
            else:
                self.schema, self.name, self._strict = response_format, _schema_name(str(response_format.get("title") or "response")), None
            if not isinstance(self.schema, dict) or not _looks_like_schema(self.schema):
                raise ValueError(
                    "response_format must be a pydantic model class or a JSON Schema dict (with 'type', "
                    f"'properties', '$ref' or 'anyOf'), not {response_format!r}"
                )
        else:
            raise TypeError(
                "response_format must be a pydantic model class (class Answer(BaseModel): ...) or a JSON Schema "
                f"dict, not {type(response_format).__name__}"
            )

    def response_format(self, strict: bool = True) -> dict[str, Any]:
        """The ``response_format`` field to send."""
        if self.model is not None:
            schema = strict_schema(self.schema) if strict else self.schema
            spec: dict[str, Any] = {"name": self.name, "schema": schema, "strict": strict}
        else:
            spec = {"name": self.name, "schema": self.schema}
            if self._strict is not None:
                spec["strict"] = self._strict
        return {"type": "json_schema", "json_schema": spec}

    def validate(self, text: str) -> Any:
        """The validated value of a reply's text; StructuredOutputError (without a completion) when it fails."""
        if self.model is not None:
            try:
                return self.model.model_validate_json(text)
            except pydantic.ValidationError as exc:
                errors: list[dict[str, Any]] = [dict(e) for e in exc.errors(include_url=False, include_context=False)]
                raise StructuredOutputError(
                    f"The reply does not match {self.model.__name__}: {_summary(errors)}", raw=text, errors=errors
                ) from None
        try:
            value = json.loads(text)
        except ValueError as exc:
            invalid = [{"type": "json_invalid", "loc": (), "msg": str(exc)}]
            raise StructuredOutputError(f"The reply is not JSON: {exc}", raw=text, errors=invalid) from None
        mismatches = _jsonschema_errors(self.schema, value)
        if mismatches:
            raise StructuredOutputError(
                f"The reply does not match the schema: {_summary(mismatches)}", raw=text, errors=mismatches
            )
        return value


def _schema_name(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_-]", "_", name)[:64] or "response"


def _looks_like_schema(schema: dict[str, Any]) -> bool:
    return any(key in schema for key in ("type", "properties", "$ref", "anyOf", "oneOf", "allOf", "enum"))


def _jsonschema_errors(schema: dict[str, Any], value: Any) -> list[dict[str, Any]]:
    try:
        import jsonschema
    except ImportError:  # validated as JSON only
        return []
    validator = jsonschema.validators.validator_for(schema)(schema)
    return [
        {"type": "schema", "loc": tuple(error.absolute_path), "msg": error.message}
        for error in validator.iter_errors(value)
    ]


def _summary(errors: list[dict[str, Any]]) -> str:
    lines = []
    for error in errors[:_MAX_ERRORS_SHOWN]:
        where = ".".join(str(part) for part in error.get("loc") or ()) or "(the whole value)"
        lines.append(f"{where}: {error.get('msg')}")
    more = len(errors) - _MAX_ERRORS_SHOWN
    return "; ".join(lines) + (f"; and {more} more" if more > 0 else "")


def strict_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """A copy of ``schema`` in the strict form: objects closed, every property required, null defaults dropped,
    ``$ref`` with sibling keys inlined."""
    root = copy.deepcopy(schema)
    _make_strict(root, root)
    return root


def _make_strict(node: Any, root: dict[str, Any]) -> None:
    if isinstance(node, list):
        for item in node:
            _make_strict(item, root)
        return
    if not isinstance(node, dict):
        return
    ref = node.get("$ref")
    if isinstance(ref, str) and len(node) > 1 and ref.startswith("#/"):
        target: Any = root
        for part in ref[2:].split("/"):
            target = target[part]
        del node["$ref"]
        for key, value in copy.deepcopy(target).items():
            node.setdefault(key, value)
    if node.get("type") == "object" or "properties" in node:
        node.setdefault("additionalProperties", False)
        properties = node.get("properties")
        if isinstance(properties, dict):
            node["required"] = list(properties)
    if "default" in node and node["default"] is None:
        del node["default"]
    for key in ("properties", "$defs", "definitions", "patternProperties"):
        children = node.get(key)
        if isinstance(children, dict):
            for child in children.values():
                _make_strict(child, root)
    for key in ("items", "anyOf", "allOf", "oneOf", "prefixItems", "additionalProperties", "not"):
        if key in node:
            _make_strict(node[key], root)


def supports_strict(entry: Any) -> bool:
    """Whether a catalog entry allows strict structured output (unknown models: yes)."""
    features = (getattr(entry, "model_extra", None) or {}).get("features") if entry is not None else None
    if not isinstance(features, dict):
        return True
    for name in ("structured_outputs", "json_schema", "json_mode"):
        if features.get(name) is False:
            return False
    return True


def _retry_prompt(error: StructuredOutputError) -> str:
    return (
        "Your reply did not match the required JSON schema: " + _summary(error.errors)
        + ". Reply again with only the JSON value, matching the schema exactly."
    )


ParseFlow = Generator[Ask, ChatCompletion, ChatCompletion]


def parse_flow(messages: list[Any], output: OutputSchema, fields: dict[str, Any], retries: int) -> ParseFlow:
    """Ask, validate, re-ask up to ``retries`` times; the completion with ``message.parsed`` set."""
    conversation = list(messages)
    for attempt in range(retries + 1):
        completion = yield Ask(conversation, fields)
        message = completion.choices[0].message if completion.choices else None
        if message is not None and message.refusal and not message.content:
            message.parsed = None  # openai's shape: a refusal has no parsed value
            return completion
        text = (message.content if message is not None else None) or ""
        try:
            parsed = output.validate(text)
        except StructuredOutputError as error:
            error.completion, error.attempts = completion, attempt + 1
            if attempt == retries:
                raise
            conversation = conversation + [
                {"role": "assistant", "content": text},
                {"role": "user", "content": _retry_prompt(error)},
            ]
            continue
        assert message is not None
        message.parsed = parsed
        return completion
    raise AssertionError("unreachable")  # pragma: no cover


def check_retries(retries: Any) -> int:
    if isinstance(retries, bool) or not isinstance(retries, int) or retries < 0:
        raise ValueError(f"retries= must be a whole number >= 0, not {retries!r}")
    return retries
