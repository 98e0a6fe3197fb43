"""The spend report: one row per student (or per student and model, or per student and day) for the current window.

It reads the store's running totals (and per-day sums), never the request rows, so
it takes the same time for ten requests as for a million. Amounts are USD.
``refused`` counts what the classroom refused; ``balance_refused`` what the
gateway refused because the teacher's paid balance was used up (neither is in
``requests``; nothing of either was charged). ``unknown`` and ``unknown_usd``:
the requests charged at their hold because their outcome could not be known (the
gateway had them, then said nothing: no answer in time, a connection lost, a job
it no longer knows, a request cut off by a stop); they are in ``spent_usd`` and
``requests`` too. ``cap_hits``: the requests the student's cap refused.
"""

from __future__ import annotations

from typing import Any, Optional

from gatewaykit.classroom.report_frame import ASSIGNMENT_COLUMNS, DAY_COLUMNS, MODEL_COLUMNS, STUDENT_COLUMNS
from gatewaykit.classroom.state import ClassroomState
from gatewaykit.money import nanos_to_usd

__all__ = ["ASSIGNMENT_COLUMNS", "DAY_COLUMNS", "MODEL_COLUMNS", "STUDENT_COLUMNS", "class_totals", "report_rows",
           "student_budget"]

_NONE = {"requests": 0, "refused": 0, "balance_refused": 0, "unknown": 0, "unknown_nanos": 0, "last_request": None}


def report_rows(state: ClassroomState, by: Optional[str] = None) -> list[dict[str, Any]]:
    """Rows for ``by=None``/``"student"`` (one per student), ``by="model"`` (one per student and model used) or
    ``by="day"`` (one per student and day with requests) or ``by="assignment"`` (one per assignment and student,
    over the whole course, not the window)."""
    if by not in (None, "student", "model", "day", "assignment"):
        raise ValueError(f"by must be None, 'student', 'model', 'day' or 'assignment'; got {by!r}")
    if by == "assignment":
        return _assignment_rows(state)
    if by == "day":
        return [{"student": r["student"], "day": r["day"], "spent_usd": nanos_to_usd(r["spent_nanos"]),
                 "requests": r["requests"], "refused": r["refused"], "cap_hits": r["cap_hits"]}
                for r in state.store.days(state.window.key())]
    totals = state.store.totals(state.window.key())
    if by == "model":
        order = {name: i for i, name in enumerate(state.known)}
        rows = sorted(totals, key=lambda r: (order.get(r["student"], len(order)), r["model"]))
        return [{"student": r["student"], "model": r["model"], "spent_usd": nanos_to_usd(r["spent_nanos"]),
                 "requests": r["requests"], "refused": r["refused"], "balance_refused": r["balance_refused"],
                 "unknown": r["unknown"], "unknown_usd": nanos_to_usd(r["unknown_nanos"]),
                 "last_request": r["last_request"]}
                for r in rows]
    per_student: dict[str, dict[str, Any]] = {}
    for row in totals:
        sums = per_student.setdefault(row["student"], dict(_NONE))
        sums["requests"] += row["requests"]
        sums["refused"] += row["refused"]
        sums["balance_refused"] += row["balance_refused"]
        sums["unknown"] += row["unknown"]
        sums["unknown_nanos"] += row["unknown_nanos"]
        if row["last_request"] is not None:
            sums["last_request"] = max(sums["last_request"] or 0, row["last_request"])
    cap_hits: dict[str, int] = {}
    for row in state.store.days(state.window.key()):
        cap_hits[row["student"]] = cap_hits.get(row["student"], 0) + row["cap_hits"]
    out = []
    for student, revoked in state.known.items():
        spent, held, cap = state.budgets.standing(student)
        sums = per_student.get(student, _NONE)
        out.append({"student": student, "spent_usd": nanos_to_usd(spent), "cap_usd": nanos_to_usd(cap),
                    "remaining_usd": nanos_to_usd(max(0, cap - spent - held)), "held_usd": nanos_to_usd(held),
                    "requests": sums["requests"], "refused": sums["refused"],
                    "balance_refused": sums["balance_refused"], "unknown": sums["unknown"],
                    "unknown_usd": nanos_to_usd(sums["unknown_nanos"]), "cap_hits": cap_hits.get(student, 0),
                    "last_request": sums["last_request"], "revoked": revoked})
    return out


def class_totals(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The whole class from its per-student rows: spent_usd, held_usd, cap_usd (the caps added up),
    students_at_cap (nothing left), cap_hits (requests the caps refused)."""
    active = [r for r in rows if not r["revoked"]]
    return {"spent_usd": round(sum(r["spent_usd"] for r in rows), 9),
            "held_usd": round(sum(r["held_usd"] for r in rows), 9),
            "cap_usd": round(sum(r["cap_usd"] for r in active), 9),
            "students_at_cap": sum(1 for r in active if r["remaining_usd"] <= r["cap_usd"] / 1000),
            "cap_hits": sum(r["cap_hits"] for r in rows)}


def student_budget(state: ClassroomState, student: str) -> dict[str, Any]:
    """What ``GET /_classroom/me`` answers a student: their cap, spend, held and remaining USD in the current
    window, when it resets (ISO 8601, None for ``total``), whether the class is paused (and why), the models
    they may use (None: all)."""
    spent, held, cap = state.budgets.standing(student)
    resets_at = state.window.resets_at()
    closed = None if state.paused else state.policy.closed_by(state.policy.now())  # a scheduled window
    paused = state.paused or closed is not None
    reason = state.paused_reason if closed is None else closed.reason
    models = state.settings.models
    return {"student": student, "cap_usd": nanos_to_usd(cap), "spent_usd": nanos_to_usd(spent),
            "held_usd": nanos_to_usd(held), "remaining_usd": nanos_to_usd(max(0, cap - spent - held)),
            "window": state.window.key(), "window_kind": state.window.kind,
            "resets_at": resets_at.isoformat() if resets_at else None, "paused": paused,
            "reason": reason if paused else None,
            "models": sorted(models) if models is not None else None}


def _assignment_rows(state: ClassroomState) -> list[dict[str, Any]]:
    """Per assignment (in time order) and student: spent on it, its cap, what is left, held, requests, refused."""
    sums = {(r["assignment"], r["student"]): r for r in state.store.assignment_totals()}
    out = []
    for assignment in state.policy.assignments.all():
        for student in state.known:
            row = sums.get((assignment.name, student), {"spent_nanos": 0, "requests": 0, "refused": 0})
            held = state.budgets.assignment_account(student, assignment.name).held_nanos
            spent = row["spent_nanos"]
            out.append({"assignment": assignment.name, "student": student, "spent_usd": nanos_to_usd(spent),
                        "cap_usd": nanos_to_usd(assignment.cap_nanos),
                        "remaining_usd": nanos_to_usd(max(0, assignment.cap_nanos - spent - held)),
                        "held_usd": nanos_to_usd(held), "requests": row["requests"], "refused": row["refused"]})
    return out
