"""Where a classroom keeps its class when ``start()`` is given no ``db=``.

A class on a real gateway is kept in the per-user database ``classroom.db`` in
``platformdirs.user_data_dir("gatewaykit")`` (a kernel restart keeps its keys and
spend), or in the file ``GATEWAYKIT_CLASSROOM_DB`` names (``memory`` or an empty
value: in memory). A practice class (``upstream="offline"``) stays in memory: the
offline gateway behind it forgets its jobs when it stops too. ``db=":memory:"``
keeps any class in memory. A ``postgresql://`` URL keeps it in PostgreSQL
(``open_store``).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

__all__ = ["ENV_VAR", "MEMORY", "default_db", "open_store"]

ENV_VAR = "GATEWAYKIT_CLASSROOM_DB"
MEMORY = ":memory:"
_MEMORY_VALUES = frozenset({"", "memory", ":memory:", "none"})


def default_db(practice: bool) -> str:
    """The database path for a class started without ``db=`` (its folder made, 0700), or :data:`MEMORY`."""
    value = os.environ.get(ENV_VAR)
    if value is not None:
        if value.strip().lower() in _MEMORY_VALUES:
            return MEMORY
        return str(Path(value).expanduser())
    if practice:
        return MEMORY
    import platformdirs

    folder = Path(platformdirs.user_data_dir("gatewaykit", appauthor=False))
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    return str(folder / "classroom.db")


def open_store(db: str) -> Any:
    """The store for ``db``: a ``postgresql://`` URL (a ``PostgresStore``, shared by every classroom given the same
    URL), else an SQLite file (or :data:`MEMORY`)."""
    if db.startswith(("postgresql://", "postgres://")):
        from gatewaykit.classroom.postgres_store import PostgresStore

        return PostgresStore(db)
    from gatewaykit.classroom.store import SQLiteStore

    return SQLiteStore(db)
