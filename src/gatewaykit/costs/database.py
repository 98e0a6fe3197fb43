"""The ledger's SQLite database: rows and job updates shared by every kernel.

Three tables written only through :class:`LedgerDatabase`: ``rows`` (a stable ``uid``, so merging never
duplicates a row), ``job_updates`` and ``settings`` (the budget every kernel obeys). WAL mode and a busy
timeout let several processes append at once; a read fetches only what others committed since.
The schema: ``docs/internals.md``.
"""

from __future__ import annotations

import json
import operator
import os
import sqlite3
import sys
from dataclasses import fields
from pathlib import Path
from typing import Any, Iterable, Optional

from gatewaykit.costs.private_files import create_private_file, make_private_folder
from gatewaykit.costs.rows import LedgerRow

__all__ = ["BUSY_TIMEOUT", "LedgerDatabase", "LedgerDatabaseError", "StoredRow", "StoredUpdate"]

BUSY_TIMEOUT = 10.0
"""Seconds a write waits for another process's lock before it is deferred."""

_JSON_FIELDS = ("tags", "pricing")  # stored as JSON text, last in every statement
_FLAG_FIELDS = ("charged", "offline")  # booleans (stored as 0 or 1), before the JSON fields in an INSERT
_FIELDS = tuple(f.name for f in fields(LedgerRow) if f.name not in _JSON_FIELDS) + _JSON_FIELDS
_INSERTED = tuple(name for name in _FIELDS if name not in _FLAG_FIELDS + _JSON_FIELDS) + _FLAG_FIELDS + _JSON_FIELDS
_PLAIN_VALUES = operator.attrgetter(*_INSERTED[: -len(_FLAG_FIELDS + _JSON_FIELDS)])
_ROW_ORDER = tuple(f.name for f in fields(LedgerRow))  # how rows are read back
_INTERNED_AT = tuple(_ROW_ORDER.index(name) for name in ("kind", "model", "status", "cost_source"))
_BOOLEAN_AT = tuple(_ROW_ORDER.index(name) for name in ("charged", "offline"))
_TAGS_AT, _PRICING_AT = _ROW_ORDER.index("tags"), _ROW_ORDER.index("pricing")
_NULL = float("nan")  # bound for None: SQLite stores a NaN as NULL (see LedgerDatabase._parameters)
_BOUND_FOR_NONE = {None: _NULL}  # only None is a key: .get(1.0, 1.0) is 1.0, never a colliding True
_BOUND_FOR_FLAG = {None: _NULL, False: 0, True: 1}  # for the booleans only
_SCHEMA = """
CREATE TABLE IF NOT EXISTS rows (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    uid TEXT NOT NULL UNIQUE,
    base_url TEXT,
    key_id TEXT
);
CREATE TABLE IF NOT EXISTS job_updates (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    job_id TEXT NOT NULL,
    status TEXT NOT NULL,
    seconds REAL,
    error_message TEXT,
    time REAL,
    estimate REAL,
    cost REAL
);
CREATE TABLE IF NOT EXISTS settings (name TEXT PRIMARY KEY, value TEXT);
"""

_ROWS_PER_STATEMENT = 256
"""Most rows per INSERT (256 x 41 values stays under SQLite's 32,766 variables)."""

_INSERT_UPDATES = "INSERT INTO job_updates (job_id, status, seconds, error_message, time, estimate, cost) VALUES "

StoredRow = tuple  # (uid, LedgerRow, base_url, key_id): see gatewaykit.costs.book.StoredRow
StoredUpdate = dict  # {"id", "status", "seconds", "error_message", "time", "estimate", "cost"}


class LedgerDatabaseError(RuntimeError):
    """The ledger's database cannot be opened or read (not a database, unreadable)."""


