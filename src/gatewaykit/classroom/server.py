"""``gk.classroom.start(...)`` -> ``gk.Classroom``: the classroom server in a background thread.

The teacher's key comes from ``upstream_key=`` or ``SVC_API_KEY`` and stays in
the server (never in a repr, a log line, the database or an answer).
``upstream="offline"`` starts a private offline gateway behind the class, for
practice. The ``Classroom`` it returns is the facade of
:mod:`gatewaykit.classroom.control_plane` over an :class:`InProcessServer`: its
methods talk to the server's ``/_classroom`` endpoints with the admin token, as
``gk.classroom.connect`` and the CLI do.
"""

from __future__ import annotations

import contextlib
import math
import os
import threading
import time
import warnings
from typing import Any, Callable, Iterable, Optional

from gatewaykit.classroom import class_settings
from gatewaykit.classroom.admin_client import AdminClient
from gatewaykit.classroom.buffered_bytes import MAX_ANSWER_BYTES, MAX_BUFFERED_BYTES
from gatewaykit.classroom.control_plane import Classroom, checked_usd
from gatewaykit.classroom.roster import read_roster
from gatewaykit.classroom.db_location import MEMORY, default_db, open_store
from gatewaykit.classroom.setting_names import PYTHON, SettingNames
from gatewaykit.classroom.state import ADMIN_DIGEST, ClassroomState, ClassSettings, admin_digest, new_admin_token
from gatewaykit.classroom.store import Store
from gatewaykit.classroom.upstream import Upstream
from gatewaykit.classroom.windows import Window
from gatewaykit.classroom.worst_case import WorstCase
from gatewaykit.serving.cors import browser_origins

__all__ = ["Classroom", "InProcessServer", "start"]


def checked_root_path(root_path: Optional[str], name: str = "root_path") -> str:
    """``"/services/classroom/"`` -> ``"/services/classroom"``; None or "/" -> ""; ValueError for anything else
    than a plain URL path."""
    if root_path is None:
        return ""
    import re

    if not isinstance(root_path, str) or not re.fullmatch(r"(/[A-Za-z0-9._~!$&'()*+,;=:@%-]+)*/?", root_path):
        raise ValueError(f"{name} must be a URL path such as '/services/classroom'; got {root_path!r:.100}")
    return root_path.rstrip("/")


def _catalog(base_url: str, key: str, trust_env: bool = True, names: SettingNames = PYTHON
             ) -> tuple[list[dict[str, Any]], bool]:
    """The gateway's model list (with the teacher's key): what the classroom prices holds from; and whether the
    gateway is an offline one (its answers say so: ``X-Gateway-Offline: 1``)."""
    # The same connections as forwarding (an outbound proxy from the environment too), on a loop of its own in a
    # worker thread: start() may be called where a loop is running already (a notebook).
    import asyncio
    from concurrent.futures import ThreadPoolExecutor

    from gatewaykit.classroom.keepalive import ConnectionFailed, KeepAlivePool, UpstreamResponse

    async def models() -> UpstreamResponse:
        pool = KeepAlivePool(base_url, timeout=30, connect_timeout=30, max_connections=1, trust_env=trust_env)
        try:
            answer = await pool.request("GET", "/v1/models", [("authorization", f"Bearer {key}"),
                                                              ("accept-encoding", "identity")])
            await answer.aread()
            return answer
        finally:
            await pool.aclose()

    try:
        with ThreadPoolExecutor(1, thread_name_prefix="classroom-catalog") as worker:
            response = worker.submit(asyncio.run, models()).result()
    except ConnectionFailed as exc:
        raise ConnectionError(f"The classroom could not reach the gateway at {base_url}: {exc}. "
                              "Check the upstream URL (and the proxy settings, if any).") from None
    if response.status_code in (401, 403):
        raise ValueError(f"The gateway at {base_url} refused the teacher's key ({response.status_code}). Check the "
                         f"key: {names.teacher_key}.")
    if response.status_code != 200:
        raise ConnectionError(f"The gateway at {base_url} answered {response.status_code} to GET /v1/models.")
    data = response.json().get("data")
    offline = response.headers.get("x-gateway-offline") == "1"  # the offline gateway's mark (emulator/app.py)
    return ([m for m in data if isinstance(m, dict)] if isinstance(data, list) else []), offline


