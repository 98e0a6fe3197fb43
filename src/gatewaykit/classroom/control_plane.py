"""``gk.Classroom``: the teacher's control plane, one facade over where the classroom runs.

Every method is an HTTP call to the classroom's ``/_classroom`` endpoints with
the admin token (:class:`~gatewaykit.classroom.admin_client.AdminClient`), so a
class started in this kernel (``gk.classroom.start``) and one running elsewhere
(``gk.classroom.connect(url)``: the CLI, a JupyterHub service, another kernel or
machine) answer the same calls. What differs, starting and stopping the server,
is the backend's: :class:`~gatewaykit.classroom.server.InProcessServer` runs it
in a thread of this process; :class:`RemoteServer` only knows its URL, and its
``stop()`` says where the class is stopped instead.
"""

from __future__ import annotations

import math
from typing import Any, Iterable, Optional, Protocol

from gatewaykit.classroom.admin_client import AdminClient, admin_token_from_environment, student_path

__all__ = ["Classroom", "ClassroomBackend", "RemoteServer", "connect"]

REPORT_BY = (None, "student", "model", "day", "assignment")
#: What an in-process classroom has beyond the facade: its state, Starlette app and address, where the class is
#: kept, where its admin token came from, and the line start() prints.
SERVER_PARTS = ("_state", "app", "host", "port", "db", "admin_token_source", "start_line")


def checked_usd(value: Any, name: str, *, allow_none: bool = False) -> Optional[float]:
    """``value`` as dollars; ValueError for anything but a finite number >= 0 (None when ``allow_none``)."""
    if value is None and allow_none:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
        raise ValueError(f"{name} must be a number of dollars >= 0; got {value!r}")
    return float(value)


def iso_time(value: Any, name: str) -> Optional[str]:
    """A time for the classroom: a datetime as ISO 8601 (naive stays naive: the classroom reads it in its own
    zone), text as it is; None stays None."""
    import datetime as dt

    if value is None or isinstance(value, str):
        return value
    if isinstance(value, (dt.datetime, dt.date)):
        return value.isoformat()
    raise ValueError(f"{name} must be a datetime or ISO 8601 text; got {type(value).__name__}")


def _frame(rows: list[dict[str, Any]], columns: list[str]) -> Any:
    import pandas as pd

    return pd.DataFrame(rows, columns=columns)


class ClassroomBackend(Protocol):
    """Where a classroom runs, as far as the facade needs to know."""

    base_url: str

    @property
    def running(self) -> bool: ...

    def stop(self) -> None: ...

    def describe(self) -> str: ...


class RemoteServer:
    """A classroom this process did not start: it runs until it is stopped where it was started."""

    def __init__(self, base_url: str) -> None:
        self.base_url = base_url
        self.closed = False

    @property
    def running(self) -> bool:
        return not self.closed

    def stop(self) -> None:
        raise RuntimeError(f"This kernel is connected to the classroom at {self.base_url}; it did not start it, so "
                           "it cannot stop it. Stop it where it runs (Ctrl-C or SIGTERM for the command line, "
                           "room.stop() in the kernel that called start(), the hub's services for JupyterHub); "
                           "room.pause() closes it to students from here. room.close() ends this connection.")

    def describe(self) -> str:
        return "connected"


