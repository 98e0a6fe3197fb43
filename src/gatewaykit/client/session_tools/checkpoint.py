"""``map(..., checkpoint=path)``: finished items survive a crash or a kernel restart.

A :class:`Checkpoint` is a small SQLite file (WAL) holding one result per finished item, written as
each item finishes. A re-run with the same path returns the stored results and calls the function
only for the items not stored yet: nothing is paid twice. Each result carries its call's fingerprint
(:mod:`.call_fingerprint`). Details: ``docs/internals.md``.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable, Union

from gatewaykit.client.session_tools.call_fingerprint import call_fingerprint
from gatewaykit.client.session_tools.checkpoint_values import CheckpointWarning, NotStorable, decode_result, encode_result
from gatewaykit import sqlite_fork
from gatewaykit.errors import ConfigurationError

if TYPE_CHECKING:
    from gatewaykit.client.session_tools.batch import BatchResult

__all__ = ["Checkpoint", "CheckpointWarning", "batch_keys", "item_keys", "run_checkpointed", "run_checkpointed_async"]

FORMAT = 2  # PRAGMA user_version of a JSON checkpoint; 0 with a results table is the old pickle format

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
    """Stored results of finished items (thread-safe; several threads store as they finish).

    ``client`` (optional) is bound to restored video and music jobs.
    """

    def __init__(self, path: Union[str, "os.PathLike[str]"], client: Any = None) -> None:
        self.path = Path(path).expanduser().absolute()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        import sqlite3  # loaded by the first checkpointed run, not by import gatewaykit

        self._client = client
        self._lock = threading.Lock()  # held by every SQLite call (a fork() waits for the one in progress)
        sqlite_fork.guard(self)
        with self._lock:
            self._conn = sqlite3.connect(self.path, timeout=10.0, isolation_level=None, check_same_thread=False)
            try:
                self._open()
            except BaseException:
                self._conn.close()
                raise
        self._fingerprints: dict[str, str] = {}
        self.unstored: list[str] = []  # what could not be stored this run (one warning after it)
        self.changed = self.unreadable = 0

    def _open(self) -> None:
        version = self._conn.execute("PRAGMA user_version").fetchone()[0]
        columns = [row[1] for row in self._conn.execute("PRAGMA table_info(results)")]
        if version > FORMAT:
            raise ConfigurationError(
                f"The checkpoint {str(self.path)!r} was written by a newer gatewaykit (format {version}); "
                "upgrade gatewaykit, or pass another checkpoint= path"
            )
        if columns and version < FORMAT:
            stored = self._conn.execute("SELECT COUNT(*) FROM results").fetchone()[0]
            if stored:
                raise ConfigurationError(
                    f"The checkpoint {str(self.path)!r} holds {stored} result(s) stored as pickles by an earlier "
                    "gatewaykit. Reading a pickle can run any code, so it is not read. Delete the file (its items "
                    "run again, and are paid again) or pass another checkpoint= path."
                )
            self._conn.execute("DROP TABLE results")  # an empty old table: start the new format
        self._conn.execute("PRAGMA journal_mode = WAL")
        self._conn.execute(
            "CREATE TABLE IF NOT EXISTS results (key TEXT PRIMARY KEY, fingerprint TEXT NOT NULL, value TEXT NOT NULL)"
        )
        self._conn.execute(f"PRAGMA user_version = {FORMAT}")

    def load(self, keys: list[str], fingerprints: "dict[str, str] | None" = None) -> dict[str, Any]:
        """The stored results among ``keys`` made by the same call (``fingerprints`` by key, when given).

        A result of another call, or one that cannot be read, is left out (it runs
        again); :attr:`changed` and :attr:`unreadable` count them.
        """
        wanted = set(keys)
        found: dict[str, Any] = {}
        with self._lock:
            rows = self._conn.execute("SELECT key, fingerprint, value FROM results").fetchall()
        for key, fingerprint, text in rows:
            if key not in wanted:
                continue
            if fingerprints is not None and fingerprints.get(key) != fingerprint:
                self.changed += 1
                continue
            try:
                found[key] = decode_result(text, self._client)
            except Exception:  # noqa: BLE001 - tampered or from another version: run the item again
                self.unreadable += 1
        return found

    def store(self, key: str, result: Any) -> None:
        """Keep one finished item's result (committed at once: a crash right after keeps it)."""
        try:
            text = encode_result(result)
        except (NotStorable, ValueError) as exc:
            with self._lock:
                self.unstored.append(str(exc))
            return
        with self._lock:
            self._conn.execute(
                "INSERT OR REPLACE INTO results (key, fingerprint, value) VALUES (?, ?, ?)",
                (key, self._fingerprints.get(key, ""), text),
            )

    def __len__(self) -> int:
        with self._lock:
            return int(self._conn.execute("SELECT COUNT(*) FROM results").fetchone()[0])

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    def plan(self, calls: list[Callable[[], Any]], keys: list[str]) -> tuple[list[Any], list[int]]:
        """``(results, todo)``: stored results in place (``_MISSING`` elsewhere) and the indexes still to run."""
        memo: dict[int, Any] = {}
        self._fingerprints = {key: call_fingerprint(call, memo) for call, key in zip(calls, keys)}
        stored = self.load(keys, self._fingerprints)
        results = [stored.get(key, _MISSING) for key in keys]
        todo = [index for index, result in enumerate(results) if result is _MISSING]
        return results, todo

    def warn(self) -> None:
        """One :class:`CheckpointWarning` for what this run did not use or could not store."""
        notes = []
        if self.changed:
            notes.append(
                f"{self.changed} stored result(s) were made by a different call (another function, changed code, "
                "or another model or setting it uses); they ran again and were replaced"
            )
        if self.unreadable:
            notes.append(f"{self.unreadable} stored result(s) could not be read; they ran again")
        if self.unstored:
            kinds = ", ".join(sorted(set(self.unstored)))
            notes.append(
                f"{len(self.unstored)} result(s) were returned but not stored, so a re-run sends them again: "
                f"a checkpoint stores ChatCompletion, ImageResult, VideoJob, MusicJob and plain JSON values "
                f"(str, numbers, lists, tuples, dicts), not {kinds}"
            )
        if notes:
            warnings.warn(f"checkpoint {str(self.path)!r}: " + "; ".join(notes) + ".", CheckpointWarning, stacklevel=5)

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
    from gatewaykit.client.session_tools.batch import BatchResult

    for index, result in zip(todo, fresh):
        results[index] = result
    return BatchResult(results)