class InProcessServer:
    """The classroom server in a background thread of this process (the backend ``start()`` gives
    :class:`~gatewaykit.classroom.control_plane.Classroom`): ``stop()`` stops it."""

    def __init__(self, state: ClassroomState, host: str, port: int, offline_gateway: Any = None) -> None:
        import uvicorn

        from gatewaykit.classroom.app import create_app
        from gatewaykit.serving.uvicorn_server import check_port, is_loopback, uvicorn_config

        check_port(port)
        if not is_loopback(host):
            warnings.warn(f"The classroom is binding to {host}, which is not loopback: other machines can reach it.",
                          RuntimeWarning, stacklevel=4)
        self._state = state
        self._offline = offline_gateway
        self.before_stop: Optional[Callable[[], None]] = None
        #: ``"new"`` (made by this start), ``"given"`` (``admin_token=``) or ``"kept"`` (the store keeps the digest
        #: of the one printed when the class first started; ``admin_token`` is then this start's own, for the
        #: methods here)
        self.admin_token_source = "new"
        #: Where the class is kept: a file, ``":memory:"``, or None (a ``store=`` of another kind).
        self.db: Optional[str] = getattr(state.store, "path", None)
        self.app = create_app(state)

        class _Server(uvicorn.Server):
            def install_signal_handlers(self) -> None:  # not the main thread
                pass

        self._server = _Server(uvicorn_config(self.app, host, port, settings=state.settings))
        self._thread = threading.Thread(target=self._server.run, name="gatewaykit-classroom", daemon=True)
        self._thread.start()
        deadline = time.monotonic() + 30
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError(f"the classroom could not start on {host}:{port}")
            time.sleep(0.01)
        sock = self._server.servers[0].sockets[0].getsockname()
        shown = f"[{sock[0]}]" if ":" in sock[0] else sock[0]
        self.host, self.port = sock[0], sock[1]
        self.base_url = f"http://{shown}:{self.port}{state.settings.root_path}"

    @property
    def running(self) -> bool:
        return self._thread.is_alive()

    def stop(self) -> None:
        """Stop the server (and the offline gateway it started); idempotent. The database stays."""
        if self._thread.is_alive() and self.before_stop is not None:
            self.before_stop()
        if self._thread.is_alive():
            self._server.should_exit = True
            self._thread.join(timeout=10)
        if not self._thread.is_alive():
            self._state.store.close()
        if self._offline is not None:
            self._offline.stop()

    def describe(self) -> str:
        return f"students={len(self._state.known)}"

    def start_line(self) -> str:
        """What ``start()`` prints: where students connect and where the class is kept."""
        names = self._state.settings.names
        line = f"Classroom on {self.base_url} (students set SVC_BASE_URL={self.base_url}). "
        if self.db == MEMORY:
            return line + (f"The class is in memory only: its keys and spend are lost when it stops (give "
                           f"{names.db} a file to keep them).")
        if self.db is None:
            return line.rstrip()
        return line + (f"The class is kept in {self.db}: a restart on it keeps its keys and spend ({names.db} "
                       f"another file for another class, {names.db}':memory:' for a class in memory only).")


def _in_process(state: ClassroomState, host: str, port: int, new_keys: list[tuple[str, str]],
                offline_gateway: Any, admin_token_source: str) -> Classroom:
    server = InProcessServer(state, host, port, offline_gateway)
    server.admin_token_source = admin_token_source
    token = state.settings.admin_token
    room = Classroom(AdminClient(server.base_url, token), server, token, new_keys)
    server.before_stop = room._keep_final_figures
    return room