class Classroom:
    """A running classroom: ``base_url`` for students, ``admin_token`` and ``keys`` for the teacher."""

    def __init__(self, api: AdminClient, backend: ClassroomBackend, admin_token: str,
                 new_keys: Optional[list[tuple[str, str]]] = None) -> None:
        self._api = api
        self._backend = backend
        self.base_url = backend.base_url
        self.admin_token = admin_token
        self._new_keys = list(new_keys or [])
        self._final: Optional[tuple[list[dict[str, Any]], dict[str, Any]]] = None

    def __getattr__(self, name: str) -> Any:
        # an in-process backend's server parts read through the facade (tests and benchmarks use them)
        if name in SERVER_PARTS:
            return getattr(self.__dict__["_backend"], name)
        raise AttributeError(f"'Classroom' object has no attribute {name!r}")

    def _call(self, method: str, path: str, body: Optional[dict[str, Any]] = None,
              params: Optional[dict[str, Any]] = None) -> Any:
        return self._api.call(method, path, body, params)

    @property
    def keys(self) -> Any:
        """DataFrame ``student, key``: the keys issued through this object (its start, ``add_student``,
        ``reissue``) - shown only here; the classroom keeps only their digests."""
        import pandas as pd

        return pd.DataFrame(self._new_keys, columns=["student", "key"])

    def report_rows(self, by: Optional[str] = None) -> list[dict[str, Any]]:
        """The report as plain dicts (what ``/_classroom/report`` answers)."""
        return self._report(by)["rows"]  # type: ignore[no-any-return]

    def _report(self, by: Optional[str]) -> dict[str, Any]:
        if by not in REPORT_BY:
            raise ValueError(f"by must be None, 'student', 'model', 'day' or 'assignment'; got {by!r}")
        return self._call("GET", "/_classroom/report", params={"by": by} if by else None)  # type: ignore[no-any-return]

    def report(self, by: Optional[str] = None) -> Any:
        """DataFrame for the current window: one row per student; ``by="model"`` per student and model;
        ``by="day"`` per student and day (student, day, spent_usd, requests, refused, cap_hits). Money is shown
        as the command line shows it (``$0.151``) when displayed; the values stay floats."""
        from gatewaykit.classroom.report_frame import report_frame

        return report_frame(self._report(by)["rows"], by)

    def status(self) -> dict[str, Any]:
        """Paused or not (and why), the window, the number of students, open jobs, the class totals."""
        return self._call("GET", "/_classroom/status")  # type: ignore[no-any-return]

    def pause(self, reason: Optional[str] = None, cancel_jobs: bool = False) -> dict[str, Any]:
        """The kill switch: every new request gets 503 with ``reason``; ``cancel_jobs`` cancels running videos."""
        return self._call("POST", "/_classroom/pause", {"reason": reason, "cancel_jobs": cancel_jobs})  # type: ignore[no-any-return]

    def resume(self) -> dict[str, Any]:
        """Open the class again. During a scheduled AI-off window this overrides that window (until its end; the
        next window closes the class again): the answer's ``overrode`` says which."""
        return self._call("POST", "/_classroom/resume")  # type: ignore[no-any-return]

    def add_student(self, student: str, cap: Optional[float] = None, *, cap_usd: Optional[float] = None) -> str:
        """Add a student (``cap``: their own cap in USD; None: the class cap); returns their key (also in
        ``keys``)."""
        usd = checked_usd(cap if cap is not None else cap_usd, "cap", allow_none=True)
        key: str = self._call("POST", "/_classroom/students", {"student": student, "cap_usd": usd})["key"]
        self._new_keys.append((student, key))
        return key

    def set_cap(self, student: str, usd: Optional[float], until: Any = None) -> dict[str, Any]:
        """A student's own cap in USD (None: back to the class cap). ``until`` (a datetime or ISO 8601 text;
        naive: the classroom's local zone): a raise that ends then, when the cap from before is back (a request
        held under the raise settles as it was held)."""
        body = {"cap_usd": checked_usd(usd, "usd", allow_none=True), "until": iso_time(until, "until")}
        return self._call("POST", student_path(student, "cap"), body)  # type: ignore[no-any-return]

    def revoke(self, student: str) -> None:
        """The student's key stops working at once (``reissue`` gives them a new one)."""
        self._call("POST", student_path(student, "revoke"))

    def reissue(self, student: str) -> str:
        """A new key for ``student`` (the old one stops working)."""
        key: str = self._call("POST", student_path(student, "reissue"))["key"]
        self._new_keys = [(s, k) for s, k in self._new_keys if s != student] + [(student, key)]
        return key

    # -- the course policy (docs/classroom.md, "A course that runs for a term") ----------------------------------
    def schedule_pause(self, start: Any, end: Any, reason: Optional[str] = None) -> dict[str, Any]:
        """An AI-off window: from ``start`` to ``end`` (datetimes or ISO 8601 text; naive: the classroom's local
        zone) every request is refused (503 ``class_paused`` with ``reason``). Kept across restarts."""
        body = {"start": iso_time(start, "start"), "end": iso_time(end, "end"), "reason": reason}
        return self._call("POST", "/_classroom/schedules", body)  # type: ignore[no-any-return]

    def schedules(self) -> Any:
        """DataFrame of the AI-off windows: id, start, end, reason, state (upcoming, active, overridden, past)."""
        return _frame(self._call("GET", "/_classroom/schedules")["rows"], ["id", "start", "end", "reason", "state"])

    def add_assignment(self, name: str, cap: float, start: Any = None, end: Any = None,
                       models: Optional[Iterable[str]] = None) -> dict[str, Any]:
        """An assignment: while it is open (``start``, default now, to ``end``, default never), each request also
        counts against the student's ``cap`` (USD) on it (402 naming it), and only ``models`` may be used (None:
        the class's). An assignment whose time overlaps another's is refused (ValueError)."""
        body = {"name": name, "cap_usd": checked_usd(cap, "cap"), "start": iso_time(start, "start"),
                "end": iso_time(end, "end"),
                "models": None if models is None else ([models] if isinstance(models, str) else list(models))}
        return self._call("POST", "/_classroom/assignments", body)  # type: ignore[no-any-return]

    def assignments(self) -> Any:
        """DataFrame of the assignments: name, cap_usd, start, end, models, open."""
        return _frame(self._call("GET", "/_classroom/assignments")["rows"],
                      ["name", "cap_usd", "start", "end", "models", "open"])

    def audit(self) -> Any:
        """DataFrame of every admin action: time (the classroom's zone), action, student, detail, origin
        (notebook, remote connect, cli, hub hook, http; classroom for what it did by itself)."""
        rows = self._call("GET", "/_classroom/audit")["rows"]
        return _frame(rows, ["at", "action", "student", "detail", "origin"]).rename(columns={"at": "time"})

    def prompt_log(self) -> Any:
        """DataFrame of the prompts kept (empty unless started with ``log_prompts=True``): time, pseudonym, model,
        kind, prompt, answer. Rows older than ``retention_days`` are gone."""
        rows = self._call("GET", "/_classroom/prompts")["rows"]
        return _frame(rows, ["at", "pseudonym", "model", "kind", "prompt", "answer"]).rename(columns={"at": "time"})

    def pseudonym(self, student: str) -> str:
        """The pseudonym the prompt log keeps ``student`` under (for a review; the lookup is in the audit log)."""
        return self._call("GET", student_path(student, "pseudonym"))["pseudonym"]  # type: ignore[no-any-return]

    def dashboard(self, refresh_seconds: float = 2.0) -> Any:
        """A live widget: class totals and the kill switch, a row per student (sortable, filterable)."""
        import importlib

        # The notebook layer sits above the classroom: loaded only when a dashboard is asked for.
        return importlib.import_module("gatewaykit.notebook.widgets.classroom_dashboard").dashboard(self, refresh_seconds)

    @property
    def running(self) -> bool:
        return self._backend.running

    @property
    def final_figures(self) -> Optional[tuple[list[dict[str, Any]], dict[str, Any]]]:
        """``(report_rows(), status())`` as they were when :meth:`stop` stopped the class; None while it runs."""
        return self._final

    def stop(self) -> None:
        """Stop the server (and the offline gateway it started); idempotent. The database stays. A classroom
        reached with ``connect()`` is not stopped from here (RuntimeError saying where)."""
        self._backend.stop()  # a remote backend refuses before anything is closed
        self._api.close()

    def _keep_final_figures(self) -> None:
        """Called by an in-process backend as it stops: the figures a dashboard shows once the class stopped."""
        if self._final is None:
            try:
                self._final = (self.report_rows(), self.status())
            except Exception:  # noqa: BLE001 - stopping never fails for want of a last report
                pass

    def close(self) -> None:
        """End this object's connection to the classroom (it goes on running)."""
        self._api.close()
        if isinstance(self._backend, RemoteServer):
            self._backend.closed = True

    def __enter__(self) -> "Classroom":
        return self

    def __exit__(self, *exc: Any) -> None:
        if isinstance(self._backend, RemoteServer):
            self.close()
        else:
            self.stop()

    def __repr__(self) -> str:  # no token, no key
        return f"Classroom(base_url={self.base_url!r}, {self._backend.describe()})"


def connect(url: str, admin_token: Optional[str] = None, *, _origin: str = "remote connect") -> Classroom:
    """A :class:`Classroom` for a classroom already running at ``url`` (the CLI, a JupyterHub service, another
    kernel): the same methods as ``start()`` gives, ``stop()`` aside. The admin token comes from
    ``admin_token=`` or ``GATEWAYKIT_CLASSROOM_ADMIN_TOKEN``. A wrong URL or token fails here, with one error
    saying which (``gk.APIConnectionError``, ``gk.NotFoundError``, ``gk.AuthenticationError``)."""
    if not isinstance(url, str) or not url.startswith(("http://", "https://")):
        raise ValueError(f"url must be the classroom's address (http:// or https://); got {url!r:.100}")
    token = admin_token_from_environment(admin_token)
    base_url = url.rstrip("/").removesuffix("/v1")
    api = AdminClient(base_url, token, origin=_origin)  # the audit log's origin of what this object does
    try:
        api.call("GET", "/_classroom/status")
    except BaseException:
        api.close()
        raise
    return Classroom(api, RemoteServer(base_url), token)
