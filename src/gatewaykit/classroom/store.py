"""Where a classroom keeps its students, requests, jobs and spend: the ``Store`` interface and
``SQLiteStore``, the embedded default.

Keys are kept only as digests, money in integer nano-dollars; every forwarded request is a row
from hold to settlement, with running totals per student, model, window and day, so reports read
a few rows. Files are 0600 and one running classroom holds a file at a time. The tables:
``docs/internals.md``; the PostgreSQL store: :mod:`gatewaykit.classroom.postgres_store`.
"""

from __future__ import annotations

import os
import sqlite3
import threading
import time
from dataclasses import dataclass
from typing import Any, Optional, Protocol

from gatewaykit import sqlite_fork

__all__ = ["NO_BALANCE", "DatabaseInUse", "DatabaseUnavailable", "OpenHold", "SQLiteStore", "Store", "StudentExists",
           "StudentRow", "day_of", "owner_only"]

HELD = "held"  # a request in flight, or a job not yet finished: its hold still counts
#: The status of a request the gateway refused (402) because the teacher's paid balance was used up: nothing is
#: charged, and the totals count it in ``balance_refused``, not in ``requests``.
NO_BALANCE = "no paid balance"
UNKNOWN = "unknown"  # how the status of a request charged at its hold, its outcome unknown, begins
_SIDE_FILES = ("-wal", "-shm", "-journal")


@dataclass(frozen=True)
class StudentRow:
    student: str
    key_digest: str
    cap_nanos: Optional[int]  # None: the class cap
    revoked: bool


@dataclass(frozen=True)
class OpenHold:
    """A request whose hold was not settled (after a restart: a job still running, or a request cut off)."""

    row_id: int
    student: str
    model: str
    kind: str
    hold_nanos: int
    window: str
    job_id: Optional[str]
    price_nanos: Optional[int]  # a job's quoted price, charged at completion when the gateway reports none
    assignment: Optional[str] = None  # the assignment it counts against too, if one was open when it was held


class Store(Protocol):
    def students(self) -> list[StudentRow]: ...
    def add_student(self, student: str, key_digest: str, cap_nanos: Optional[int]) -> None: ...
    def set_cap(self, student: str, cap_nanos: Optional[int]) -> None: ...
    def set_key(self, student: str, key_digest: str) -> None: ...
    def revoke(self, student: str) -> None: ...
    def revoked_keys(self) -> list[tuple[str, str]]: ...
    def open_request(self, student: str, model: str, kind: str, hold_nanos: int, window: str,
                     assignment: Optional[str] = None) -> int: ...
    def attach_job(self, row_id: int, job_id: str, kind: str, price_nanos: Optional[int]) -> None: ...
    def finish_request(self, row_id: int, status: str, cost_nanos: int, upstream_id: Optional[str] = None) -> None: ...
    def finish_requests(self, rows: list[tuple[int, str, int, Optional[str]]]) -> list[int]: ...
    def count_refusal(self, student: str, model: str, window: str, cap_hit: bool = False) -> None: ...
    def open_holds(self) -> list[OpenHold]: ...
    def job(self, job_id: str) -> Optional[tuple[str, str, int]]: ...
    def request_cost(self, row_id: int) -> Optional[int]: ...
    def spent(self, student: str, window: str) -> int: ...
    def totals(self, window: str) -> list[dict[str, Any]]: ...
    def days(self, window: str) -> list[dict[str, Any]]: ...
    def get_meta(self, name: str) -> Optional[str]: ...
    def set_meta(self, name: str, value: Optional[str]) -> None: ...
    # the course policy (see gatewaykit.classroom.policy)
    def add_audit(self, at: float, action: str, student: Optional[str], detail: str, origin: str) -> None: ...
    def audit_rows(self) -> list[dict[str, Any]]: ...
    def add_schedule(self, start: float, end: float, reason: Optional[str]) -> int: ...
    def schedule_rows(self) -> list[dict[str, Any]]: ...
    def override_schedule(self, schedule_id: int) -> None: ...
    def add_assignment(self, name: str, cap_nanos: int, start: float, end: Optional[float],
                       models: Optional[list[str]]) -> None: ...
    def assignment_rows(self) -> list[dict[str, Any]]: ...
    def assignment_spent(self, assignment: str, student: str) -> int: ...
    def assignment_totals(self) -> list[dict[str, Any]]: ...
    def count_assignment_refusal(self, assignment: str, student: str) -> None: ...
    def set_cap_raise(self, student: str, cap_nanos: Optional[int], until: float,
                      previous_nanos: Optional[int]) -> None: ...
    def end_cap_raise(self, student: str, restore: bool) -> None: ...
    def cap_raise_rows(self) -> list[dict[str, Any]]: ...
    def add_prompt(self, at: float, pseudonym: str, model: str, kind: str, prompt: str, answer: Optional[str]) -> None: ...
    def prompt_rows(self) -> list[dict[str, Any]]: ...
    def purge_prompts(self, before: float) -> int: ...
    def close(self) -> None: ...


