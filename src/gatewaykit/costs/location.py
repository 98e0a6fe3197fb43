"""Where a ledger keeps its rows: the per-user database, a file, or memory.

``Ledger()`` (and the process-wide ``gk.ledger``) uses :data:`USER_LEDGER`: the
per-user SQLite database, ``ledger.sqlite`` in
``platformdirs.user_data_dir("gatewaykit")``, or the file named by the
``GATEWAYKIT_LEDGER_PATH`` environment variable (``memory`` or an empty value
keeps every ledger in memory). Nothing is resolved, read or created at import:
the database is opened the first time the ledger is used and the file exists,
and created the first time a row from a real gateway arrives (not an offline
row, nor one replayed from a cassette: those stay in memory).

``Ledger(path=None)`` stays in memory; ``path="x.sqlite"`` (any name but
``.jsonl``) is a SQLite database; ``path="x.jsonl"`` is a JSON Lines journal.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Optional

__all__ = ["ENV_VAR", "USER_LEDGER", "is_journal", "user_ledger_path"]

ENV_VAR = "GATEWAYKIT_LEDGER_PATH"
_MEMORY_VALUES = frozenset({"", "memory", ":memory:", "none"})
_JOURNAL_SUFFIXES = frozenset({".jsonl", ".ndjson"})


class _UserLedger:
    """The default ``path=``: the per-user database, opened lazily."""

    _instance: Optional["_UserLedger"] = None

    def __new__(cls) -> "_UserLedger":
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "USER_LEDGER"

    def __reduce__(self) -> str:
        return "USER_LEDGER"


USER_LEDGER = _UserLedger()


def user_ledger_path() -> Optional[Path]:
    """The per-user database's path now, or None when the environment asks for memory only."""
    value = os.environ.get(ENV_VAR)
    if value is not None:
        if value.strip().lower() in _MEMORY_VALUES:
            return None
        return Path(value).expanduser()
    import platformdirs

    return Path(platformdirs.user_data_dir("gatewaykit", appauthor=False)) / "ledger.sqlite"


def is_journal(path: Any) -> bool:
    """True for a JSON Lines path (``.jsonl``), False for a SQLite database."""
    return Path(path).suffix.lower() in _JOURNAL_SUFFIXES
