"""A JSON Schema given in the prompt, for ``response_format: {"type": "json_object"}``.

How LangChain's ``json_mode`` (with a ``PydanticOutputParser``'s format instructions),
instructor's JSON and MD_JSON modes, pydantic-ai's ``PromptedOutput`` and the AI SDK's
``generateObject`` ask for structured output: the schema is written into a system or
user message, not sent as ``response_format.json_schema``. :func:`schema_in_messages`
finds it (the last schema-shaped JSON object of the latest message holding one), so
the synthetic model can answer an instance of it. Request reading only: the
instance itself comes from :func:`.schema_values.instance_of`.
"""

from __future__ import annotations

import json
import re
from typing import Any, Optional

from gatewaykit.emulator.chat.schema_checks import SchemaProblem, check_schema
from gatewaykit.emulator.chat.schema_size import check_answer_size
from gatewaykit.emulator.chat.tool_results import text_of

__all__ = ["asks_for_json_block", "schema_in_messages"]

_MAX_TEXT = 200_000  # past this a message is not searched (the scan tries every "{")
_SCHEMA_KEYS = ("properties", "$defs", "definitions", "anyOf", "oneOf", "allOf", "items")
_JSON_BLOCK = re.compile(r"```json|json code ?block", re.IGNORECASE)
_decoder = json.JSONDecoder()


def _schema_like(value: Any) -> bool:
    if not isinstance(value, dict):
        return False
    if value.get("type") in ("object", "array") or any(key in value for key in _SCHEMA_KEYS):
        return isinstance(value.get("properties", {}), dict)
    return False


def _unwrapped(value: dict[str, Any]) -> dict[str, Any]:
    """``{"name": ..., "schema": {...}}`` (a json_schema response format written out): the schema."""
    inner = value.get("schema") or value.get("json_schema")
    if isinstance(inner, dict) and not isinstance(value.get("properties"), dict):
        return _unwrapped(inner) if "schema" in inner else inner
    return value


def _schemas_in(text: str) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    position = text.find("{")
    while position >= 0:
        try:
            value, end = _decoder.raw_decode(text, position)
        except ValueError:
            position = text.find("{", position + 1)
            continue
        if isinstance(value, dict):
            candidate = _unwrapped(value)
            if _schema_like(candidate):
                found.append(candidate)
        position = text.find("{", end)
    return found


def schema_in_messages(messages: list[dict[str, Any]]) -> Optional[dict[str, Any]]:
    """The JSON Schema the latest system or user message holding one asks for, or None.

    A schema the offline model could not answer (malformed, too big) counts as none.
    """
    for message in reversed(messages):
        if message.get("role") not in ("system", "user", "developer"):
            continue
        text = text_of(message.get("content"))
        if "{" not in text or len(text) > _MAX_TEXT:
            continue
        for schema in reversed(_schemas_in(text)):
            try:
                check_schema(schema)
                check_answer_size(schema)
            except SchemaProblem:
                continue
            return schema
    return None


def asks_for_json_block(messages: list[dict[str, Any]]) -> bool:
    """A system or user message asks for the answer in a ```json code block (instructor's MD_JSON)."""
    return any(
        message.get("role") in ("system", "user", "developer") and _JSON_BLOCK.search(text_of(message.get("content")))
        for message in messages
    )
