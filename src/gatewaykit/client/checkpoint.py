"""``map(..., checkpoint=path)``: finished items survive a crash or a kernel restart.

A :class:`Checkpoint` is a small SQLite file (stdlib, WAL) holding one pickled
result per finished item, written as each item finishes. A re-run with the same
path returns the stored results (in input order, with the new ones) and calls
the function only for the items not stored yet: nothing is paid twice.

Keys: ``map`` keys an item by a SHA-256 of its canonical JSON form (``repr``
for what JSON cannot hold; pydantic models by their dump) plus how many equal
items came before it, so reordering the items keeps their results and two
equal items are two entries. ``batch`` keys each call by its index (a lambda
has no stable identity). Items whose ``repr`` changes between runs (objects
showing their memory address) are re-run.

Only successful results are stored (a failed item runs again next time), and
results must pickle: one that does not is returned but not stored (a warning
is logged), so it is sent again on the next run. The file holds the results,
never the client's key.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import pickle
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable, Union

if TYPE_CHECKING:
    from gatewaykit.client.batch import BatchResult

__all__ = ["Checkpoint", "batch_keys", "item_keys", "run_checkpointed", "run_checkpointed_async"]

logger = logging.getLogger("gatewaykit")

_MISSING = object()


def _canonical(item: Any) -> str:
    def fallback(value: Any) -> Any:
        if hasattr(value, "model_dump"):
            return value.model_dump(mode="json")
        if isinstance(value, (set, frozenset)):
            return sorted(map(repr, value))
        return f"{type(value).__qualname__}:{value!r}"

    try:
        return json.dumps(item, sort_keys=True, separators=(",", ":"), default=fallback, ensure_ascii=True)
    except (TypeError, ValueError):  # non-string keys, NaN...: repr is the last resort
        return f"repr:{item!r}"


def item_keys(items: Iterable[Any]) -> list[str]:
    """A stable key per item: hash of its canonical form, and its occurrence number among equal items."""
    seen: dict[str, int] = {}
    keys = []
    for item in items:
        digest = hashlib.sha256(_canonical(item).encode("utf-8", "surrogatepass")).hexdigest()
        count = seen.get(digest, 0)
        seen[digest] = count + 1
        keys.append(f"item:{digest}#{count}")
    return keys


def batch_keys(count: int) -> list[str]:
    """``batch`` calls are keyed by their position."""
    return [f"call:{index}" for index in range(count)]


class Checkpoint:
    """Stored results of finished items (thread-safe; several threads store as they finish)."""

    def __init__(self, path: Union[str, "os.PathLike[str]"]) -> None:
        self.path = Path(path).expanduser().absolute()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        import sqlite3  # loaded by the first checkpointed run, not by import gatewaykit

        self._lock = threading.Lock()
        self._conn = sqlite3.connect(self.path, timeout=10.0, isolation_level=None, check_same_thread=False)
        self._conn.execute("PRAGMA journal_mode = WAL")
        self._conn.execute("CREATE TABLE IF NOT EXISTS results (key TEXT PRIMARY KEY, value BLOB NOT NULL)")

    def load(self, keys: list[str]) -> dict[str, Any]:
        """The stored results among ``keys`` (unreadable entries are left out, so they run again)."""
        wanted = set(keys)
        found: dict[str, Any] = {}
        with self._lock:
            rows = self._conn.execute("SELECT key, value FROM results").fetchall()
        for key, blob in rows:
            if key not in wanted:
                continue
            try:
                found[key] = pickle.loads(blob)
            except Exception:  # noqa: BLE001 - a class that moved or changed: run the item again
                logger.warning("gatewaykit: checkpoint %s: a stored result could not be read; it runs again", self.path)
        return found

    def store(self, key: str, result: Any) -> None:
        """Keep one finished item's result (committed at once: a crash right after keeps it)."""
        try:
            blob = pickle.dumps(result, protocol=pickle.HIGHEST_PROTOCOL)
        except Exception as exc:  # noqa: BLE001
            logger.warning(
                "gatewaykit: checkpoint %s: a %s result cannot be pickled (%s); it is returned but not stored, "
                "so a re-run sends it again",
                self.path, type(result).__name__, exc,
            )  # fmt: skip
            return
        with self._lock:
            self._conn.execute("INSERT OR REPLACE INTO results (key, value) VALUES (?, ?)", (key, blob))

    def __len__(self) -> int:
        with self._lock:
            return int(self._conn.execute("SELECT COUNT(*) FROM results").fetchone()[0])

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    def plan(self, calls: list[Callable[[], Any]], keys: list[str]) -> tuple[list[Any], list[int]]:
        """``(results, todo)``: stored results in place (``_MISSING`` elsewhere) and the indexes still to run."""
        stored = self.load(keys)
        results = [stored.get(key, _MISSING) for key in keys]
        todo = [index for index, result in enumerate(results) if result is _MISSING]
        return results, todo

    def storing(self, call: Callable[[], Any], key: str) -> Callable[[], Any]:
        """``call`` that stores its result when it succeeds."""

        def run() -> Any:
            result = call()
            self.store(key, result)
            return result

        return run

    def storing_async(self, call: Callable[[], Any], key: str) -> Callable[[], Any]:
        async def run() -> Any:
            result = await call()
            self.store(key, result)
            return result

        return run


def _plan(store: Checkpoint, calls: list[Callable[[], Any]], keys: list[str],
          on_done: Callable[[Any], None]) -> tuple[list[Any], list[int]]:
    """Stored results in place (each reported through ``on_done``) and the indexes still to run."""
    results, todo = store.plan(calls, keys)
    for result in results:
        if result is not _MISSING:
            on_done(result)
    return results, todo


def _merged(results: list[Any], todo: list[int], fresh: Any) -> "BatchResult":
    from gatewaykit.client.batch import BatchResult

    for index, result in zip(todo, fresh):
        results[index] = result
    return BatchResult(results)


def run_checkpointed(
    path: Union[str, "os.PathLike[str]"], calls: list[Callable[[], Any]], keys: list[str],
    run: Callable[[list[Callable[[], Any]]], Any], on_done: Callable[[Any], None],
) -> "BatchResult":  # fmt: skip
    """Run only the calls not stored at ``path`` (with ``run``, the batch runner); all results in order."""
    store = Checkpoint(path)
    try:
        results, todo = _plan(store, calls, keys, on_done)
        return _merged(results, todo, run([store.storing(calls[index], keys[index]) for index in todo]))
    finally:
        store.close()


async def run_checkpointed_async(
    path: Union[str, "os.PathLike[str]"], calls: list[Callable[[], Any]], keys: list[str],
    run: Callable[[list[Callable[[], Any]]], Any], on_done: Callable[[Any], None],
) -> "BatchResult":  # fmt: skip
    """:func:`run_checkpointed` for the async client (``run`` is awaited)."""
    store = Checkpoint(path)
    try:
        results, todo = _plan(store, calls, keys, on_done)
        return _merged(results, todo, await run([store.storing_async(calls[index], keys[index]) for index in todo]))
    finally:
        store.close()