_SCHEMA = """
CREATE TABLE IF NOT EXISTS students (
    student TEXT PRIMARY KEY, key_digest TEXT NOT NULL UNIQUE, cap_nanos INTEGER, revoked INTEGER NOT NULL DEFAULT 0,
    added REAL NOT NULL);
CREATE TABLE IF NOT EXISTS requests (
    id INTEGER PRIMARY KEY, student TEXT NOT NULL, model TEXT NOT NULL, kind TEXT NOT NULL, status TEXT NOT NULL,
    hold_nanos INTEGER NOT NULL, cost_nanos INTEGER, window TEXT NOT NULL, upstream_id TEXT,
    created REAL NOT NULL, finished REAL);
CREATE INDEX IF NOT EXISTS requests_held ON requests(status) WHERE status = 'held';
CREATE TABLE IF NOT EXISTS jobs (
    job_id TEXT PRIMARY KEY, student TEXT NOT NULL, kind TEXT NOT NULL, request_id INTEGER NOT NULL,
    price_nanos INTEGER);
CREATE TABLE IF NOT EXISTS totals (
    student TEXT NOT NULL, model TEXT NOT NULL, window TEXT NOT NULL, spent_nanos INTEGER NOT NULL DEFAULT 0,
    requests INTEGER NOT NULL DEFAULT 0, refused INTEGER NOT NULL DEFAULT 0, last_request REAL,
    balance_refused INTEGER NOT NULL DEFAULT 0, unknown INTEGER NOT NULL DEFAULT 0,
    unknown_nanos INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (student, model, window));
CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value TEXT);
CREATE TABLE IF NOT EXISTS days (
    student TEXT NOT NULL, day TEXT NOT NULL, window TEXT NOT NULL, spent_nanos INTEGER NOT NULL DEFAULT 0,
    requests INTEGER NOT NULL DEFAULT 0, refused INTEGER NOT NULL DEFAULT 0, cap_hits INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (student, day, window));
CREATE TABLE IF NOT EXISTS revoked_keys (key_digest TEXT PRIMARY KEY, student TEXT NOT NULL, revoked REAL NOT NULL);
CREATE TABLE IF NOT EXISTS audit (
    id INTEGER PRIMARY KEY, at REAL NOT NULL, action TEXT NOT NULL, student TEXT, detail TEXT NOT NULL,
    origin TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS schedules (
    id INTEGER PRIMARY KEY, start_at REAL NOT NULL, end_at REAL NOT NULL, reason TEXT,
    overridden INTEGER NOT NULL DEFAULT 0);
CREATE TABLE IF NOT EXISTS assignments (
    name TEXT PRIMARY KEY, cap_nanos INTEGER NOT NULL, start_at REAL NOT NULL, end_at REAL, models TEXT);
CREATE TABLE IF NOT EXISTS assignment_totals (
    assignment TEXT NOT NULL, student TEXT NOT NULL, spent_nanos INTEGER NOT NULL DEFAULT 0,
    requests INTEGER NOT NULL DEFAULT 0, refused INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (assignment, student));
CREATE TABLE IF NOT EXISTS cap_raises (
    student TEXT PRIMARY KEY, cap_nanos INTEGER, until REAL NOT NULL, previous_nanos INTEGER);
CREATE TABLE IF NOT EXISTS prompts (
    id INTEGER PRIMARY KEY, at REAL NOT NULL, pseudonym TEXT NOT NULL, model TEXT NOT NULL, kind TEXT NOT NULL,
    prompt TEXT NOT NULL, answer TEXT);
CREATE INDEX IF NOT EXISTS prompts_at ON prompts(at);
"""


