"""A class on one paid key: ``gk.classroom.start(...)`` -> ``gk.Classroom``, or ``python -m gatewaykit.classroom``.

A server that speaks the gateway API to students, each with their own key, and forwards to the
gateway with the teacher's key (or to the offline gateway for practice): hard caps held before a
request is sent, windows, a kill switch, reports and a course policy. Importing this package is
cheap: the server stack loads when a classroom starts. The module map: ``docs/internals.md``;
how to run a class: ``docs/classroom.md``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from gatewaykit.classroom.control_plane import Classroom, connect
    from gatewaykit.classroom.student_budget import my_budget
    from gatewaykit.classroom.server import start

__all__ = ["Classroom", "connect", "my_budget", "start"]

_HOMES = {"Classroom": "control_plane", "connect": "control_plane", "my_budget": "student_budget", "start": "server"}


def __getattr__(name: str) -> Any:
    if name in _HOMES:
        import importlib

        return getattr(importlib.import_module(f"gatewaykit.classroom.{_HOMES[name]}"), name)
    raise AttributeError(f"module 'gatewaykit.classroom' has no attribute {name!r}")
