"""The audit log: every admin action (pause, resume, caps, revocations, reissues, schedules, assignments, a
pseudonym looked up), when it was taken and where it came from, kept in the class's database.

Where an action came from is what the caller says in ``X-Classroom-Origin``:
``notebook`` (``gk.classroom.start``'s ``Classroom``), ``remote connect``
(``gk.classroom.connect``), ``cli`` (the command line), ``hub hook`` (a
JupyterHub spawner hook asking for a user's key; that endpoint's default);
anything else is ``http`` (curl, a script). What the classroom does by itself
(a raise that ends) is ``classroom``. No key or token is ever written here.
"""

from __future__ import annotations

import json
from typing import Any, Optional

from gatewaykit.classroom.store import Store

__all__ = ["ORIGIN_HEADER", "ORIGINS", "AuditLog", "origin_of"]

ORIGIN_HEADER = "X-Classroom-Origin"
ORIGINS = ("notebook", "remote connect", "cli", "hub hook", "http", "classroom")


def origin_of(headers: Any, default: str = "http") -> str:
    said = (headers.get(ORIGIN_HEADER) or "").strip().lower()
    return said if said in ORIGINS else default


class AuditLog:
    def __init__(self, store: Store) -> None:
        self.store = store

    def record(self, at: float, action: str, origin: str, student: Optional[str] = None, **detail: Any) -> None:
        self.store.add_audit(at, action, student, json.dumps(detail, sort_keys=True, default=str), origin)

    def rows(self) -> list[dict[str, Any]]:
        return [{**row, "detail": json.loads(row["detail"])} for row in self.store.audit_rows()]
