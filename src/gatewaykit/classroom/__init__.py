"""A class on one paid key: ``gk.classroom.start(...)`` -> ``gk.Classroom``, or ``python -m gatewaykit.classroom``.

A server that speaks the gateway API to students, each with their own key,
and forwards to the real gateway with the teacher's key (or to the offline
gateway for practice): hard caps (a request's worst case is held before it is
sent), daily, weekly or monthly windows, a kill switch, a spend report, and a
course policy (requests per minute, AI-off windows, assignments, raises that
end, an audit log, prompts kept only by choice). See
docs/classroom.md. Importing this package is cheap: the server stack loads when
a classroom starts.

How it is built (each module imports only those above it)::

    roster.py      the class list (CSV, DataFrame, list) -> RosterEntry rows
    windows.py     total / daily / weekly / monthly windows on a clock
    course_times.py  times a teacher gives (ISO 8601; naive: the classroom's zone)
    store.py       the Store interface; SQLiteStore (keys hashed, totals kept, files 0600)
    postgres_store.py  PostgresStore: one class shared by every classroom given the same postgresql:// URL
    db_location.py where a class is kept without db= (the per-user classroom.db; practice: memory); open_store
    keys_file.py   the CSV every issued key is appended to
    setting_names.py  each setting as the teacher spells it (Python or the command line), for messages
    budgets.py     holds and caps (and caps on assignments), on the shared Account (a shared store decides
                   the class caps itself)
    rate_limits.py requests per minute, per student and for the class
    schedules.py   AI-off windows; assignments.py assignments and their times
    audit_log.py   every admin action and where it came from; prompt_log.py prompts under pseudonyms
    policy.py      the course policy one classroom holds (those, and raises that end)
    worst_case.py  the most a request can cost, from the catalog's prices
    refusals.py    402 / 403 / 503 / 401 in a student's words
    outbound_proxy.py  the proxy the environment names (CONNECT ours, SOCKS5 python-socks')
    buffered_bytes.py  what buffered bodies may hold in memory, per answer and in total
    keepalive.py   keep-alive HTTP/1.1 connections to the gateway (h11 framing, one deque of idle sockets)
    hub_auth.py    a keyless hub: tokens that are not classroom keys are asked of JupyterHub
    upstream.py    the gateway behind: those connections, the teacher's key, the headers forwarded
    upstream_balance.py  the teacher's paid balance at the gateway: used up (a gateway 402) or not
    state.py       one classroom: students, keys, the kill switch, admission
    class_sync.py  a shared class: hear the other processes' changes, heartbeat, charge the abandoned holds
    passthrough.py forwarding a billed request, buffered or streamed, and settling it
    jobs.py        video and music jobs: ownership, settling, the watcher
    media_links.py job answers link to the classroom; it fetches the files from the gateway
    routes.py      the /v1 routes; report.py, admin.py, admin_policy.py the /_classroom routes
    app.py         the Starlette app
    admin_client.py  the teacher's HTTP calls to /_classroom (admin token, errors in a teacher's words)
    control_plane.py gk.Classroom (one facade: started here or elsewhere) and connect(url)
    server.py      start(): the server in a thread of this process; cli.py the command line
    student_budget.py a student's own budget (GET /_classroom/me with their key)
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
