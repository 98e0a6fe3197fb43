"""A fingerprint of a checkpointed call: which function, what code, and the settings it visibly uses.

Stored beside each checkpointed result, so a re-run with another function, changed code or another
model is noticed (a ``CheckpointWarning``; those items run again) instead of returning old results.
It digests the compiled code and the plain values the function visibly reads (partial arguments,
scalar globals and closure variables); lists, dicts and other objects count by type only, so an
accumulator filling up never re-runs (and re-pays) everything. What goes in: ``docs/internals.md``.
"""

from __future__ import annotations

import functools
import hashlib
import inspect
import json
import re
import types
from typing import Any

__all__ = ["call_fingerprint"]

# The layer packages of client/ and notebook/ (pyproject's import contracts): a module's name leaves them
# out, so the fingerprint of the chat resource's code does not change when its module moves. A new layer package goes here.
_LAYER_PACKAGE = re.compile(
    r"^(gatewaykit\.(?:client|notebook))\.(?:core|resources|session_tools|displays|widgets|comparison_views"
    r"|chat_views|job_views|cell_output|html_views|markdown_html)\."
)

_DEPTH = 4


def call_fingerprint(call: Any, memo: dict[int, Any] | None = None) -> str:
    """A short stable digest of what ``call`` is and what it visibly uses."""
    described = _describe(call, 0, {} if memo is None else memo)
    text = json.dumps(described, sort_keys=True, ensure_ascii=True, default=repr)
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def _module_name(name: Any) -> str:
    """``name``, or for a module of gatewaykit's layer packages its name in the flat layout."""
    return _LAYER_PACKAGE.sub(r"\1.", name) if isinstance(name, str) else f"{name}"


def _type_name(value: Any) -> str:
    kind = type(value)
    return f"{_module_name(kind.__module__)}.{kind.__qualname__}"


def _describe(call: Any, depth: int, memo: dict[int, Any]) -> Any:
    if depth > _DEPTH:
        return {"deep": _type_name(call)}
    if id(call) in memo:
        return memo[id(call)]
    memo[id(call)] = {"cycle": _type_name(call)}
    if isinstance(call, functools.partial):
        found: Any = {
            "partial": _describe(call.func, depth + 1, memo),
            "args": [_value(arg, depth, memo, True) for arg in call.args],
            "keywords": {name: _value(arg, depth, memo, True) for name, arg in sorted(call.keywords.items())},
        }
    elif inspect.ismethod(call):
        found = {"method": _describe(call.__func__, depth + 1, memo), "of": _type_name(call.__self__)}
    elif isinstance(call, types.FunctionType):
        found = _function(call, depth, memo)
    elif isinstance(call, (types.BuiltinFunctionType, types.BuiltinMethodType, type)):
        found = {"builtin": f"{_module_name(getattr(call, '__module__', ''))}.{getattr(call, '__qualname__', repr(call))}"}
    else:  # a callable object: its class's __call__
        found = {"callable": _type_name(call), "call": _describe(getattr(type(call), "__call__", None), depth + 1, memo)}
    memo[id(call)] = found
    return found


def _function(function: types.FunctionType, depth: int, memo: dict[int, Any]) -> dict[str, Any]:
    code = function.__code__
    closure = {}
    for name, cell in zip(code.co_freevars, function.__closure__ or ()):
        try:
            closure[name] = _value(cell.cell_contents, depth, memo)
        except ValueError:  # an empty cell (a name assigned later)
            closure[name] = None
    names = sorted(_global_names(code))
    globals_used = {name: _value(function.__globals__[name], depth, memo) for name in names
                    if name in function.__globals__}  # fmt: skip
    return {
        "function": f"{_module_name(function.__module__)}.{function.__qualname__}",
        "code": _code_digest(code),
        "defaults": [_value(value, depth, memo, True) for value in function.__defaults__ or ()],
        "kwdefaults": {name: _value(value, depth, memo, True)
                       for name, value in sorted((function.__kwdefaults__ or {}).items())},  # fmt: skip
        "closure": closure,
        "globals": globals_used,
    }


@functools.lru_cache(maxsize=512)
def _global_names(code: types.CodeType) -> frozenset[str]:
    names = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names |= _global_names(const)
    return frozenset(names)


@functools.lru_cache(maxsize=512)
def _code_digest(code: types.CodeType) -> str:
    digest = hashlib.sha256(code.co_code)
    digest.update(repr(code.co_names).encode())
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            digest.update(_code_digest(const).encode())
        elif isinstance(const, frozenset):  # set order follows string hashing, which changes per process
            digest.update(repr(sorted(map(repr, const))).encode())
        else:
            digest.update(repr(const).encode())
    return digest.hexdigest()


def _plain(value: Any, containers: bool, depth: int = 0) -> bool:
    if value is None or type(value) in (bool, int, float, str):
        return True
    if depth > 20:
        return False
    if type(value) is tuple or containers and type(value) is list:
        return all(_plain(item, containers, depth + 1) for item in value)
    if containers and type(value) is dict:
        return all(type(key) is str and _plain(item, containers, depth + 1) for key, item in value.items())
    return False


def _value(value: Any, depth: int, memo: dict[int, Any], containers: bool = False) -> Any:
    """How ``value`` counts: plain data by a digest of its JSON, functions by their fingerprint, the rest by type.

    ``containers``: lists and dicts count as data too (partial arguments, defaults); closure
    variables and globals count only as scalars and tuples, since a list or dict there is often
    an accumulator the function fills (it must not re-run everything on the next run).
    """
    if _plain(value, containers):
        text = json.dumps(value, sort_keys=True, ensure_ascii=True, default=repr)
        return {"data": hashlib.sha256(text.encode()).hexdigest()[:16]}
    if isinstance(value, (types.FunctionType, functools.partial, types.MethodType)):
        return _describe(value, depth + 1, memo)
    if isinstance(value, types.ModuleType):
        return {"module": _module_name(value.__name__)}
    if isinstance(value, type):
        return {"class": f"{_module_name(value.__module__)}.{value.__qualname__}"}
    return {"object": _type_name(value)}
