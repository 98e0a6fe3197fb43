"""``PostgresStore``: one class in PostgreSQL, shared by every classroom process given the same URL.

Holds are decided in one statement that checks and reserves together (row lock per student);
changes reach every process by ``NOTIFY`` with a poll as fallback; held rows of a process that
stopped are charged by the others; each job is claimed with ``FOR UPDATE SKIP LOCKED``. The schema
migrates under an advisory lock; the password is never shown. Details: ``docs/internals.md``.
"""

from __future__ import annotations

import contextlib
import threading
import time
import uuid
from typing import Any, Callable, Iterator, Optional, TypeVar
from urllib.parse import urlsplit, urlunsplit

from gatewaykit.classroom.store import (HELD, NO_BALANCE, UNKNOWN, DatabaseUnavailable, OpenHold, StudentExists,
                                        StudentRow, day_of)

__all__ = ["CHANNEL", "PostgresStore", "SCHEMA_VERSION", "is_postgres_url", "shown_url"]

CHANNEL = "gatewaykit_classroom"
_LOCK_KEY = 0x6761_7465_6B69_74  # pg_advisory_lock key for schema and roster work ("gatekit")
_T = TypeVar("_T")

# Each entry migrates from the version before it; the list's length is the current version.
_MIGRATIONS = [
    """
    CREATE TABLE students (
        student TEXT PRIMARY KEY, key_digest TEXT NOT NULL UNIQUE, cap_nanos BIGINT,
        revoked BOOLEAN NOT NULL DEFAULT FALSE, added DOUBLE PRECISION NOT NULL, seq BIGSERIAL);
    CREATE TABLE requests (
        id BIGSERIAL PRIMARY KEY, student TEXT NOT NULL, model TEXT NOT NULL, kind TEXT NOT NULL,
        status TEXT NOT NULL, hold_nanos BIGINT NOT NULL, cost_nanos BIGINT, win TEXT NOT NULL, upstream_id TEXT,
        created DOUBLE PRECISION NOT NULL, finished DOUBLE PRECISION, instance TEXT);
    CREATE INDEX requests_held ON requests (id) WHERE status = 'held';
    CREATE TABLE jobs (
        job_id TEXT PRIMARY KEY, student TEXT NOT NULL, kind TEXT NOT NULL, request_id BIGINT NOT NULL UNIQUE,
        price_nanos BIGINT, next_check_at DOUBLE PRECISION NOT NULL DEFAULT 0);
    CREATE TABLE totals (
        student TEXT NOT NULL, model TEXT NOT NULL, win TEXT NOT NULL, spent_nanos BIGINT NOT NULL DEFAULT 0,
        requests BIGINT NOT NULL DEFAULT 0, refused BIGINT NOT NULL DEFAULT 0, last_request DOUBLE PRECISION,
        balance_refused BIGINT NOT NULL DEFAULT 0, unknown BIGINT NOT NULL DEFAULT 0,
        unknown_nanos BIGINT NOT NULL DEFAULT 0, PRIMARY KEY (student, model, win));
    CREATE TABLE balances (
        student TEXT NOT NULL, win TEXT NOT NULL, spent_nanos BIGINT NOT NULL DEFAULT 0,
        held_nanos BIGINT NOT NULL DEFAULT 0, cap_nanos BIGINT, PRIMARY KEY (student, win));
    CREATE TABLE meta (name TEXT PRIMARY KEY, value TEXT);
    CREATE TABLE revoked_keys (
        key_digest TEXT PRIMARY KEY, student TEXT NOT NULL, revoked DOUBLE PRECISION NOT NULL, seq BIGSERIAL);
    CREATE TABLE instances (id TEXT PRIMARY KEY, seen_at DOUBLE PRECISION NOT NULL);
    CREATE SEQUENCE class_changes;
    """,
    """
    CREATE TABLE days (
        student TEXT NOT NULL, day TEXT NOT NULL, win TEXT NOT NULL, spent_nanos BIGINT NOT NULL DEFAULT 0,
        requests BIGINT NOT NULL DEFAULT 0, refused BIGINT NOT NULL DEFAULT 0, cap_hits BIGINT NOT NULL DEFAULT 0,
        PRIMARY KEY (student, day, win));
    """,
    # the course policy (gatewaykit.classroom.policy)
    """
    ALTER TABLE requests ADD COLUMN assignment TEXT;
    CREATE TABLE audit (
        id BIGSERIAL PRIMARY KEY, at DOUBLE PRECISION NOT NULL, action TEXT NOT NULL, student TEXT,
        detail TEXT NOT NULL, origin TEXT NOT NULL);
    CREATE TABLE schedules (
        id BIGSERIAL PRIMARY KEY, start_at DOUBLE PRECISION NOT NULL, end_at DOUBLE PRECISION NOT NULL, reason TEXT,
        overridden BOOLEAN NOT NULL DEFAULT FALSE);
    CREATE TABLE assignments (
        name TEXT PRIMARY KEY, cap_nanos BIGINT NOT NULL, start_at DOUBLE PRECISION NOT NULL,
        end_at DOUBLE PRECISION, models TEXT);
    CREATE TABLE assignment_totals (
        assignment TEXT NOT NULL, student TEXT NOT NULL, spent_nanos BIGINT NOT NULL DEFAULT 0,
        requests BIGINT NOT NULL DEFAULT 0, refused BIGINT NOT NULL DEFAULT 0, PRIMARY KEY (assignment, student));
    CREATE TABLE cap_raises (
        student TEXT PRIMARY KEY, cap_nanos BIGINT, until DOUBLE PRECISION NOT NULL, previous_nanos BIGINT);
    CREATE TABLE prompts (
        id BIGSERIAL PRIMARY KEY, at DOUBLE PRECISION NOT NULL, pseudonym TEXT NOT NULL, model TEXT NOT NULL,
        kind TEXT NOT NULL, prompt TEXT NOT NULL, answer TEXT);
    CREATE INDEX prompts_at ON prompts (at);
    """,
]
SCHEMA_VERSION = len(_MIGRATIONS)
_UNSETTLED_MAX = 100_000  # finishes kept for a retry while the database is away (past it: charged at their hold)
_NOW = "extract(epoch from clock_timestamp())"  # the database's clock: one clock for every process