def _class_state(store: Store, entries: list[Any], new_keys: list[tuple[str, str]], admin_token: Optional[str],
                 settings: ClassSettings, forwarding: Upstream, catalog: WorstCase, window_rule: Window
                 ) -> tuple[ClassroomState, str]:
    """The class's state on ``store``: the admin token (given, kept, or new) and the roster's new students (their
    keys appended to ``new_keys``); a student already in the class keeps their key."""
    kept = store.get_meta(ADMIN_DIGEST)
    source = "given" if admin_token else ("kept" if kept else "new")
    token = admin_token or new_admin_token()
    if source != "kept":
        store.set_meta(ADMIN_DIGEST, admin_digest(token))
    settings.admin_token = token
    settings.admin_digest = kept if source == "kept" else None
    settings.admin_token_private = source == "kept"  # this start's own (its control plane's), never printed
    state = ClassroomState(settings, store, forwarding, catalog, window_rule)
    for entry in entries:
        if entry.student not in state.known:
            new_keys.append((entry.student, state.add_student(entry.student, entry.cap_usd)))
        elif entry.cap_usd is not None:
            state.set_cap(entry.student, entry.cap_usd)
    return state, source


def _per_minute(value: Any, name: str) -> Optional[int]:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{name} must be a whole number of requests per minute >= 1 (or None: no limit); got "
                         f"{value!r}")
    return value


