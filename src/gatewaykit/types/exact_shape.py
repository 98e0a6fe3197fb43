"""Reading an answer in the spec's exact shape without the tolerant rules, the same value, faster.

The answer types read plausible variants of the spec's shapes through
before-validators (:mod:`gatewaykit.types.lenient`). Pydantic calls each of
them in Python, for every object of every answer, and in JSON mode hands them
the body converted to Python first: for a streamed chunk that is most of its
cost. A body in the spec's exact shape never needs them, because every rule
either rewrites a value the exact shape refuses (a ``null`` where the spec has
a number, string, list or object; a number where it has a cost object; an
object or ``null`` where it has a string; a list of parts where it has a
string) or, for ``reasoning_content``, is looked for by name.

So :func:`read_json` first validates with a copy of the type's schema that has
no before-validators (its objects are still instances of the real types); a
body that copy refuses, or that names ``reasoning_content``, is read by the
type itself, rules and all. :data:`TOLERANT_RULES` names every rule the copy
leaves out; a test keeps it equal to what the schemas hold, so a new rule is
reviewed against the argument above before it can be skipped.
"""

from __future__ import annotations

from typing import Any, Callable, TypeVar, Union

from pydantic import BaseModel, ValidationError
from pydantic_core import SchemaValidator

__all__ = ["TOLERANT_RULES", "before_validators", "read_json"]

M = TypeVar("M", bound=BaseModel)

TOLERANT_RULES = frozenset(
    {
        "ChatCompletion._null_fields", "Choice._null_fields", "ChatMessage._foreign_shapes",
        "ChatCompletionChunk._null_fields", "ChunkChoice._null_fields", "Delta._reasoning_content",
        "ToolCall._null_function", "FunctionCall._object_arguments", "Usage._null_counts", "Usage._cost_as_number",
    }
)  # fmt: skip
"""``Type.validator`` of every before-validator :func:`read_json` may skip (see the module's docstring)."""

_exact: dict[type, Callable[[Any], Any]] = {}


def read_json(model_type: type[M], data: Union[str, bytes]) -> M:
    """``model_type.model_validate_json(data)``: the same value or the same error, without the tolerant
    rules when the body is in the spec's exact shape (``model_type``: a chat answer or chunk)."""
    validate = _exact.get(model_type)
    if validate is None:
        validate = _exact[model_type] = _exact_validator(model_type)
    aliased = "reasoning_content" in data if isinstance(data, str) else b"reasoning_content" in data
    if not aliased:
        try:
            return validate(data)  # type: ignore[no-any-return]
        except ValidationError:
            pass  # a variant (or not an answer at all): the type's own rules read it, or say why not
    return model_type.model_validate_json(data)


def before_validators(model_type: type[BaseModel]) -> set[str]:
    """``Type.validator`` of each before-validator in ``model_type``'s schema."""
    found: set[str] = set()

    def visit(node: Any) -> None:
        if isinstance(node, dict):
            if node.get("type") == "function-before":
                function = node["function"]["function"]
                found.add(f"{function.__self__.__name__}.{function.__name__}")
            for value in node.values():
                visit(value)
        elif isinstance(node, list):
            for value in node:
                visit(value)

    visit(_core_schema(model_type))
    return found


def _exact_validator(model_type: type[BaseModel]) -> Callable[[Any], Any]:
    skipped = before_validators(model_type) - TOLERANT_RULES
    if skipped:  # a rule nobody checked against the argument above: never skip it
        return model_type.model_validate_json
    return SchemaValidator(_without_before_validators(_core_schema(model_type))).validate_json  # type: ignore[arg-type]


def _core_schema(model_type: type[BaseModel]) -> Any:
    if not model_type.__pydantic_complete__:  # the types are built on first use (defer_build)
        model_type.model_rebuild()
    return model_type.__pydantic_core_schema__


def _without_before_validators(node: Any) -> Any:
    if isinstance(node, dict):
        if node.get("type") == "function-before":
            return _without_before_validators(node["schema"])
        return {key: _without_before_validators(value) for key, value in node.items()}
    if isinstance(node, list):
        return [_without_before_validators(value) for value in node]
    return node
