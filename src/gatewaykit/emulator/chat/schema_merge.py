"""Schema arithmetic for the value writer: merging two schemas' constraints, number bounds and ranges."""

from __future__ import annotations

import math
from typing import Any

_MIN_KEYS = ("minimum", "exclusiveMinimum", "minLength", "minItems", "minProperties")
_MAX_KEYS = ("maximum", "exclusiveMaximum", "maxLength", "maxItems", "maxProperties")


def merge_schemas(left: dict[str, Any], right: dict[str, Any]) -> dict[str, Any]:
    """Both schemas' constraints in one (the tighter bound wins)."""
    merged = {**left, **right}
    for key in ("properties", "patternProperties", "$defs"):
        if isinstance(left.get(key), dict) and isinstance(right.get(key), dict):
            merged[key] = {**left[key], **right[key]}
            for name in set(left[key]) & set(right[key]):
                if isinstance(left[key][name], dict) and isinstance(right[key][name], dict):
                    merged[key][name] = merge_schemas(left[key][name], right[key][name])
    if isinstance(left.get("required"), list) and isinstance(right.get("required"), list):
        merged["required"] = list(dict.fromkeys([*left["required"], *right["required"]]))
    for key in _MIN_KEYS + _MAX_KEYS:
        if key in left and key in right and not isinstance(left[key], bool) and not isinstance(right[key], bool):
            merged[key] = (max if key in _MIN_KEYS else min)(left[key], right[key])
    if "not" in left and "not" in right:
        merged["not"] = {"anyOf": [left["not"], right["not"]]}
    if isinstance(left.get("enum"), list) and isinstance(right.get("enum"), list):
        merged["enum"] = [v for v in left["enum"] if v in right["enum"]] or left["enum"]
    return merged


def natural_range(natural: tuple[float, float], low: float, high: float) -> tuple[float, float]:
    """Where to draw a number: the field's natural range, moved or cut to lie within [low, high]."""
    start, stop = natural
    width = stop - start
    if start < low:
        start, stop = low, max(stop, low + width) if stop < low else stop
    if stop > high:
        stop = high
        start = max(low, high - width) if start > high else start
    return start, stop


def number_bounds(schema: dict[str, Any]) -> tuple[float, bool, float, bool]:
    """(low, low is exclusive, high, high is exclusive) from minimum/maximum and both exclusive forms."""
    low, high = schema.get("minimum", -math.inf), schema.get("maximum", math.inf)
    low_ex = high_ex = False
    ex_low, ex_high = schema.get("exclusiveMinimum"), schema.get("exclusiveMaximum")
    if ex_low is True:
        low_ex = True
    elif ex_low is not None and ex_low is not False and ex_low >= low:
        low, low_ex = ex_low, True
    if ex_high is True:
        high_ex = True
    elif ex_high is not None and ex_high is not False and ex_high <= high:
        high, high_ex = ex_high, True
    return low, low_ex, high, high_ex