class LedgerDatabase:
    """One connection to one ledger database; callers serialise access (the ledger's lock)."""

    def __init__(self, path: Any, *, fsync: bool = False) -> None:
        self.path = Path(path).expanduser().absolute()  # a pickled ledger reopens it from any cwd
        self.pid = os.getpid()  # a connection is never used across fork()
        self._backlog_rows: list[StoredRow] = []
        self._backlog_updates: list[StoredUpdate] = []
        self._row_seq = 0
        self._update_seq = 0
        self._version: Optional[int] = None
        self.budget: Optional[float] = None
        try:
            make_private_folder(self.path.parent)
            create_private_file(self.path)  # 0600 (its -wal and -shm files follow): it holds prompts' costs
            self._conn = sqlite3.connect(
                self.path, timeout=BUSY_TIMEOUT, isolation_level=None, check_same_thread=False
            )
        except (OSError, sqlite3.Error) as exc:
            raise LedgerDatabaseError(f"cannot open the ledger database {self.path}: {exc}") from exc
        try:
            self._conn.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT * 1000)}")
            self._conn.execute("PRAGMA journal_mode = WAL")
            self._conn.execute(f"PRAGMA synchronous = {'FULL' if fsync else 'NORMAL'}")
            with self._transaction():
                for statement in filter(str.strip, _SCHEMA.split(";")):
                    self._conn.execute(statement)
                self._add_missing_columns()
        except sqlite3.DatabaseError as exc:
            self._conn.close()
            raise LedgerDatabaseError(
                f"{self.path} is not a usable gatewaykit ledger database ({exc}); "
                "move it aside or pass another Ledger(path=...)"
            ) from exc
        self._insert_rows = f"INSERT OR IGNORE INTO rows (uid, base_url, key_id, {', '.join(_INSERTED)}) VALUES "
        self._row_marks = f"({', '.join('?' * (len(_INSERTED) + 3))})"
        self._inserts: dict[int, str] = {}

    # ------------------------------------------------------------------ schema

    def _add_missing_columns(self) -> None:
        present = {row[1] for row in self._conn.execute("PRAGMA table_info(rows)")}
        if "key_id" not in present:  # a database made before rows kept key ids
            self._conn.execute("ALTER TABLE rows ADD COLUMN key_id TEXT")
        updates = {row[1] for row in self._conn.execute("PRAGMA table_info(job_updates)")}
        if "estimate" not in updates:  # a database made before job updates kept the finished job's estimate
            self._conn.execute("ALTER TABLE job_updates ADD COLUMN estimate REAL")
        if "cost" not in updates:  # a database made before job updates kept a reported cost
            self._conn.execute("ALTER TABLE job_updates ADD COLUMN cost REAL")
        for name in _FIELDS:
            if name not in present:
                self._conn.execute(f'ALTER TABLE rows ADD COLUMN "{name}"')

    class _Tx:
        def __init__(self, conn: sqlite3.Connection) -> None:
            self.conn = conn

        def __enter__(self) -> sqlite3.Connection:
            self.conn.execute("BEGIN IMMEDIATE")
            return self.conn

        def __exit__(self, kind, exc, tb) -> None:
            self.conn.execute("COMMIT" if kind is None else "ROLLBACK")

    def _transaction(self) -> "_Tx":
        return self._Tx(self._conn)

    # ------------------------------------------------------------------- reads

    def poll(self, *, force: bool = False) -> Optional[tuple[list[StoredRow], list[StoredUpdate]]]:
        """Rows and updates committed since the last poll, or None when nothing changed."""
        conn = self._conn
        try:
            version = conn.execute("PRAGMA data_version").fetchone()[0]
            if not force and version == self._version:
                return None
            self._version = version
            columns = ", ".join(_ROW_ORDER)
            raw_rows = conn.execute(
                f"SELECT seq, uid, base_url, key_id, {columns} FROM rows WHERE seq > ? ORDER BY seq", (self._row_seq,)
            ).fetchall()
            raw_updates = conn.execute(
                "SELECT seq, job_id, status, seconds, error_message, time, estimate, cost FROM job_updates "
                "WHERE seq > ? ORDER BY seq",
                (self._update_seq,),
            ).fetchall()
            budget = conn.execute("SELECT value FROM settings WHERE name = 'budget'").fetchone()
        except sqlite3.DatabaseError as exc:
            raise LedgerDatabaseError(f"cannot read the ledger database {self.path}: {exc}") from exc
        self.budget = None if budget is None or budget[0] is None else float(budget[0])
        rows = [self._row(values) for values in raw_rows]
        if raw_rows:
            self._row_seq = raw_rows[-1][0]
        updates = [
            {"id": job_id, "status": status, "seconds": seconds, "error_message": message, "time": when,
             "estimate": estimate, "cost": cost}
            for _, job_id, status, seconds, message, when, estimate, cost in raw_updates
        ]
        if raw_updates:
            self._update_seq = raw_updates[-1][0]
        return rows, updates

    @staticmethod
    def _row(values: tuple) -> StoredRow:
        data = list(values[4:])  # in LedgerRow's field order
        for i in _INTERNED_AT:
            if data[i] is not None:
                data[i] = sys.intern(data[i])
        for i in _BOOLEAN_AT:
            if data[i] is not None:  # charged None: unknown (a stream ended early)
                data[i] = bool(data[i])
        tags, pricing = data[_TAGS_AT], data[_PRICING_AT]
        data[_TAGS_AT] = tuple(json.loads(tags)) if tags else ()
        data[_PRICING_AT] = json.loads(pricing) if pricing else None
        return values[1], LedgerRow(*data), values[2], values[3]

    def rewind(self) -> None:
        """Forget what was read (the next poll returns every row and update)."""
        self._row_seq = self._update_seq = 0
        self._version = None

    # ------------------------------------------------------------------ writes

    def _insert_statement(self, size: int) -> str:
        """The INSERT of ``size`` rows, one string per size (SQLite's statement cache keeps each prepared)."""
        statement = self._inserts.get(size)
        if statement is None:
            statement = self._inserts[size] = self._insert_rows + ", ".join([self._row_marks] * size)
        return statement

    def _update_statement(self, size: int) -> str:
        statement = self._inserts.get(-size)
        if statement is None:
            statement = self._inserts[-size] = _INSERT_UPDATES + ", ".join(["(?, ?, ?, ?, ?, ?, ?)"] * size)
        return statement

    @staticmethod
    def _parameters(group: list) -> list:
        """The INSERT's parameters for ``group``'s rows, each of a type :mod:`sqlite3` binds directly.

        ``sqlite3`` binds an exact ``int``, ``float`` or ``str`` as it is, but looks every other
        value (``None``, ``True``) up in its adapter registry first, about 0.3 us each with the
        GIL held: about half of a chat row's 41 values are ``None``. ``None`` is bound as NaN, which
        SQLite stores as NULL (it has no NaN; a NaN bound is a NULL), and a boolean as 0 or 1 (as
        ``sqlite3`` stored it). Read back (``_row``), both are what they were.
        """
        parameters: list = []
        extend, bound, flag = parameters.extend, _BOUND_FOR_NONE.get, _BOUND_FOR_FLAG.get
        for uid, row, base_url, key_id in group:  # in _INSERTED's order
            plain = _PLAIN_VALUES(row)
            extend((uid, bound(base_url, base_url), bound(key_id, key_id)))
            extend(map(bound, plain, plain))  # None -> NaN, the rest as they are
            charged, offline, tags, pricing = row.charged, row.offline, row.tags, row.pricing
            extend((flag(charged, charged), flag(offline, offline),
                    json.dumps(list(tags)) if tags else _NULL, json.dumps(pricing) if pricing else _NULL))  # fmt: skip
        return parameters

    @staticmethod
    def _update_values(update: StoredUpdate) -> tuple:
        return (update["id"], update["status"], update.get("seconds"), update.get("error_message"),
                update.get("time"), update.get("estimate"), update.get("cost"))  # fmt: skip

    def write(self, rows: Iterable[StoredRow] = (), updates: Iterable[StoredUpdate] = ()) -> None:
        """Append rows and updates atomically (plus any deferred by a lock timeout).

        Up to 256 rows and no updates (what the write-behind thread usually has)
        are one INSERT statement in SQLite's autocommit mode: a single call into
        SQLite, so the writer thread hands the GIL to a computing caller and waits
        to get it back once, not once per ``BEGIN``/``SELECT``/``COMMIT`` (each
        wait can last the interpreter's switch interval). More statements run in
        one ``BEGIN IMMEDIATE`` transaction. Raises :class:`sqlite3.OperationalError`
        (say, ``database is locked``) after keeping them for the next write.
        """
        rows = self._backlog_rows + list(rows)
        updates = self._backlog_updates + list(updates)
        self._backlog_rows, self._backlog_updates = [], []
        if not rows and not updates:
            return
        row_groups = [rows[i : i + _ROWS_PER_STATEMENT] for i in range(0, len(rows), _ROWS_PER_STATEMENT)]
        update_groups = [updates[i : i + _ROWS_PER_STATEMENT] for i in range(0, len(updates), _ROWS_PER_STATEMENT)]
        try:
            if len(row_groups) + len(update_groups) == 1:
                seqs = self._insert(row_groups, update_groups)
            else:
                with self._transaction():
                    seqs = self._insert(row_groups, update_groups)
        except sqlite3.Error:
            self._backlog_rows, self._backlog_updates = rows, updates
            raise
        self._row_seq, self._update_seq = seqs  # committed

    def _insert(self, row_groups: list, update_groups: list) -> tuple[int, int]:
        """Run the INSERTs; the last ``seq`` read of both tables afterwards (ours, when nobody else wrote).

        Our rows took ``seq`` numbers one after another (the write lock is held from
        the first to the last): when every row was inserted and the first number
        follows the last one read, nobody else wrote in between, and reading our
        own rows back can be skipped.
        """
        conn, parameters = self._conn, self._parameters
        row_seq, update_seq = self._row_seq, self._update_seq
        inserted = count = last = 0
        for group in row_groups:
            cursor = conn.execute(self._insert_statement(len(group)), parameters(group))
            inserted, count, last = inserted + cursor.rowcount, count + len(group), cursor.lastrowid or 0
        if count and inserted == count and last - count == row_seq:
            row_seq = last
        inserted = count = last = 0
        for group in update_groups:
            cursor = conn.execute(
                self._update_statement(len(group)), [v for update in group for v in self._update_values(update)]
            )
            inserted, count, last = inserted + cursor.rowcount, count + len(group), cursor.lastrowid or 0
        if count and inserted == count and last - count == update_seq:
            update_seq = last
        return row_seq, update_seq

    @property
    def backlog(self) -> int:
        """Rows and updates waiting for the lock (written with the next write)."""
        return len(self._backlog_rows) + len(self._backlog_updates)

    def set_budget(self, budget: Optional[float]) -> None:
        with self._transaction() as conn:
            conn.execute(
                "INSERT INTO settings (name, value) VALUES ('budget', ?) "
                "ON CONFLICT(name) DO UPDATE SET value = excluded.value",
                (None if budget is None else repr(float(budget)),),
            )
        self.budget = budget

    def clear(self) -> None:
        with self._transaction() as conn:
            conn.execute("DELETE FROM rows")
            conn.execute("DELETE FROM job_updates")
        self._backlog_rows, self._backlog_updates = [], []

    def close(self) -> None:
        self._conn.close()
