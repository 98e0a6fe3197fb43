"""Readers for request fields: each checks one rule and raises a 400 naming the field.

Integers follow JSON Schema's ``"type": "integer"`` (:mod:`gatewaykit.request_numbers`, the
rule the classroom prices by too): a number with a zero fractional
part (``6.0``) is the integer 6 and is used as such everywhere (enum checks included,
so ``sample_rate: 44100.0`` renders at 44100 and ``duration: 6.0`` reports
``seconds: "6"``). Booleans, strings and fractional numbers are not integers.
"""

from __future__ import annotations

from typing import Any, Iterable, overload

from gatewaykit.request_numbers import as_integer, integral
from gatewaykit.serving.errors import bad_request


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and value == value


def require_str(body: dict, name: str, *, allow_empty: bool = False) -> str:
    value = body.get(name)
    if value is None:
        raise bad_request(f"Missing required field '{name}'.", param=name)
    if not isinstance(value, str):
        raise bad_request(f"'{name}' must be a string.", param=name)
    if not allow_empty and not value.strip():
        raise bad_request(f"'{name}' must not be empty.", param=name)
    return value


def opt_str(body: dict, name: str, *, max_length: int | None = None) -> str | None:
    value = body.get(name)
    if value is None:
        return None
    if not isinstance(value, str):
        raise bad_request(f"'{name}' must be a string.", param=name)
    if max_length is not None and len(value) > max_length:
        raise bad_request(f"'{name}' is {len(value)} characters; the maximum is {max_length}.", param=name)
    return value


def opt_bool(body: dict, name: str, default: bool | None = None) -> bool | None:
    value = body.get(name)
    if value is None:
        return default
    if not isinstance(value, bool):
        raise bad_request(f"'{name}' must be true or false.", param=name)
    return value


@overload
def opt_int(body: dict, name: str, low: int | None = None, high: int | None = None, *,
            default: int) -> int: ...


@overload
def opt_int(body: dict, name: str, low: int | None = None, high: int | None = None,
            default: None = None) -> int | None: ...


def opt_int(body: dict, name: str, low: int | None = None, high: int | None = None,
            default: int | None = None) -> int | None:
    """``body[name]`` as an integer within ``low``..``high``; ``default`` when absent (so never None with one)."""
    given = body.get(name)
    if given is None:
        return default
    value = as_integer(given)
    if value is None:
        raise bad_request(f"'{name}' must be an integer{_bounds(low, high)}.", param=name)
    if (low is not None and value < low) or (high is not None and value > high):
        raise bad_request(f"'{name}' must be an integer{_bounds(low, high)}; got {value}.", param=name)
    return value


def opt_number(body: dict, name: str, low: float, high: float) -> float | None:
    value = body.get(name)
    if value is None:
        return None
    if not _is_number(value):
        raise bad_request(f"'{name}' must be a number{_bounds(low, high)}.", param=name)
    if not low <= value <= high:
        raise bad_request(f"'{name}' must be a number{_bounds(low, high)}; got {value}.", param=name)
    return float(value)


def opt_enum(body: dict, name: str, values: Iterable[Any], default: Any = None) -> Any:
    value = body.get(name)
    allowed = list(values)
    if value is None:
        return default
    if any(_is_int(choice) for choice in allowed):
        value = integral(value)
    if isinstance(value, bool) or not any(type(value) is type(choice) and value == choice for choice in allowed):
        shown = ", ".join(str(v) for v in allowed)
        raise bad_request(f"'{name}' must be one of: {shown}; got {value!r}.", param=name)
    return value


def opt_seed(body: dict, name: str = "seed") -> int | None:
    return opt_int(body, name, -(2**63), 2**64 - 1)


def _bounds(low: float | None, high: float | None) -> str:
    if low is not None and high is not None:
        return f" from {low:g} to {high:g}"
    if low is not None:
        return f" >= {low:g}"
    if high is not None:
        return f" <= {high:g}"
    return ""
