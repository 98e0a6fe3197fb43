"""Reading what real OpenAI-compatible servers send, not only what the spec says.

Before-validators shared by the answer types turn a plausible variant of a field into the spec's shape,
keeping every unknown field; what no rule reads still fails validation, which the client reports as
:class:`gatewaykit.UnexpectedResponseError`. Each variant read has a test in
``tests/client/foreign_shapes``; the list: ``docs/internals.md``.
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["cost_from_number", "drop_nulls", "json_arguments", "reasoning_from_alias", "text_from_parts"]


def drop_nulls(value: Any, fields: tuple[str, ...]) -> Any:
    """``value`` without the ``fields`` that are ``null``: they take their defaults."""
    if isinstance(value, dict):
        for name in fields:  # a loop, not any(generator): this runs for every streamed chunk
            if value.get(name, 0) is None:
                return {key: item for key, item in value.items() if not (item is None and key in fields)}
    return value


def cost_from_number(value: Any) -> Any:
    """``usage.cost`` as a bare number (or numeric string) reads as ``{"total_cost": number}``."""
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, float)):
        return {"total_cost": value}
    if isinstance(value, str):
        try:
            return {"total_cost": float(value)}
        except ValueError:
            return value
    return value


def reasoning_from_alias(value: Any) -> Any:
    """``reasoning_content`` (DeepSeek style) read as ``reasoning`` when ``reasoning`` is absent; both are kept."""
    if isinstance(value, dict) and "reasoning_content" in value and value.get("reasoning") is None:
        alias = value["reasoning_content"]
        if isinstance(alias, str):
            return {**value, "reasoning": alias}
    return value


def json_arguments(value: Any) -> Any:
    """A function call whose ``arguments`` is an object: the JSON string the spec has."""
    if isinstance(value, dict):
        arguments = value.get("arguments")
        if isinstance(arguments, (dict, list)):
            return {**value, "arguments": json.dumps(arguments)}
        if arguments is None and "arguments" in value:
            return {**value, "arguments": ""}
    return value


def text_from_parts(value: Any) -> Any:
    """A message whose ``content`` is a list of ``{"type": "text", "text": ...}`` parts: their joined text."""
    if isinstance(value, dict) and isinstance(value.get("content"), list):
        parts = value["content"]
        if all(isinstance(part, dict) and isinstance(part.get("text"), str) for part in parts):
            return {**value, "content": "".join(part["text"] for part in parts), "content_parts": parts}
    return value
