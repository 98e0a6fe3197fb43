"""Python functions as chat tools: their JSON Schema, and running the calls a model makes.

A tool is a plain function (or an ``async def``) with a type hint on every
parameter; its docstring is the description. pydantic builds the parameter
schema from the signature (a ``create_model`` over the parameters), so
pydantic models, enums, ``Literal``, lists and defaults all work, and the same
model validates the model's arguments before the function runs.

Running a call never raises: an unknown tool, arguments that are not JSON, are
nested more than :data:`MAX_ARGUMENT_DEPTH` levels or do not validate, a refused approval and an exception inside the tool all become
the text of the tool message, so the model can read what went wrong.
"""

from __future__ import annotations

import functools
import inspect
import json
import re
import weakref
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Optional

import pydantic
from pydantic_core import PydanticSerializationError

__all__ = ["ToolCallOutcome", "ToolFunction", "Toolbox", "approval_of", "tool_from_function"]

_KINDS = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)


@dataclass(frozen=True)
class ToolFunction:
    """One Python function offered to the model as a tool."""

    name: str
    description: str
    function: Callable[..., Any]
    parameters: dict[str, Any]
    arguments_model: type[pydantic.BaseModel]
    is_async: bool

    def definition(self) -> dict[str, Any]:
        """The ``tools`` entry sent to the gateway."""
        function: dict[str, Any] = {"name": self.name, "parameters": self.parameters}
        if self.description:
            function["description"] = self.description
        return {"type": "function", "function": function}

    def bind(self, arguments_json: str) -> dict[str, Any]:
        """The keyword arguments for the function, validated (pydantic-model parameters become instances).

        ValueError for arguments that are not a JSON object, or nested deeper than
        :data:`MAX_ARGUMENT_DEPTH` (measured before parsing: a model's arguments are
        untrusted, and 100,000 nested brackets would exhaust Python's recursion).
        """
        depth = nesting_depth(arguments_json or "")
        if depth > MAX_ARGUMENT_DEPTH:
            raise ValueError(
                f"the arguments are nested {depth} levels deep; at most {MAX_ARGUMENT_DEPTH} are accepted. "
                "Call the tool again with arguments that match its parameters"
            )
        raw = json.loads(arguments_json) if arguments_json and arguments_json.strip() else {}
        if not isinstance(raw, dict):
            raise ValueError(f"arguments must be a JSON object, not {type(raw).__name__}")
        validated = self.arguments_model.model_validate(raw)
        return {name: getattr(validated, name) for name in type(validated).model_fields}


MAX_ARGUMENT_DEPTH = 200
"""How deeply a tool call's JSON arguments may nest (the offline gateway's request limit too)."""

_JSON_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.S)
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")


def nesting_depth(text: str) -> int:
    """The deepest ``[``/``{`` nesting in JSON text, brackets inside strings not counted (no parsing, no recursion)."""
    brackets = _NOT_BRACKET.sub("", _JSON_STRING.sub("", text))
    depth = deepest = 0
    for bracket in brackets:
        if bracket in "[{":
            depth += 1
            deepest = max(deepest, depth)
        else:
            depth = max(depth - 1, 0)
    return deepest


_BUILT: "weakref.WeakKeyDictionary[Any, ToolFunction]" = weakref.WeakKeyDictionary()


def tool_from_function(function: Any) -> ToolFunction:
    """A :class:`ToolFunction` for ``function``; TypeError when it cannot be offered as a tool.

    Plain functions are described once (building a pydantic model costs about a millisecond).
    """
    if isinstance(function, ToolFunction):
        return function
    if inspect.isfunction(function):
        built = _BUILT.get(function)
        if built is None:
            built = _BUILT[function] = _describe(function)
        return built
    return _describe(function)


def _describe(function: Any) -> ToolFunction:
    if not (inspect.isfunction(function) or inspect.ismethod(function)):
        raise TypeError(
            f"A tool must be a Python function with type hints, not {type(function).__name__} ({function!r}); "
            "wrap it in a def if needed"
        )
    name = function.__name__
    if name == "<lambda>":
        raise TypeError("A tool must be a named function (def), not a lambda: the model calls it by name")
    try:
        hints = _type_hints(function)
        signature = inspect.signature(function)
    except (NameError, TypeError, ValueError) as exc:
        raise TypeError(f"Tool {name!r}: cannot read its type hints ({exc})") from None
    fields: dict[str, Any] = {}
    for parameter in signature.parameters.values():
        if parameter.kind not in _KINDS:
            raise TypeError(f"Tool {name!r}: parameter {parameter.name!r} must be a plain or keyword parameter "
                            "(no *args, **kwargs or positional-only)")
        if parameter.name not in hints:
            raise TypeError(f"Tool {name!r}: give parameter {parameter.name!r} a type hint (the model needs its type)")
        default = ... if parameter.default is inspect.Parameter.empty else parameter.default
        fields[parameter.name] = (hints[parameter.name], default)
    try:
        model = pydantic.create_model(f"{name}_arguments", __config__=pydantic.ConfigDict(extra="forbid"), **fields)
        schema = model.model_json_schema()
    except (pydantic.PydanticSchemaGenerationError, pydantic.PydanticUserError, TypeError) as exc:
        raise TypeError(f"Tool {name!r}: an annotation has no JSON Schema ({exc}); use JSON-like types, "
                        "enums, Literal or pydantic models") from None
    schema.pop("title", None)
    return ToolFunction(
        name=name,
        description=inspect.cleandoc(function.__doc__ or ""),
        function=function,
        parameters=schema,
        arguments_model=model,
        is_async=inspect.iscoroutinefunction(function),
    )