def start(upstream: str = "offline", upstream_key: Optional[str] = None, roster: Any = None, cap: float = 2.00,
          window: str = "total", models: Optional[Iterable[str]] = None, max_request_cost: Optional[float] = None,
          db: Optional[str] = None, host: str = "127.0.0.1", port: int = 0, admin_token: Optional[str] = None, *,
          default_max_tokens: int = 1024, clock: Optional[Callable[[], Any]] = None, store: Optional[Store] = None,
          offline: Optional[dict[str, Any]] = None, job_check_seconds: float = 2.0,
          upstream_timeout: float = 300.0, root_path: Optional[str] = None, keys_out: Optional[str] = None,
          announce: bool = True, max_answer_bytes: int = MAX_ANSWER_BYTES,
          max_buffered_bytes: int = MAX_BUFFERED_BYTES, rpm: Optional[int] = None, class_rpm: Optional[int] = None,
          log_prompts: bool = False, retention_days: float = 30, _names: SettingNames = PYTHON,
          cors_origins: Optional[Iterable[str]] = None, hub_api_url: Optional[str] = None) -> Classroom:
    """Start a classroom in a background thread (``port=0``: a free port). See docs/classroom.md.

    ``upstream``: the gateway's URL, or ``"offline"`` (a private offline gateway, ``offline=`` its options).
    ``clock``: a callable returning an aware ``datetime`` (the daily/weekly windows; tests pass a fake one);
    ``store``: another :class:`gatewaykit.classroom.store.Store` than SQLite at ``db``.
    ``root_path``: serve under a path prefix, e.g. ``"/services/classroom"`` behind JupyterHub's proxy
    (``room.base_url`` ends with it; requests without the prefix are served too).
    ``db``: the class's SQLite file, or a ``postgresql://USER@HOST:PORT/DB`` URL (extra ``gatewaykit[postgres]``;
    the password in the URL or ``PGPASSWORD``): every classroom given the same URL is one class; none: the per-user
    ``classroom.db`` for a real gateway, memory for practice (:mod:`gatewaykit.classroom.db_location`);
    ``":memory:"``: memory only. ``admin_token``: the teacher's token
    (kept in ``db`` as a digest); none: the one kept there, or a new one. ``keys_out``: a CSV every key the
    classroom issues is appended to. ``announce``: print where students connect and where the class is kept.
    ``max_answer_bytes`` / ``max_buffered_bytes``: one buffered answer at most, and all bodies buffered at once
    (:mod:`gatewaykit.classroom.buffered_bytes`).
    ``cors_origins``: browser origins whose pages may call the class, e.g. a JupyterLite site's (none by default).
    ``hub_api_url``: a keyless hub (JupyterHub's API, e.g. ``$JUPYTERHUB_API_URL``): a bearer token that is
    not a classroom key is asked of the hub, and the user it names is the student (added with the class cap).
    ``window="monthly"``: caps reset on the first of each month at local midnight. ``rpm``: requests per minute
    per student, ``class_rpm``: for the whole class (429 with ``Retry-After`` past either; None: no limit).
    ``log_prompts``: keep prompts and answers under per-student pseudonyms for ``retention_days`` (default off:
    nothing of a prompt or answer is stored). A malformed roster or setting is a ``ValueError`` saying what to change."""
    names = _names
    entries = read_roster(roster)
    prefix = checked_root_path(root_path, names.root_path)
    origins = browser_origins(cors_origins)
    cap_usd = checked_usd(cap, names.cap)
    limit = checked_usd(max_request_cost, names.max_request_cost, allow_none=True)
    window_rule = Window(window, clock)
    if isinstance(default_max_tokens, bool) or not isinstance(default_max_tokens, int) or default_max_tokens < 1:
        raise ValueError(f"{names.default_max_tokens} must be a whole number >= 1; got {default_max_tokens!r}")
    allowed = None if models is None else frozenset([models] if isinstance(models, str) else models)
    per_student, per_class = _per_minute(rpm, names.rpm), _per_minute(class_rpm, names.class_rpm)
    if isinstance(retention_days, bool) or not isinstance(retention_days, (int, float)) or \
            not math.isfinite(retention_days) or retention_days <= 0:
        raise ValueError(f"{names.retention_days} must be a number of days > 0; got {retention_days!r}")
    gateway = None
    if upstream == "offline":
        from gatewaykit.emulator import start as start_offline

        gateway = start_offline(**(offline or {}))
        base_url, key = gateway.base_url, gateway.api_key or ""
    else:
        if not isinstance(upstream, str) or not upstream.startswith(("http://", "https://")):
            raise ValueError(f"{names.upstream} must be the gateway's URL (http:// or https://) or 'offline'; "
                             f"got {upstream!r}")
        # the gateway's address without /v1 (as SVC_BASE_URL is written); the classroom adds /v1 to each path
        base_url = upstream.rstrip("/").removesuffix("/v1")
        key = upstream_key or os.environ.get("SVC_API_KEY") or ""
        if not key:
            raise ValueError(f"The classroom needs the teacher's key: {names.teacher_key}.")
    opened: Optional[Store] = None
    try:
        # the classroom's own offline gateway is in this process: never through an outbound proxy
        listed, upstream_offline = _catalog(base_url, key, trust_env=gateway is None, names=names)
        catalog = WorstCase(listed)
        if allowed is not None:
            unknown = sorted(allowed - set(catalog.entries))
            if unknown:
                raise ValueError(f"models {', '.join(unknown)} are not in the gateway's catalog; choose from "
                                 f"{', '.join(sorted(catalog.entries))}")
        if store is None:
            store = opened = open_store(db or default_db(practice=gateway is not None))
        hub = None
        if hub_api_url:
            from gatewaykit.classroom.hub_auth import HubAuth

            hub = HubAuth(hub_api_url)
        new_keys: list[tuple[str, str]] = []
        with getattr(store, "exclusive", contextlib.nullcontext)():  # a shared class: one start at a time decides
            if getattr(store, "shared", False):  # the class's cap, window and models: the same on every process
                changed = class_settings.agree(store, cap_usd or 0.0, window, allowed, names)
                if changed:
                    warnings.warn(changed, RuntimeWarning, stacklevel=2)
            state, source = _class_state(store, entries, new_keys, admin_token, ClassSettings(
                cap_usd=cap_usd or 0.0, window=window, models=allowed, max_request_cost_usd=limit,
                default_max_tokens=default_max_tokens, job_check_seconds=job_check_seconds, root_path=prefix,
                upstream_offline=upstream_offline, names=names, keys_file=keys_out, cors_origins=origins,
                rpm=per_student, class_rpm=per_class, log_prompts=bool(log_prompts),
                retention_days=float(retention_days)),
                Upstream(base_url, key, timeout=upstream_timeout, trust_env=gateway is None,
                         max_answer_bytes=max_answer_bytes, max_buffered_bytes=max_buffered_bytes),
                catalog, window_rule)
        state.hub = hub
        room = _in_process(state, host, port, new_keys, gateway, source)
        if announce:
            print(room.start_line(), flush=True)
        return room
    except BaseException:
        if opened is not None:
            opened.close()
        if gateway is not None:
            gateway.stop()
        raise
