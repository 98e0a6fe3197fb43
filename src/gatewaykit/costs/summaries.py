"""Aggregations of ledger columns in plain Python (no pandas): shared by
``Ledger.summary()`` and the notebook display, so both always agree.

Rows are grouped by the requested keys plus ``offline``, so synthetic costs from
the offline gateway are never added to real ones. A job's cost belongs to the
moment it was billed (its ``finished_time``), everything else to its ``time``.
"""

from __future__ import annotations

import math
import time as _time
from typing import Any, Iterable, Optional, Sequence, Union

__all__ = ["SUMMARY_KEYS", "aggregate", "billed_times", "cumulative_by_model", "normalise_keys"]

SUMMARY_KEYS = ("model", "kind", "status", "cost_source", "tag", "day", "offline")
_COUNTS = ("prompt_tokens", "completion_tokens", "reasoning_tokens", "cached_tokens", "total_tokens", "images")


def normalise_keys(by: Union[str, Sequence[str]]) -> tuple:
    keys = (by,) if isinstance(by, str) else tuple(by)
    unknown = [k for k in keys if k not in SUMMARY_KEYS]
    if unknown or not keys:
        raise ValueError(f"summary(by=...) takes some of {SUMMARY_KEYS}, not {unknown or keys}")
    return keys if "offline" in keys else keys + ("offline",)


def billed_times(columns: dict[str, tuple]) -> list[float]:
    """When each row's cost was incurred: ``finished_time`` for jobs, else ``time``."""
    return [f if f is not None else t for t, f in zip(columns["time"], columns["finished_time"])]


def _day(seconds: float) -> str:
    return _time.strftime("%Y-%m-%d", _time.gmtime(seconds))


def _key_values(key: str, index: int, columns: dict[str, tuple], when: list[float]) -> Iterable[Any]:
    if key == "tag":
        return columns["tags"][index] or (None,)
    if key == "day":
        return (_day(when[index]),)
    return (columns[key][index],)


def aggregate(columns: dict[str, tuple], by: Union[str, Sequence[str]]) -> list[dict[str, Any]]:
    """One dict per group: keys, requests, charged, errors, token sums, costs."""
    keys = normalise_keys(by)
    when = billed_times(columns)
    groups: dict[tuple, dict[str, Any]] = {}
    costs: dict[tuple, dict[str, list]] = {}
    for i in range(len(columns["kind"])):
        combos: list[tuple] = [()]
        for key in keys:
            combos = [c + (v,) for c in combos for v in _key_values(key, i, columns, when)]
        for combo in combos:
            group = groups.get(combo)
            if group is None:
                group = dict(zip(keys, combo))
                group.update(requests=0, charged=0, not_charged=0, not_reported=0)
                group.update({name: 0 for name in _COUNTS})
                group["seconds"] = 0.0
                groups[combo] = group
                costs[combo] = {"reported": [], "estimated": []}
            group["requests"] += 1
            source = columns["cost_source"][i]
            if columns["charged"][i]:
                group["charged"] += 1
            elif columns["status"][i] not in ("queued", "in_progress"):
                group["not_charged"] += 1
            if source == "not reported":
                group["not_reported"] += 1
            for name in _COUNTS:
                value = columns[name][i]
                if value:
                    group[name] += value
            if columns["seconds"][i]:
                group["seconds"] += columns["seconds"][i]
            cost = columns["total_cost"][i]
            if cost is not None and source in ("reported", "estimated"):
                costs[combo][source].append(cost)
    out = []
    for combo in sorted(groups, key=lambda c: tuple((v is None, str(v)) for v in c)):
        group = groups[combo]
        group["reported_cost"] = math.fsum(costs[combo]["reported"])
        group["estimated_cost"] = math.fsum(costs[combo]["estimated"])
        group["total_cost"] = math.fsum(costs[combo]["reported"] + costs[combo]["estimated"])
        out.append(group)
    return out


def cumulative_by_model(
    columns: dict[str, tuple], *, per_model: bool = True
) -> dict[Optional[str], tuple[list[float], list[float]]]:
    """Per model (or one series under ``None`` when not ``per_model``): billed times and running USD."""
    when = billed_times(columns)
    points = sorted(
        (when[i], str(columns["model"][i]), columns["total_cost"][i])
        for i in range(len(when))
        if columns["charged"][i] and columns["total_cost"][i] is not None
    )
    series: dict[Optional[str], tuple[list[float], list[float]]] = {}
    for t, name, cost in points:
        xs, ys = series.setdefault(name if per_model else None, ([], []))
        xs.append(t)
        ys.append((ys[-1] if ys else 0.0) + cost)
    return series
