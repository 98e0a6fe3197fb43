"""Aggregations of ledger columns in plain Python (no pandas): shared by
``Ledger.summary()`` and the notebook display, so both always agree.

Rows are grouped by the requested keys plus ``offline``, so synthetic costs from
the offline gateway are never added to real ones. A job's cost belongs to the
moment it was billed (its ``finished_time``), everything else to its ``time``.
"""

from __future__ import annotations

import math
import time as _time
from typing import Any, Mapping, Optional, Sequence, Union

from gatewaykit.costs.rows import JOB_KINDS

__all__ = ["SUMMARY_KEYS", "aggregate", "billed_times", "cumulative_by_model", "normalise_keys"]

SUMMARY_KEYS = ("model", "kind", "status", "cost_source", "tag", "day", "offline")
_COUNTS = ("prompt_tokens", "completion_tokens", "reasoning_tokens", "cached_tokens", "total_tokens", "images")


def normalise_keys(by: Union[str, Sequence[str]]) -> tuple:
    keys = (by,) if isinstance(by, str) else tuple(by)
    unknown = [k for k in keys if k not in SUMMARY_KEYS]
    if unknown or not keys:
        raise ValueError(f"summary(by=...) takes some of {SUMMARY_KEYS}, not {unknown or keys}")
    return keys if "offline" in keys else keys + ("offline",)


def billed_times(columns: Mapping[str, Sequence[Any]]) -> list[float]:
    """When each row's cost was incurred: ``finished_time`` for jobs, else ``time``."""
    return [f if f is not None else t for t, f in zip(columns["time"], columns["finished_time"])]


def _days(when: list[float]) -> list[str]:
    cache: dict[int, str] = {}
    out = []
    for seconds in when:
        number = int(seconds // 86400)
        day = cache.get(number)
        if day is None:
            day = cache[number] = _time.strftime("%Y-%m-%d", _time.gmtime(number * 86400))
        out.append(day)
    return out


def _key_column(key: str, columns: Mapping[str, Sequence[Any]], when: list[float]) -> Sequence[Any]:
    if key == "tag":
        return [tags or (None,) for tags in columns["tags"]]
    if key == "day":
        return _days(when)
    return columns[key]


def _group_members(keys: tuple, columns: Mapping[str, Sequence[Any]]) -> dict[tuple, list[int]]:
    when = billed_times(columns)
    key_columns = [_key_column(key, columns, when) for key in keys]
    members: dict[tuple, list[int]] = {}
    if "tag" not in keys:
        for i, combo in enumerate(zip(*key_columns)):
            members.setdefault(combo, []).append(i)
        return members
    for i in range(len(when)):
        combos: list[tuple] = [()]
        for key, column in zip(keys, key_columns):
            values = column[i] if key == "tag" else (column[i],)
            combos = [c + (v,) for c in combos for v in values]
        for combo in combos:
            members.setdefault(combo, []).append(i)
    return members


def aggregate(columns: Mapping[str, Sequence[Any]], by: Union[str, Sequence[str]]) -> list[dict[str, Any]]:
    """One dict per group: keys, requests, charged, not charged, token sums, costs.

    ``not_reported`` counts the charged rows with no amount; ``not_reported_jobs``
    those of them that are jobs (the rest are requests: a chat row is never a job);
    ``pending`` the jobs still running.
    """
    keys = normalise_keys(by)
    members = _group_members(keys, columns)
    charged, status, source, cost, kinds = (
        columns["charged"], columns["status"], columns["cost_source"], columns["total_cost"], columns["kind"]
    )
    out = []
    for combo in sorted(members, key=lambda c: tuple((v is None, str(v)) for v in c)):
        idx = members[combo]
        group: dict[str, Any] = dict(zip(keys, combo))
        group["requests"] = len(idx)
        group["charged"] = sum(1 for i in idx if charged[i])
        group["not_charged"] = sum(
            1 for i in idx if charged[i] is False and status[i] not in ("queued", "in_progress")
        )
        group["charge_unknown"] = sum(1 for i in idx if charged[i] is None)
        group["not_reported"] = sum(1 for i in idx if source[i] == "not reported")
        group["not_reported_jobs"] = sum(1 for i in idx if source[i] == "not reported" and kinds[i] in JOB_KINDS)
        group["pending"] = sum(1 for i in idx if status[i] in ("queued", "in_progress"))
        for name in _COUNTS:
            column = columns[name]
            group[name] = sum(column[i] for i in idx if column[i])
        group["seconds"] = math.fsum(columns["seconds"][i] for i in idx if columns["seconds"][i])
        reported = [cost[i] for i in idx if source[i] == "reported" and cost[i] is not None]
        estimated = [cost[i] for i in idx if source[i] == "estimated" and cost[i] is not None]
        group["reported_cost"] = math.fsum(reported)
        group["estimated_cost"] = math.fsum(estimated)
        group["total_cost"] = math.fsum(reported + estimated)
        out.append(group)
    return out


def cumulative_by_model(
    columns: Mapping[str, Sequence[Any]], *, per_model: bool = True
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