def is_postgres_url(db: Optional[str]) -> bool:
    return isinstance(db, str) and db.startswith(("postgresql://", "postgres://"))


def shown_url(url: str) -> str:
    """``url`` without its password (what every message, log line and repr shows)."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    netloc = f"{parts.username or ''}@{host}" + (f":{parts.port}" if parts.port else "")
    return urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment))


class PostgresStore:
    """The class in the PostgreSQL database at ``url`` (``postgresql://USER[:PASSWORD]@HOST:PORT/DB``)."""

    shared = True  # several processes may share this store: holds, changes and jobs are decided in the database

    def __init__(self, url: str, *, connect_timeout: float = 3.0, dead_after: float = 5.0,
                 stale_after: float = 360.0) -> None:
        try:
            import psycopg  # noqa: F401
        except ImportError:
            raise ImportError("A class in PostgreSQL needs psycopg: pip install 'gatewaykit[postgres]'") from None
        self.url = shown_url(url)
        self.path = self.url  # what the classroom names as where the class is kept
        self.__conninfo = url
        self.connect_timeout = connect_timeout
        #: Seconds without a heartbeat after which a process counts as gone (its held rows are charged).
        self.dead_after = dead_after
        #: Seconds after which a held row that is no job is charged at its hold whoever holds it (past the
        #: upstream time-out: the request cannot still be waiting for its answer).
        self.stale_after = stale_after
        self.instance = uuid.uuid4().hex[:16]
        self._lock = threading.RLock()
        self._conn: Any = None
        self._students_of: dict[int, str] = {}  # the student of each row this process holds (the lock order)
        #: Finishes the database missed (it went away while they were recorded): made final by
        #: :meth:`retry_unsettled` once it is back, at what the gateway charged.
        self._unsettled: dict[int, tuple[int, str, int, Optional[str]]] = {}
        self._closed = False
        with self._guard():
            self._migrate()
        self.heartbeat()

    def __repr__(self) -> str:
        return f"PostgresStore({self.url!r})"

    # -- connections ----------------------------------------------------------------------------------------------
    def connect(self, autocommit: bool = True) -> Any:
        """A new connection to the class's database (for a listener: its own)."""
        import psycopg

        return psycopg.connect(self.__conninfo, autocommit=autocommit, connect_timeout=max(1, int(self.connect_timeout)),
                               application_name="gatewaykit-classroom")

    @contextlib.contextmanager
    def _guard(self) -> Iterator[Any]:
        """The connection, under the store's lock; a database that cannot be reached: DatabaseUnavailable."""
        import psycopg

        with self._lock:
            if self._closed:
                raise DatabaseUnavailable(self.url, "the store is closed")
            try:
                if self._conn is None or self._conn.closed:
                    self._conn = self.connect()
                yield self._conn
            except (psycopg.OperationalError, psycopg.InterfaceError) as exc:
                if self._conn is not None and (self._conn.closed or self._conn.broken):
                    self._conn = None
                elif self._conn is not None and not isinstance(exc, psycopg.errors.QueryCanceled):
                    with contextlib.suppress(Exception):
                        self._conn.close()
                    self._conn = None
                raise DatabaseUnavailable(self.url, _reason(exc)) from None

    def _all(self, sql: str, args: Any = None) -> list[tuple]:
        with self._guard() as conn:
            return conn.execute(sql, args).fetchall()  # type: ignore[no-any-return]

    def _run(self, sql: str, args: Any = None) -> int:
        with self._guard() as conn:
            return int(conn.execute(sql, args).rowcount)

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[Any]:
        with self._guard() as conn, conn.transaction():
            yield conn

    def _migrate(self) -> None:
        with self._transaction() as conn:
            conn.execute("SELECT pg_advisory_xact_lock(%s)", (_LOCK_KEY,))  # a second process waits here
            conn.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
            row = conn.execute("SELECT version FROM schema_version").fetchone()
            version = 0 if row is None else int(row[0])
            if version > SCHEMA_VERSION:
                raise RuntimeError(f"The class database {self.url} has schema version {version}, newer than this "
                                   f"gatewaykit's ({SCHEMA_VERSION}): upgrade gatewaykit on this machine.")
            for step in _MIGRATIONS[version:]:
                conn.execute(step)
            if row is None:
                conn.execute("INSERT INTO schema_version (version) VALUES (%s)", (SCHEMA_VERSION,))
            elif version < SCHEMA_VERSION:
                conn.execute("UPDATE schema_version SET version = %s", (SCHEMA_VERSION,))

    @contextlib.contextmanager
    def exclusive(self) -> Iterator[None]:
        """Held by one process at a time (an advisory lock): a start's admin token and roster are decided once."""
        with self._guard() as conn:
            conn.execute("SELECT pg_advisory_lock(%s)", (_LOCK_KEY,))
        try:
            yield
        finally:
            with contextlib.suppress(DatabaseUnavailable), self._guard() as conn:
                conn.execute("SELECT pg_advisory_unlock(%s)", (_LOCK_KEY,))

    def _changed(self, conn: Any) -> None:
        conn.execute("SELECT nextval('class_changes'), pg_notify(%s, '')", (CHANNEL,))

    def changes(self) -> int:
        """How many changes the class has had (a roster, a cap, a key, the kill switch): a poll compares it."""
        return int(self._all("SELECT last_value + CASE WHEN is_called THEN 1 ELSE 0 END FROM class_changes")[0][0])

    # -- the roster --------------------------------------------------------------------------------------------
    def students(self) -> list[StudentRow]:
        return [StudentRow(s, d, c, bool(r)) for s, d, c, r in
                self._all("SELECT student, key_digest, cap_nanos, revoked FROM students ORDER BY seq")]

    def add_student(self, student: str, key_digest: str, cap_nanos: Optional[int]) -> None:
        """Add a student; :class:`StudentExists` when they are in the class already (another process added them
        the same moment: the first insert wins, the second finds the row)."""
        with self._transaction() as conn:
            added = conn.execute("INSERT INTO students (student, key_digest, cap_nanos, added) "
                                 "VALUES (%s, %s, %s, %s) ON CONFLICT (student) DO NOTHING",
                                 (student, key_digest, cap_nanos, time.time())).rowcount
            if not added:
                raise StudentExists(student)
            self._changed(conn)

    def set_cap(self, student: str, cap_nanos: Optional[int]) -> None:
        with self._transaction() as conn:
            conn.execute("UPDATE students SET cap_nanos = %s WHERE student = %s", (cap_nanos, student))
            self._changed(conn)

    def set_key(self, student: str, key_digest: str) -> None:
        with self._transaction() as conn:
            conn.execute("UPDATE students SET key_digest = %s, revoked = FALSE WHERE student = %s",
                         (key_digest, student))
            self._changed(conn)

    def revoke(self, student: str) -> None:
        with self._transaction() as conn:
            conn.execute("INSERT INTO revoked_keys (key_digest, student, revoked) SELECT key_digest, student, %s "
                         "FROM students WHERE student = %s ON CONFLICT DO NOTHING", (time.time(), student))
            conn.execute("UPDATE students SET revoked = TRUE WHERE student = %s", (student,))
            self._changed(conn)

    def revoked_keys(self) -> list[tuple[str, str]]:
        return [(d, s) for d, s in self._all("SELECT key_digest, student FROM revoked_keys ORDER BY seq")]

    def student_for(self, key_digest: str) -> Optional[tuple[str, Optional[int]]]:
        """``(student, cap_nanos)`` whose active key has this digest, or None."""
        rows = self._all("SELECT student, cap_nanos FROM students WHERE key_digest = %s AND NOT revoked",
                         (key_digest,))
        return (rows[0][0], rows[0][1]) if rows else None

    # -- requests and holds ------------------------------------------------------------------------------------
    def open_request(self, student: str, model: str, kind: str, hold_nanos: int, window: str,
                     assignment: Optional[str] = None) -> int:
        """A held row without a cap check (the protocol's; a shared class takes holds with :meth:`hold`)."""
        with self._transaction() as conn:
            conn.execute("INSERT INTO balances AS b (student, win, held_nanos) VALUES (%s, %s, %s) ON CONFLICT "
                         "(student, win) DO UPDATE SET held_nanos = b.held_nanos + excluded.held_nanos",
                         (student, window, hold_nanos))
            row = conn.execute(
                "INSERT INTO requests (student, model, kind, status, hold_nanos, win, created, instance, assignment) "
                "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s) RETURNING id",
                (student, model, kind, HELD, hold_nanos, window, time.time(), self.instance, assignment)).fetchone()
        return int(row[0])

    # The student's balance row for the window is made by the first hold, or its hold added under the row's lock
    # when the cap (their own, else the class's: ``cap_nanos`` of the would-be row) minus what is spent and held
    # leaves room; the request's row is inserted only from a hold that was taken.
    _HOLD = (
        "WITH held AS (INSERT INTO balances AS b (student, win, held_nanos, cap_nanos) "
        "  SELECT s.student, %(win)s, %(n)s, COALESCE(s.cap_nanos, %(cap)s) FROM students s "
        "  WHERE s.student = %(student)s AND COALESCE(s.cap_nanos, %(cap)s) >= %(n)s "
        "  ON CONFLICT (student, win) DO UPDATE SET held_nanos = b.held_nanos + excluded.held_nanos, "
        "  cap_nanos = excluded.cap_nanos "
        "  WHERE excluded.cap_nanos - b.spent_nanos - b.held_nanos >= excluded.held_nanos RETURNING b.student) "
        "INSERT INTO requests (student, model, kind, status, hold_nanos, win, created, instance, assignment) "
        "SELECT student, %(model)s, %(kind)s, 'held', %(n)s, %(win)s, %(now)s, %(me)s, %(assignment)s FROM held "
        "RETURNING id")

    def hold(self, student: str, model: str, kind: str, hold_nanos: int, window: str,
             class_cap_nanos: int, assignment: Optional[str] = None) -> Optional[int]:
        """Hold ``hold_nanos`` for a request and return its row, in one statement that checks the student's cap
        (their own, or ``class_cap_nanos``) against what they spent and hold in ``window``; None: it does not fit
        (nothing written)."""
        rows = self._all(self._HOLD, {"n": hold_nanos, "student": student, "win": window, "cap": class_cap_nanos,
                                      "model": model, "kind": kind, "now": time.time(), "me": self.instance,
                                      "assignment": assignment})
        if not rows:
            return None
        self._students_of[int(rows[0][0])] = student
        return int(rows[0][0])

    def standing(self, student: str, window: str, class_cap_nanos: int) -> tuple[int, int, int]:
        """``(spent, held, cap)`` of ``student`` in ``window``, as the database has them now."""
        rows = self._all("SELECT COALESCE(s.cap_nanos, %s), COALESCE(b.spent_nanos, 0), COALESCE(b.held_nanos, 0) "
                         "FROM students s LEFT JOIN balances b ON b.student = s.student AND b.win = %s "
                         "WHERE s.student = %s", (class_cap_nanos, window, student))
        if not rows:
            return 0, 0, class_cap_nanos
        cap, spent, held = rows[0]
        return int(spent), int(held), int(cap)

    def held_row(self, row_id: int) -> Optional[int]:
        """The hold of row ``row_id`` while it is held; None once it is settled (by any process)."""
        rows = self._all("SELECT hold_nanos FROM requests WHERE id = %s AND status = 'held'", (row_id,))
        return int(rows[0][0]) if rows else None

    def attach_job(self, row_id: int, job_id: str, kind: str, price_nanos: Optional[int]) -> None:
        with self._transaction() as conn:
            conn.execute("UPDATE requests SET upstream_id = %s WHERE id = %s", (job_id, row_id))
            conn.execute("INSERT INTO jobs (job_id, student, kind, request_id, price_nanos) "
                         "SELECT %s, student, %s, id, %s FROM requests WHERE id = %s "
                         "ON CONFLICT (job_id) DO UPDATE SET kind = excluded.kind, request_id = excluded.request_id, "
                         "price_nanos = excluded.price_nanos", (job_id, kind, price_nanos, row_id))

    def finish_request(self, row_id: int, status: str, cost_nanos: int, upstream_id: Optional[str] = None) -> None:
        self.finish_requests([(row_id, status, cost_nanos, upstream_id)])

    _FINISH = (
        "WITH done AS (UPDATE requests SET status = %(status)s, cost_nanos = %(cost)s, finished = %(now)s, "
        "  upstream_id = COALESCE(%(upstream)s, upstream_id) WHERE id = %(id)s AND status = 'held' "
        "  RETURNING student, model, win, hold_nanos, assignment), "
        "b AS (UPDATE balances SET held_nanos = balances.held_nanos - done.hold_nanos, "
        "  spent_nanos = balances.spent_nanos + %(cost)s FROM done "
        "  WHERE balances.student = done.student AND balances.win = done.win), "
        "t AS (INSERT INTO totals (student, model, win, spent_nanos, requests, balance_refused, last_request, "
        "  unknown, unknown_nanos) "
        "  SELECT student, model, win, %(cost)s, %(paid)s, %(unpaid)s, %(now)s, %(unknown)s, %(unknown_nanos)s "
        "  FROM done "
        "  ON CONFLICT (student, model, win) DO UPDATE SET spent_nanos = totals.spent_nanos + excluded.spent_nanos, "
        "  requests = totals.requests + excluded.requests, "
        "  balance_refused = totals.balance_refused + excluded.balance_refused, "
        "  last_request = GREATEST(COALESCE(totals.last_request, 0), excluded.last_request), "
        "  unknown = totals.unknown + excluded.unknown, unknown_nanos = totals.unknown_nanos + excluded.unknown_nanos), "
        "d AS (INSERT INTO days (student, day, win, spent_nanos, requests, refused) "
        "  SELECT student, %(day)s, win, %(cost)s, %(paid)s, %(unpaid)s FROM done "
        "  ON CONFLICT (student, day, win) DO UPDATE SET spent_nanos = days.spent_nanos + excluded.spent_nanos, "
        "  requests = days.requests + excluded.requests, refused = days.refused + excluded.refused), "
        "a AS (INSERT INTO assignment_totals (assignment, student, spent_nanos, requests) "
        "  SELECT assignment, student, %(cost)s, %(paid)s FROM done WHERE assignment IS NOT NULL "
        "  ON CONFLICT (assignment, student) DO UPDATE SET "
        "  spent_nanos = assignment_totals.spent_nanos + excluded.spent_nanos, "
        "  requests = assignment_totals.requests + excluded.requests) "
        "SELECT count(*) FROM done")

    def finish_requests(self, rows: list[tuple[int, str, int, Optional[str]]]) -> list[int]:
        """Make requests' rows final and add them to the totals and balances, all in one transaction (each row
        one statement); a row already final (settled by this process or another) is left. Returns the rows this
        call made final."""
        now = time.time()

        def args(row_id: int, status: str, cost_nanos: int, upstream_id: Optional[str]) -> dict[str, Any]:
            unpaid = int(status == NO_BALANCE)
            unknown = int(status.startswith(UNKNOWN))
            return {"status": status, "cost": cost_nanos, "now": now, "day": day_of(now), "upstream": upstream_id,
                    "id": row_id,
                    "paid": 1 - unpaid, "unpaid": unpaid, "unknown": unknown, "unknown_nanos": cost_nanos * unknown}

        try:
            if len(rows) == 1:  # one statement is a transaction of its own: one round trip
                found = self._all(self._FINISH, args(*rows[0]))
                self._students_of.pop(rows[0][0], None)
                return [rows[0][0]] if found and found[0][0] else []
            done = []
            # one lock order for every process (balance rows by student): two settling groups never deadlock
            ordered = sorted(rows, key=lambda r: (self._students_of.get(r[0], ""), r[0]))
            with self._transaction() as conn:
                for row in ordered:
                    found = conn.execute(self._FINISH, args(*row)).fetchone()
                    if found and found[0]:
                        done.append(row[0])
        except DatabaseUnavailable as exc:  # the rows stay held, and are retried when the database is back
            with self._lock:
                for row in rows:
                    if len(self._unsettled) < _UNSETTLED_MAX:
                        self._unsettled[row[0]] = row
            raise DatabaseUnavailable(exc.where, exc.reason, settling=True) from None
        for row in rows:
            self._students_of.pop(row[0], None)
        return done

    def retry_unsettled(self) -> list[int]:
        """Make final the finishes the database missed while it was away (the class's sync thread calls this each
        beat); DatabaseUnavailable (they stay queued) while it still is. Returns the rows made final (a row another
        process charged at its hold meanwhile is left as it is)."""
        with self._lock:
            rows, self._unsettled = list(self._unsettled.values()), {}
        if not rows:
            return []
        return self.finish_requests(rows)

    def count_refusal(self, student: str, model: str, window: str, cap_hit: bool = False) -> None:
        """One request refused by the classroom (``cap_hit``: because the student's cap was reached)."""
        now = time.time()
        self._run("WITH t AS (INSERT INTO totals (student, model, win, refused, last_request) "
                  "  VALUES (%(student)s, %(model)s, %(win)s, 1, %(now)s) "
                  "  ON CONFLICT (student, model, win) DO UPDATE SET refused = totals.refused + 1, "
                  "  last_request = GREATEST(COALESCE(totals.last_request, 0), excluded.last_request)) "
                  "INSERT INTO days (student, day, win, refused, cap_hits) "
                  "VALUES (%(student)s, %(day)s, %(win)s, 1, %(cap_hit)s) "
                  "ON CONFLICT (student, day, win) DO UPDATE SET refused = days.refused + 1, "
                  "cap_hits = days.cap_hits + excluded.cap_hits",
                  {"student": student, "model": model, "win": window, "now": now, "day": day_of(now),
                   "cap_hit": int(cap_hit)})

    def open_holds(self) -> list[OpenHold]:
        rows = self._all("SELECT r.id, r.student, r.model, r.kind, r.hold_nanos, r.win, j.job_id, j.price_nanos, "
                         "r.assignment FROM requests r LEFT JOIN jobs j ON j.request_id = r.id WHERE r.status = 'held' "
                         "ORDER BY r.id")
        return [OpenHold(*row) for row in rows]

    def job(self, job_id: str) -> Optional[tuple[str, str, int]]:
        rows = self._all("SELECT student, kind, request_id FROM jobs WHERE job_id = %s", (job_id,))
        return (rows[0][0], rows[0][1], int(rows[0][2])) if rows else None

    def job_price(self, row_id: int) -> Optional[int]:
        """The quoted price of the job whose request row is ``row_id`` (None: no job, or no price)."""
        rows = self._all("SELECT price_nanos FROM jobs WHERE request_id = %s", (row_id,))
        return None if not rows or rows[0][0] is None else int(rows[0][0])

    def request_cost(self, row_id: int) -> Optional[int]:
        """What a finished request (or job) was charged, in nanos; None while it is held."""
        rows = self._all("SELECT cost_nanos FROM requests WHERE id = %s AND status != 'held'", (row_id,))
        return None if not rows or rows[0][0] is None else int(rows[0][0])

    def spent(self, student: str, window: str) -> int:
        rows = self._all("SELECT COALESCE(sum(spent_nanos), 0) FROM totals WHERE student = %s AND win = %s",
                         (student, window))
        return int(rows[0][0])

    def totals(self, window: str) -> list[dict[str, Any]]:
        rows = self._all("SELECT student, model, spent_nanos, requests, refused, balance_refused, last_request, "
                         "unknown, unknown_nanos FROM totals WHERE win = %s", (window,))
        names = ("student", "model", "spent_nanos", "requests", "refused", "balance_refused", "last_request",
                 "unknown", "unknown_nanos")
        return [dict(zip(names, row)) for row in rows]

    def days(self, window: str) -> list[dict[str, Any]]:
        """Per student and day (the classroom's local date) in ``window``: spent_nanos, requests, refused,
        cap_hits."""
        rows = self._all("SELECT student, day, spent_nanos, requests, refused, cap_hits FROM days WHERE win = %s "
                         "ORDER BY day, student", (window,))
        names = ("student", "day", "spent_nanos", "requests", "refused", "cap_hits")
        return [dict(zip(names, row)) for row in rows]

    def get_meta(self, name: str) -> Optional[str]:
        rows = self._all("SELECT value FROM meta WHERE name = %s", (name,))
        return rows[0][0] if rows else None

    def set_meta(self, name: str, value: Optional[str]) -> None:
        with self._transaction() as conn:
            conn.execute("INSERT INTO meta (name, value) VALUES (%s, %s) "
                         "ON CONFLICT (name) DO UPDATE SET value = excluded.value", (name, value))
            self._changed(conn)

    # -- several processes: heartbeats, abandoned holds, jobs --------------------------------------------------
    def heartbeat(self) -> None:
        self._run(f"INSERT INTO instances (id, seen_at) VALUES (%s, {_NOW}) "
                  "ON CONFLICT (id) DO UPDATE SET seen_at = excluded.seen_at", (self.instance,))

    def others_running(self) -> int:
        """How many other processes of the class beat their heart within ``dead_after`` seconds."""
        return int(self._all(f"SELECT count(*) FROM instances WHERE id != %s AND seen_at >= {_NOW} - %s",
                             (self.instance, self.dead_after))[0][0])

    def settle_abandoned(self) -> list[int]:
        """Charge at its hold every held row that is no job and whose process stopped beating (``dead_after``),
        or that is older than ``stale_after``: its price is unknown, its hold is the worst case. Returns them."""
        with self._transaction() as conn:
            rows = conn.execute(
                "SELECT r.id, r.hold_nanos FROM requests r LEFT JOIN instances i ON i.id = r.instance "
                "WHERE r.status = 'held' AND NOT EXISTS (SELECT 1 FROM jobs j WHERE j.request_id = r.id) "
                f"AND (i.seen_at IS NULL OR i.seen_at < {_NOW} - %s OR r.created < %s) "
                "ORDER BY r.id LIMIT 500 FOR UPDATE OF r SKIP LOCKED",
                (self.dead_after, time.time() - self.stale_after)).fetchall()
        if not rows:
            return []
        status = f"{UNKNOWN}: its classroom process stopped"
        return self.finish_requests([(int(row_id), status, int(hold), None) for row_id, hold in rows])

    def claim_jobs(self, every: float, limit: int = 50) -> list[OpenHold]:
        """Unfinished jobs due for a check, claimed for this process: each one's ``next_check_at`` moves ``every``
        seconds on, so no other process checks it before then (and another does if this one stops)."""
        rows = self._all(
            f"UPDATE jobs SET next_check_at = {_NOW} + %s WHERE job_id IN ("
            "  SELECT j.job_id FROM jobs j JOIN requests r ON r.id = j.request_id "
            f"  WHERE r.status = 'held' AND j.next_check_at <= {_NOW} ORDER BY j.next_check_at LIMIT %s "
            "  FOR UPDATE OF j SKIP LOCKED) "
            "RETURNING request_id, job_id, price_nanos", (every, limit))
        if not rows:
            return []
        held = {int(r[0]): r for r in self._all(
            "SELECT id, student, model, kind, hold_nanos, win FROM requests WHERE id = ANY(%s)",
            ([int(r[0]) for r in rows],))}
        out = []
        for request_id, job_id, price in rows:
            found = held.get(int(request_id))
            if found is not None:
                _, student, model, kind, hold, win = found
                out.append(OpenHold(int(request_id), student, model, kind, int(hold), win, job_id, price))
        return out

    # -- the course policy -----------------------------------------------------------------------------------
    def add_audit(self, at: float, action: str, student: Optional[str], detail: str, origin: str) -> None:
        self._run("INSERT INTO audit (at, action, student, detail, origin) VALUES (%s, %s, %s, %s, %s)",
                  (at, action, student, detail, origin))

    def audit_rows(self) -> list[dict[str, Any]]:
        names = ("at", "action", "student", "detail", "origin")
        return [dict(zip(names, row)) for row in
                self._all("SELECT at, action, student, detail, origin FROM audit ORDER BY id")]

    def add_schedule(self, start: float, end: float, reason: Optional[str]) -> int:
        with self._transaction() as conn:
            row = conn.execute("INSERT INTO schedules (start_at, end_at, reason) VALUES (%s, %s, %s) RETURNING id",
                               (start, end, reason)).fetchone()
            self._changed(conn)
        return int(row[0])

    def schedule_rows(self) -> list[dict[str, Any]]:
        names = ("id", "start", "end", "reason", "overridden")
        return [dict(zip(names, row)) for row in
                self._all("SELECT id, start_at, end_at, reason, overridden FROM schedules ORDER BY start_at, id")]

    def override_schedule(self, schedule_id: int) -> None:
        with self._transaction() as conn:
            conn.execute("UPDATE schedules SET overridden = TRUE WHERE id = %s", (schedule_id,))
            self._changed(conn)

    def add_assignment(self, name: str, cap_nanos: int, start: float, end: Optional[float],
                       models: Optional[list[str]]) -> None:
        import json

        with self._transaction() as conn:
            conn.execute("INSERT INTO assignments (name, cap_nanos, start_at, end_at, models) VALUES (%s, %s, %s, %s, "
                         "%s)", (name, cap_nanos, start, end, None if models is None else json.dumps(models)))
            self._changed(conn)

    def assignment_rows(self) -> list[dict[str, Any]]:
        import json

        return [{"name": n, "cap_nanos": int(c), "start": st, "end": e, "models": None if m is None else json.loads(m)}
                for n, c, st, e, m in self._all("SELECT name, cap_nanos, start_at, end_at, models FROM assignments "
                                                "ORDER BY start_at, name")]

    def assignment_spent(self, assignment: str, student: str) -> int:
        rows = self._all("SELECT spent_nanos FROM assignment_totals WHERE assignment = %s AND student = %s",
                         (assignment, student))
        return int(rows[0][0]) if rows else 0

    def assignment_totals(self) -> list[dict[str, Any]]:
        names = ("assignment", "student", "spent_nanos", "requests", "refused")
        return [dict(zip(names, row)) for row in
                self._all("SELECT assignment, student, spent_nanos, requests, refused FROM assignment_totals")]

    def count_assignment_refusal(self, assignment: str, student: str) -> None:
        self._run("INSERT INTO assignment_totals (assignment, student, refused) VALUES (%s, %s, 1) ON CONFLICT "
                  "(assignment, student) DO UPDATE SET refused = assignment_totals.refused + 1", (assignment, student))

    def set_cap_raise(self, student: str, cap_nanos: Optional[int], until: float,
                      previous_nanos: Optional[int]) -> None:
        with self._transaction() as conn:
            conn.execute("INSERT INTO cap_raises (student, cap_nanos, until, previous_nanos) VALUES (%s, %s, %s, %s) "
                         "ON CONFLICT (student) DO UPDATE SET cap_nanos = excluded.cap_nanos, until = excluded.until, "
                         "previous_nanos = excluded.previous_nanos", (student, cap_nanos, until, previous_nanos))
            conn.execute("UPDATE students SET cap_nanos = %s WHERE student = %s", (cap_nanos, student))
            self._changed(conn)

    def end_cap_raise(self, student: str, restore: bool) -> None:
        with self._transaction() as conn:
            if restore:
                conn.execute("UPDATE students SET cap_nanos = r.previous_nanos FROM cap_raises r "
                             "WHERE r.student = students.student AND students.student = %s", (student,))
            conn.execute("DELETE FROM cap_raises WHERE student = %s", (student,))
            self._changed(conn)

    def cap_raise_rows(self) -> list[dict[str, Any]]:
        names = ("student", "cap_nanos", "until", "previous_nanos")
        return [dict(zip(names, row)) for row in
                self._all("SELECT student, cap_nanos, until, previous_nanos FROM cap_raises")]

    def add_prompt(self, at: float, pseudonym: str, model: str, kind: str, prompt: str, answer: Optional[str]) -> None:
        self._run("INSERT INTO prompts (at, pseudonym, model, kind, prompt, answer) VALUES (%s, %s, %s, %s, %s, %s)",
                  (at, pseudonym, model, kind, prompt, answer))

    def prompt_rows(self) -> list[dict[str, Any]]:
        names = ("at", "pseudonym", "model", "kind", "prompt", "answer")
        return [dict(zip(names, row)) for row in
                self._all("SELECT at, pseudonym, model, kind, prompt, answer FROM prompts ORDER BY id")]

    def purge_prompts(self, before: float) -> int:
        return self._run("DELETE FROM prompts WHERE at < %s", (before,))

    def close(self) -> None:
        with self._lock:
            self._closed = True
            if self._conn is not None:
                with contextlib.suppress(Exception):
                    self._conn.execute("DELETE FROM instances WHERE id = %s", (self.instance,))
                with contextlib.suppress(Exception):
                    self._conn.close()
                self._conn = None


def _reason(exc: BaseException) -> str:
    """The first line of a driver error (libpq's own words: no password in them)."""
    text = str(exc).strip().splitlines()
    return text[0][:300] if text else type(exc).__name__


def retrying(call: Callable[[], _T], seconds: float) -> _T:
    """``call()`` until it stops raising DatabaseUnavailable or ``seconds`` have passed (then the last error)."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            return call()
        except DatabaseUnavailable:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)