def _type_hints(function: Any) -> dict[str, Any]:
    import typing

    return typing.get_type_hints(function, include_extras=True)


@dataclass
class ToolCallOutcome:
    """What became of one tool call: the tool message's text and how it went."""

    call_id: str
    name: str
    arguments: str
    content: str
    status: str  # ok | error | refused | unknown

    def message(self) -> dict[str, Any]:
        return {"role": "tool", "tool_call_id": self.call_id, "content": self.content}


def result_text(value: Any) -> str:
    """A tool's return value as the tool message's text (str as-is, pydantic models and data as JSON)."""
    if isinstance(value, str):
        return value
    if isinstance(value, pydantic.BaseModel):
        return value.model_dump_json()
    try:
        return _any_adapter().dump_json(value).decode()
    except (PydanticSerializationError, TypeError, ValueError):
        return str(value)


@functools.lru_cache(maxsize=1)
def _any_adapter() -> "pydantic.TypeAdapter[Any]":
    return pydantic.TypeAdapter(Any)  # built on first use: building it at import costs ~30 ms


def error_text(exc: BaseException) -> str:
    return f"Error: {type(exc).__name__}: {exc}"


class Toolbox:
    """The tools of a conversation, by name: their definitions, and what to run for a call."""

    def __init__(self, functions: Iterable[Any] = ()) -> None:
        if callable(functions) or isinstance(functions, (str, bytes)):
            raise TypeError("tools= takes a list of functions, e.g. tools=[get_weather]")
        self.tools: dict[str, ToolFunction] = {}
        for function in functions:
            tool = tool_from_function(function)
            if tool.name in self.tools:
                raise ValueError(f"Two tools are named {tool.name!r}: tool names must be unique")
            self.tools[tool.name] = tool
        self._definitions = [tool.definition() for tool in self.tools.values()]

    def __bool__(self) -> bool:
        return bool(self.tools)

    def definitions(self) -> list[dict[str, Any]]:
        return self._definitions

    def prepare(self, call: Any) -> tuple[Optional[ToolFunction], Any]:
        """``(tool, keyword arguments)`` to run, or ``(None, outcome)`` when the call ends before running."""
        call_id, name, arguments = call.id or "", call.function.name or "", call.function.arguments or ""
        tool = self.tools.get(name)
        if tool is None:
            known = ", ".join(self.tools) or "none"
            text = f"Error: there is no tool named {name!r}; the tools are: {known}"
            return None, ToolCallOutcome(call_id, name, arguments, text, "unknown")
        try:
            kwargs = tool.bind(arguments)
        except (ValueError, pydantic.ValidationError) as exc:
            text = f"Error: invalid arguments for {name}: {exc}"
            return None, ToolCallOutcome(call_id, name, arguments, text, "error")
        except RecursionError:  # a last guard: nesting the depth check let through (e.g. a deep default)
            text = f"Error: invalid arguments for {name}: they are nested too deeply to read"
            return None, ToolCallOutcome(call_id, name, arguments, text, "error")
        return tool, kwargs

    @staticmethod
    def refused(call: Any) -> ToolCallOutcome:
        name = call.function.name or ""
        text = f"The user did not approve this call of {name}; it was not run. Do not retry it."
        return ToolCallOutcome(call.id or "", name, call.function.arguments or "", text, "refused")


def approval_of(approve: Any) -> Optional[Callable[[str, dict[str, Any]], Any]]:
    """The approval callable for ``approve=``: None (run every call), a callable, or True (ask on the console)."""
    if approve is None or approve is False:
        return None
    if approve is True:
        return ask_on_console
    if callable(approve):
        return approve
    raise TypeError(f"approve= takes a callable (name, arguments) -> bool, or True to ask; not {approve!r}")


def ask_on_console(name: str, arguments: dict[str, Any]) -> bool:
    """Ask the person at the keyboard (or the notebook's input box) whether to run a tool call."""
    shown = json.dumps(arguments, default=str, ensure_ascii=False)
    answer = input(f"Run tool {name}({shown})? [y/N] ")
    return answer.strip().lower() in ("y", "yes")
