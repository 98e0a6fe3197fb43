"""Sharing ledgers between processes: merging, JSONL export, pickling.

Functions over a :class:`~gatewaykit.costs.ledger.Ledger`'s public methods
(``snapshot()`` and ``adopt()``); nothing here reaches inside a ledger, and
nothing imports the ``Ledger`` class (it is passed in).

- ``merge``: adds another ledger's rows this one lacks (by their unique id)
  and ends the jobs the other saw end, so ledgers from several worker
  processes join without duplicates;
- a pickled ledger is its ``path=`` (the same database or file, reopened where
  it is unpickled; the default ledger stays the default ledger), its price
  source and budget, plus the rows it keeps only in memory;
- ``write_jsonl`` / ``read_jsonl``: every row as a JSON Lines file.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Iterable, TypeVar, Union

from gatewaykit.costs.book import StoredRow
from gatewaykit.costs.journal import Journal, journal_event, read_changes
from gatewaykit.costs.rows import LedgerRow

__all__ = ["merge", "read_jsonl", "unpickle", "write_jsonl"]

L = TypeVar("L")


def merge(ledger: L, others: Iterable[Any]) -> L:
    """Add to ``ledger`` the rows of ``others`` it lacks; returns ``ledger``."""
    for other in others:
        if other is not ledger:
            ledger.adopt(other.snapshot())  # type: ignore[attr-defined]
    return ledger


def write_jsonl(rows: Iterable[StoredRow], path: Union[str, os.PathLike]) -> None:
    """Write rows as JSON Lines, atomically (a partial file is renamed into place)."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(target.name + ".partial")
    with partial.open("w", encoding="utf-8") as file:
        for item in rows:
            file.write(json.dumps(journal_event("row", item), separators=(",", ":")) + "\n")
    os.replace(partial, target)


def read_jsonl(path: Union[str, os.PathLike]) -> tuple[list[StoredRow], list[dict]]:
    """The rows and job updates of a JSONL file (``to_jsonl``'s, or a ledger's journal)."""
    if not Path(path).exists():
        raise FileNotFoundError(f"no ledger file at {path}")
    return read_changes(Journal(path, fsync=False))


def unpickle(state: dict[str, Any]) -> Any:
    """A pickled ledger: the same database or file, plus the rows it kept in memory."""
    ledger = state["class"](path=state["path"], prices=state["prices"], fsync=state["fsync"], budget=state["budget"])
    rows = [  # rows pickled before key ids were kept have three items
        (uid, LedgerRow.from_json(data), base_url, *(key_id or [None]))
        for uid, data, base_url, *key_id in state["rows"]
    ]
    return ledger.adopt(rows, store=False)