def run_checkpointed(
    path: Union[str, "os.PathLike[str]"], calls: list[Callable[[], Any]], keys: list[str],
    run: Callable[[list[Callable[[], Any]]], Any], on_done: Callable[[Any], None], client: Any = None,
) -> "BatchResult":  # fmt: skip
    """Run only the calls not stored at ``path`` (with ``run``, the batch runner); all results in order."""
    store = Checkpoint(path, client)
    try:
        results, todo = _plan(store, calls, keys, on_done)
        merged = _merged(results, todo, run([store.storing(calls[index], keys[index]) for index in todo]))
    finally:
        store.close()
    store.warn()
    return merged


async def run_checkpointed_async(
    path: Union[str, "os.PathLike[str]"], calls: list[Callable[[], Any]], keys: list[str],
    run: Callable[[list[Callable[[], Any]]], Any], on_done: Callable[[Any], None], client: Any = None,
) -> "BatchResult":  # fmt: skip
    """:func:`run_checkpointed` for the async client (``run`` is awaited)."""
    store = Checkpoint(path, client)
    try:
        results, todo = _plan(store, calls, keys, on_done)
        merged = _merged(results, todo, await run([store.storing_async(calls[index], keys[index]) for index in todo]))
    finally:
        store.close()
    store.warn()
    return merged