def owner_only(path: str) -> None:
    """Create ``path`` readable and writable by its owner only (0600), or make it so; the same for the SQLite files
    beside it (``-wal``, ``-shm``), which SQLite creates with the database file's mode."""
    os.close(os.open(path, os.O_RDWR | os.O_CREAT, 0o600))
    for name in (path, *(path + side for side in _SIDE_FILES)):
        try:
            if os.stat(name).st_mode & 0o077:
                os.chmod(name, 0o600)
        except FileNotFoundError:
            pass


class DatabaseInUse(RuntimeError):
    """Another running classroom has this database file."""


class StudentExists(ValueError):
    """The student is in the class already (added a moment ago by another classroom process, or by a roster)."""

    def __init__(self, student: str) -> None:
        super().__init__(f"{student!r} is already in the class: their key is the one issued when they were added "
                         "(reissue it to get a new one).")
        self.student = student


class DatabaseUnavailable(RuntimeError):
    """The class's database cannot be reached (a server database that went away): nothing can be recorded, so
    nothing is forwarded (the classroom answers 503 naming the database). ``settling``: it went away while a
    forwarded request's answer was being recorded (its hold stays, and is charged as an unknown outcome)."""

    def __init__(self, where: str, reason: str, settling: bool = False) -> None:
        super().__init__(f"the class database {where} cannot be reached ({reason})")
        self.where = where
        self.reason = reason
        self.settling = settling


_CLAIMED: set[str] = set()  # the database files this process's stores have open
_CLAIMED_LOCK = threading.Lock()


def _claim(path: str) -> Optional[int]:
    """Claim ``path`` for this store: a descriptor holding the POSIX lock of ``<path>.lock`` (None where there are
    none: Windows); DatabaseInUse when another store has it, in this process or another. (A POSIX lock is the
    process's, and a forked child does not inherit it: the set covers this process.)"""
    real = os.path.realpath(path)
    in_use = DatabaseInUse(f"The class database {path} is in use by another running classroom: stop that one "
                           "first (room.stop() in its notebook), or give this class another database file.")
    with _CLAIMED_LOCK:
        if real in _CLAIMED:
            raise in_use
        try:
            import fcntl
        except ImportError:  # Windows
            fd = None
        else:
            fd = os.open(real + ".lock", os.O_RDWR | os.O_CREAT, 0o600)
            try:
                fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # let go when this process closes it, or ends
            except OSError:
                os.close(fd)
                raise in_use from None
        _CLAIMED.add(real)
        return fd


def _let_go(path: str, fd: Optional[int]) -> None:
    with _CLAIMED_LOCK:
        _CLAIMED.discard(os.path.realpath(path))
        if fd is not None:
            os.close(fd)


# one more request (``requests``: settled, with its cost) or refusal (``refused``) on a student's day
_ADD_TO_DAY = ("INSERT INTO days (student, day, window, spent_nanos, {column}) VALUES (?, ?, ?, ?, 1) "
               "ON CONFLICT (student, day, window) DO UPDATE SET spent_nanos = spent_nanos + excluded.spent_nanos, "
               "{column} = {column} + 1")


def day_of(when: float) -> str:
    """The local date of a time (the day a report row counts it under)."""
    return time.strftime("%Y-%m-%d", time.localtime(when))


