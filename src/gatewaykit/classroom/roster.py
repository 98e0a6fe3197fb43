"""A class list: a CSV file, a DataFrame or a list, read into ``RosterEntry`` rows.

A roster has a ``student`` column (a login or a name) and an optional
``cap_usd`` (empty: the class cap). A missing column, an empty or duplicate
student, or a cap that is negative or not a number is a ``ValueError`` naming
the line (CSV lines count from 1, the header being line 1; list and DataFrame
rows count from 1 too), so the teacher knows what to fix.
"""

from __future__ import annotations

import csv
import math
import os
from dataclasses import dataclass
from typing import Any, Iterable, Optional

__all__ = ["RosterEntry", "read_roster"]

MAX_NAME = 200


@dataclass(frozen=True)
class RosterEntry:
    student: str
    cap_usd: Optional[float]  # None: the class cap


def read_roster(roster: Any) -> list[RosterEntry]:
    """The entries of ``roster``: a CSV path, a pandas DataFrame, or a list of names / dicts."""
    if roster is None:
        return []
    if isinstance(roster, (str, os.PathLike)):
        return _from_csv(os.fspath(roster))
    if hasattr(roster, "to_dict") and hasattr(roster, "columns"):  # a DataFrame, without importing pandas
        columns = [str(c) for c in roster.columns]
        _require_student(columns, "the DataFrame")
        rows = roster.to_dict("records")
        return _entries(((i + 1, row) for i, row in enumerate(rows)), "row")
    if isinstance(roster, Iterable):
        rows = [{"student": item} if isinstance(item, str) else item for item in roster]
        for i, row in enumerate(rows, start=1):
            if not isinstance(row, dict) or "student" not in row:
                raise ValueError(f"roster item {i}: give a student name or a dict with a 'student' key; "
                                 f"got {row!r:.80}")
        return _entries(enumerate(rows, start=1), "item")
    raise ValueError(f"roster must be a CSV path, a DataFrame or a list of students; got {type(roster).__name__}")


def _from_csv(path: str) -> list[RosterEntry]:
    try:
        with open(path, newline="", encoding="utf-8-sig") as handle:
            reader = csv.DictReader(handle)
            columns = [c.strip() for c in (reader.fieldnames or [])]
            _require_student(columns, f"{path} line 1")
            reader.fieldnames = columns
            rows = [(reader.line_num, row) for row in reader]
    except FileNotFoundError:
        raise ValueError(f"roster file {path} does not exist") from None
    except UnicodeDecodeError:
        raise ValueError(f"roster file {path} is not UTF-8 text; save it as CSV (UTF-8)") from None
    return _entries(rows, f"{path} line")


def _require_student(columns: list[str], where: str) -> None:
    if "student" not in columns:
        shown = ", ".join(repr(c) for c in columns) or "none"
        raise ValueError(f"roster {where}: a roster needs a 'student' column (columns found: {shown})")


def _entries(rows: Iterable[tuple[int, dict]], where: str) -> list[RosterEntry]:
    entries: list[RosterEntry] = []
    seen: dict[str, int] = {}
    for line, row in rows:
        name = row.get("student")
        name = "" if name is None or (isinstance(name, float) and math.isnan(name)) else str(name).strip()
        if not name:
            raise ValueError(f"roster {where} {line}: the student is empty")
        if len(name) > MAX_NAME or any(ord(ch) < 32 for ch in name):
            raise ValueError(f"roster {where} {line}: a student name must be one line of at most {MAX_NAME} "
                             "characters")
        if name in seen:
            raise ValueError(f"roster {where} {line}: student {name!r} is already on {where} {seen[name]}")
        seen[name] = line
        entries.append(RosterEntry(name, _cap(row.get("cap_usd"), f"roster {where} {line}")))
    return entries


def _cap(value: Any, where: str) -> Optional[float]:
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, bool):
        raise ValueError(f"{where}: cap_usd must be a number of dollars; got {value!r}")
    try:
        cap = float(str(value).strip().lstrip("$"))
    except ValueError:
        raise ValueError(f"{where}: cap_usd must be a number of dollars; got {value!r:.40}") from None
    if not math.isfinite(cap) or cap < 0:
        raise ValueError(f"{where}: cap_usd must be 0 or more dollars; got {value!r:.40}")
    return cap