class SQLiteStore:
    """The store in one SQLite file (``":memory:"`` for a classroom that forgets when it stops)."""

    def __init__(self, path: str = ":memory:") -> None:
        self.path = path
        self._lock = threading.Lock()  # held by every SQLite call (a fork() waits for the one in progress)
        sqlite_fork.guard(self)
        self._claimed = path != ":memory:" and not path.startswith("file:")
        self._lock_fd: Optional[int] = None
        if self._claimed:
            owner_only(path)  # the roster, spend, pause reasons and key digests: not for every local user
            self._lock_fd = _claim(path)
        with self._lock:
            self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=OFF")
            self._db.execute("PRAGMA busy_timeout=5000")
            self._db.executescript(_SCHEMA)
            columns = {row[1] for row in self._db.execute("PRAGMA table_info(totals)")}
            for column in ("balance_refused", "unknown", "unknown_nanos"):  # a database from before the column
                if column not in columns:
                    self._db.execute(f"ALTER TABLE totals ADD COLUMN {column} INTEGER NOT NULL DEFAULT 0")
            if "assignment" not in {row[1] for row in self._db.execute("PRAGMA table_info(requests)")}:
                self._db.execute("ALTER TABLE requests ADD COLUMN assignment TEXT")

    def _write(self, sql: str, args: tuple = ()) -> sqlite3.Cursor:
        with self._lock:
            return self._db.execute(sql, args)

    def _read(self, sql: str, args: tuple = ()) -> list[tuple]:
        with self._lock:
            return self._db.execute(sql, args).fetchall()

    def students(self) -> list[StudentRow]:
        return [StudentRow(s, d, c, bool(r)) for s, d, c, r in
                self._read("SELECT student, key_digest, cap_nanos, revoked FROM students ORDER BY rowid")]

    def add_student(self, student: str, key_digest: str, cap_nanos: Optional[int]) -> None:
        """Add a student; :class:`StudentExists` when they are in the class already."""
        try:
            self._write("INSERT INTO students (student, key_digest, cap_nanos, added) VALUES (?, ?, ?, ?)",
                        (student, key_digest, cap_nanos, time.time()))
        except sqlite3.IntegrityError:
            if self._read("SELECT 1 FROM students WHERE student = ?", (student,)):
                raise StudentExists(student) from None
            raise

    def set_cap(self, student: str, cap_nanos: Optional[int]) -> None:
        self._write("UPDATE students SET cap_nanos = ? WHERE student = ?", (cap_nanos, student))

    def set_key(self, student: str, key_digest: str) -> None:
        self._write("UPDATE students SET key_digest = ?, revoked = 0 WHERE student = ?", (key_digest, student))

    def revoke(self, student: str) -> None:
        """Revoke the student's key, and keep its digest and whose it was (``revoked_keys``): a request with it
        is then counted against the student, after a restart too, and after the key is reissued."""
        with self._lock:
            self._db.execute("BEGIN")
            try:
                self._db.execute("INSERT OR IGNORE INTO revoked_keys (key_digest, student, revoked) "
                                 "SELECT key_digest, student, ? FROM students WHERE student = ?",
                                 (time.time(), student))
                self._db.execute("UPDATE students SET revoked = 1 WHERE student = ?", (student,))
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    def revoked_keys(self) -> list[tuple[str, str]]:
        """``(key digest, student)`` of every key revoked (by ``revoke``, or by reissuing the student's key)."""
        return [(d, s) for d, s in self._read("SELECT key_digest, student FROM revoked_keys ORDER BY rowid")]

    def open_request(self, student: str, model: str, kind: str, hold_nanos: int, window: str,
                     assignment: Optional[str] = None) -> int:
        cursor = self._write(
            "INSERT INTO requests (student, model, kind, status, hold_nanos, window, created, assignment) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (student, model, kind, HELD, hold_nanos, window, time.time(), assignment))
        return int(cursor.lastrowid)  # type: ignore[arg-type]

    def attach_job(self, row_id: int, job_id: str, kind: str, price_nanos: Optional[int]) -> None:
        with self._lock:
            self._db.execute("BEGIN")
            self._db.execute("UPDATE requests SET upstream_id = ? WHERE id = ?", (job_id, row_id))
            self._db.execute("INSERT OR REPLACE INTO jobs (job_id, student, kind, request_id, price_nanos) "
                             "SELECT ?, student, ?, id, ? FROM requests WHERE id = ?", (job_id, kind, price_nanos, row_id))
            self._db.execute("COMMIT")

    def finish_request(self, row_id: int, status: str, cost_nanos: int, upstream_id: Optional[str] = None) -> None:
        self.finish_requests([(row_id, status, cost_nanos, upstream_id)])

    def finish_requests(self, rows: list[tuple[int, str, int, Optional[str]]]) -> list[int]:
        """Make requests' rows final (``(row_id, status, cost_nanos, upstream_id)`` each) and add them to the
        totals, all in one transaction; a row already final is left as it is. A :data:`NO_BALANCE` row counts in
        ``balance_refused``, not in ``requests``; an :data:`UNKNOWN` one in ``unknown`` and ``unknown_nanos`` too.
        Returns the rows this call made final."""
        now = time.time()
        done = []
        with self._lock:
            db = self._db
            db.execute("BEGIN")
            try:
                for row_id, status, cost_nanos, upstream_id in rows:
                    found = db.execute("SELECT student, model, window, assignment FROM requests WHERE id = ? AND "
                                       "status = ?", (row_id, HELD)).fetchone()
                    if found is None:
                        continue
                    done.append(row_id)
                    row, assignment = found[:3], found[3]
                    db.execute("UPDATE requests SET status = ?, cost_nanos = ?, finished = ?, "
                               "upstream_id = COALESCE(?, upstream_id) WHERE id = ?",
                               (status, cost_nanos, now, upstream_id, row_id))
                    unpaid = int(status == NO_BALANCE)
                    unknown = int(status.startswith(UNKNOWN))
                    db.execute(
                        "INSERT INTO totals (student, model, window, spent_nanos, requests, balance_refused, "
                        "last_request, unknown, unknown_nanos) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) "
                        "ON CONFLICT (student, model, window) DO UPDATE "
                        "SET spent_nanos = spent_nanos + excluded.spent_nanos, "
                        "requests = requests + excluded.requests, "
                        "balance_refused = balance_refused + excluded.balance_refused, "
                        "last_request = max(coalesce(last_request, 0), excluded.last_request), "
                        "unknown = unknown + excluded.unknown, unknown_nanos = unknown_nanos + excluded.unknown_nanos",
                        (*row, cost_nanos, 1 - unpaid, unpaid, now, unknown, cost_nanos * unknown))
                    # on the student's day: a request, or (the paid balance used up) a refusal
                    db.execute(_ADD_TO_DAY.format(column="refused" if unpaid else "requests"),
                               (row[0], day_of(now), row[2], cost_nanos))
                    if assignment is not None:
                        db.execute("INSERT INTO assignment_totals (assignment, student, spent_nanos, requests) "
                                   "VALUES (?, ?, ?, ?) ON CONFLICT (assignment, student) DO UPDATE SET "
                                   "spent_nanos = spent_nanos + excluded.spent_nanos, "
                                   "requests = requests + excluded.requests",
                                   (assignment, row[0], cost_nanos, 1 - unpaid))
            except BaseException:
                db.execute("ROLLBACK")
                raise
            db.execute("COMMIT")
        return done

    def count_refusal(self, student: str, model: str, window: str, cap_hit: bool = False) -> None:
        """One request refused by the classroom (``cap_hit``: because the student's cap was reached)."""
        now = time.time()
        with self._lock:
            db = self._db
            db.execute("BEGIN")
            try:
                db.execute("INSERT INTO totals (student, model, window, refused, last_request) VALUES (?, ?, ?, 1, ?) "
                           "ON CONFLICT (student, model, window) DO UPDATE SET refused = refused + 1, "
                           "last_request = max(coalesce(last_request, 0), excluded.last_request)",
                           (student, model, window, now))
                db.execute(_ADD_TO_DAY.format(column="refused"), (student, day_of(now), window, 0))
                if cap_hit:
                    db.execute("UPDATE days SET cap_hits = cap_hits + 1 WHERE student = ? AND day = ? AND window = ?",
                               (student, day_of(now), window))
            except BaseException:
                db.execute("ROLLBACK")
                raise
            db.execute("COMMIT")

    def open_holds(self) -> list[OpenHold]:
        rows = self._read("SELECT r.id, r.student, r.model, r.kind, r.hold_nanos, r.window, j.job_id, j.price_nanos, "
                          "r.assignment "
                          "FROM requests r LEFT JOIN jobs j ON j.request_id = r.id WHERE r.status = 'held' "
                          "ORDER BY r.id")
        return [OpenHold(*row) for row in rows]

    def job(self, job_id: str) -> Optional[tuple[str, str, int]]:
        """``(student, kind, request row)`` of a job the classroom created, or None."""
        rows = self._read("SELECT student, kind, request_id FROM jobs WHERE job_id = ?", (job_id,))
        return rows[0] if rows else None

    def request_cost(self, row_id: int) -> Optional[int]:
        """What a finished request (or job) was charged, in nanos; None while it is held."""
        rows = self._read("SELECT cost_nanos FROM requests WHERE id = ? AND status != ?", (row_id, HELD))
        return rows[0][0] if rows else None

    def spent(self, student: str, window: str) -> int:
        rows = self._read("SELECT coalesce(sum(spent_nanos), 0) FROM totals WHERE student = ? AND window = ?",
                          (student, window))
        return int(rows[0][0])

    def totals(self, window: str) -> list[dict[str, Any]]:
        """Per student and model in ``window``: spent_nanos, requests, refused, balance_refused, last_request,
        unknown and unknown_nanos (the requests charged at their hold, their outcome unknown)."""
        rows = self._read("SELECT student, model, spent_nanos, requests, refused, balance_refused, last_request, "
                          "unknown, unknown_nanos FROM totals WHERE window = ?", (window,))
        names = ("student", "model", "spent_nanos", "requests", "refused", "balance_refused", "last_request",
                 "unknown", "unknown_nanos")
        return [dict(zip(names, row)) for row in rows]

    def days(self, window: str) -> list[dict[str, Any]]:
        """Per student and day (the classroom's local date) in ``window``: spent_nanos, requests, refused,
        cap_hits (requests refused because the cap was reached)."""
        rows = self._read("SELECT student, day, spent_nanos, requests, refused, cap_hits FROM days WHERE window = ? "
                          "ORDER BY day, student", (window,))
        names = ("student", "day", "spent_nanos", "requests", "refused", "cap_hits")
        return [dict(zip(names, row)) for row in rows]

    def get_meta(self, name: str) -> Optional[str]:
        rows = self._read("SELECT value FROM meta WHERE name = ?", (name,))
        return rows[0][0] if rows else None

    def set_meta(self, name: str, value: Optional[str]) -> None:
        self._write("INSERT OR REPLACE INTO meta (name, value) VALUES (?, ?)", (name, value))

    # -- the course policy ---------------------------------------------------------------------------------------
    def add_audit(self, at: float, action: str, student: Optional[str], detail: str, origin: str) -> None:
        self._write("INSERT INTO audit (at, action, student, detail, origin) VALUES (?, ?, ?, ?, ?)",
                    (at, action, student, detail, origin))

    def audit_rows(self) -> list[dict[str, Any]]:
        """Every admin action, oldest first: at, action, student, detail, origin."""
        names = ("at", "action", "student", "detail", "origin")
        return [dict(zip(names, row)) for row in
                self._read("SELECT at, action, student, detail, origin FROM audit ORDER BY id")]

    def add_schedule(self, start: float, end: float, reason: Optional[str]) -> int:
        cursor = self._write("INSERT INTO schedules (start_at, end_at, reason) VALUES (?, ?, ?)", (start, end, reason))
        return int(cursor.lastrowid)  # type: ignore[arg-type]

    def schedule_rows(self) -> list[dict[str, Any]]:
        names = ("id", "start", "end", "reason", "overridden")
        return [dict(zip(names, row)) for row in
                self._read("SELECT id, start_at, end_at, reason, overridden FROM schedules ORDER BY start_at, id")]

    def override_schedule(self, schedule_id: int) -> None:
        self._write("UPDATE schedules SET overridden = 1 WHERE id = ?", (schedule_id,))

    def add_assignment(self, name: str, cap_nanos: int, start: float, end: Optional[float],
                       models: Optional[list[str]]) -> None:
        import json

        self._write("INSERT INTO assignments (name, cap_nanos, start_at, end_at, models) VALUES (?, ?, ?, ?, ?)",
                    (name, cap_nanos, start, end, None if models is None else json.dumps(models)))

    def assignment_rows(self) -> list[dict[str, Any]]:
        import json

        return [{"name": n, "cap_nanos": c, "start": s, "end": e, "models": None if m is None else json.loads(m)}
                for n, c, s, e, m in self._read("SELECT name, cap_nanos, start_at, end_at, models FROM assignments "
                                                "ORDER BY start_at, name")]

    def assignment_spent(self, assignment: str, student: str) -> int:
        rows = self._read("SELECT spent_nanos FROM assignment_totals WHERE assignment = ? AND student = ?",
                          (assignment, student))
        return int(rows[0][0]) if rows else 0

    def assignment_totals(self) -> list[dict[str, Any]]:
        names = ("assignment", "student", "spent_nanos", "requests", "refused")
        return [dict(zip(names, row)) for row in
                self._read("SELECT assignment, student, spent_nanos, requests, refused FROM assignment_totals")]

    def count_assignment_refusal(self, assignment: str, student: str) -> None:
        self._write("INSERT INTO assignment_totals (assignment, student, refused) VALUES (?, ?, 1) "
                    "ON CONFLICT (assignment, student) DO UPDATE SET refused = refused + 1", (assignment, student))

    def set_cap_raise(self, student: str, cap_nanos: Optional[int], until: float,
                      previous_nanos: Optional[int]) -> None:
        """The student's cap is ``cap_nanos`` until ``until`` (then ``previous_nanos`` again), in one transaction."""
        with self._lock:
            self._db.execute("BEGIN")
            try:
                self._db.execute("INSERT OR REPLACE INTO cap_raises (student, cap_nanos, until, previous_nanos) "
                                 "VALUES (?, ?, ?, ?)", (student, cap_nanos, until, previous_nanos))
                self._db.execute("UPDATE students SET cap_nanos = ? WHERE student = ?", (cap_nanos, student))
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    def end_cap_raise(self, student: str, restore: bool) -> None:
        """Forget the student's raise; ``restore``: their cap is the one from before it again."""
        with self._lock:
            self._db.execute("BEGIN")
            try:
                if restore:
                    self._db.execute("UPDATE students SET cap_nanos = (SELECT previous_nanos FROM cap_raises WHERE "
                                     "student = ?) WHERE student = ? AND EXISTS (SELECT 1 FROM cap_raises WHERE "
                                     "student = ?)", (student, student, student))
                self._db.execute("DELETE FROM cap_raises WHERE student = ?", (student,))
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    def cap_raise_rows(self) -> list[dict[str, Any]]:
        names = ("student", "cap_nanos", "until", "previous_nanos")
        return [dict(zip(names, row)) for row in
                self._read("SELECT student, cap_nanos, until, previous_nanos FROM cap_raises")]

    def add_prompt(self, at: float, pseudonym: str, model: str, kind: str, prompt: str, answer: Optional[str]) -> None:
        self._write("INSERT INTO prompts (at, pseudonym, model, kind, prompt, answer) VALUES (?, ?, ?, ?, ?, ?)",
                    (at, pseudonym, model, kind, prompt, answer))

    def prompt_rows(self) -> list[dict[str, Any]]:
        names = ("at", "pseudonym", "model", "kind", "prompt", "answer")
        return [dict(zip(names, row)) for row in
                self._read("SELECT at, pseudonym, model, kind, prompt, answer FROM prompts ORDER BY id")]

    def purge_prompts(self, before: float) -> int:
        """Delete the prompts kept from before ``before``; how many were deleted."""
        return int(self._write("DELETE FROM prompts WHERE at < ?", (before,)).rowcount)

    def close(self) -> None:
        with self._lock:
            self._db.close()
            if self._claimed:
                _let_go(self.path, self._lock_fd)
                self._claimed, self._lock_fd = False, None
