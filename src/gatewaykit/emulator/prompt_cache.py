"""Prompt caching in the offline gateway: per account, the prompt prefixes already sent, in blocks of tokens.

A prompt's tokens are cut into blocks keyed by a hash chained over the blocks before them; a later
prompt sharing a long enough prefix reports it as ``cached_tokens``, billed at the model's
``cache_read`` rate. Entries are scoped by account, model and ``prompt_cache_key``, expire, and are
bounded per account. The rules (also in each chat model's catalog entry): ``docs/internals.md``.
"""

from __future__ import annotations

import hashlib
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass
from typing import Callable

BLOCK_TOKENS = 128
MIN_PREFIX_TOKENS = 256
RETENTIONS = ("in-memory", "24h")
RETENTION_SECONDS = {"in-memory": 300.0, "24h": 86_400.0}
DEFAULT_MAX_BLOCKS = 4096


def describe() -> dict[str, object]:
    """The rules above as the catalog shows them."""
    return {"min_prefix_tokens": MIN_PREFIX_TOKENS, "block_tokens": BLOCK_TOKENS,
            "retention_seconds": dict(RETENTION_SECONDS), "clock": "wall-clock (not scaled)",
            "scope": "account + model + prompt_cache_key", "cache_write_surcharge": 0}


def block_keys(units: list[str], scope: str, max_blocks: int) -> list[bytes]:
    """Chained hashes of the prompt's whole blocks (at most ``max_blocks``); key ``i`` names blocks ``0..i``."""
    keys: list[bytes] = []
    previous = hashlib.sha256(scope.encode("utf-8", "surrogatepass")).digest()
    for start in range(0, min(len(units) // BLOCK_TOKENS, max_blocks) * BLOCK_TOKENS, BLOCK_TOKENS):
        block = "\x1f".join(units[start:start + BLOCK_TOKENS]).encode("utf-8", "surrogatepass")
        previous = hashlib.sha256(previous + block).digest()
        keys.append(previous)
    return keys


@dataclass(frozen=True)
class CacheLookup:
    """What a prompt finds in the cache: tokens read from it and tokens it will newly write."""

    read_tokens: int
    write_tokens: int
    keys: tuple[bytes, ...]
    seconds: float


class PromptCache:
    """The prefix caches of every account of one gateway instance."""

    def __init__(self, max_blocks: int = DEFAULT_MAX_BLOCKS, clock: Callable[[], float] = time.monotonic,
                 retention_seconds: dict[str, float] | None = None) -> None:
        self.max_blocks = max_blocks
        self.retention_seconds = {**RETENTION_SECONDS, **(retention_seconds or {})}
        self._clock = clock
        self._accounts: dict[str, OrderedDict[bytes, float]] = {}
        self._lock = threading.Lock()

    def lookup(self, account: str, model: str, cache_key: str | None, units: list[str],
               retention: str = "in-memory") -> CacheLookup:
        """The cached prefix of ``units`` (read only: :meth:`store` commits the write)."""
        seconds = self.retention_seconds[retention]
        if len(units) < MIN_PREFIX_TOKENS:
            return CacheLookup(0, 0, (), seconds)
        scope = f"{model}\x00{'' if cache_key is None else 'key:' + cache_key}"
        keys = block_keys(units, scope, self.max_blocks)
        now = self._clock()
        with self._lock:
            entries = self._accounts.get(account, OrderedDict())
            hits = 0
            for key in keys:
                expires = entries.get(key)
                if expires is None or expires <= now:
                    break
                hits += 1
            fresh = sum(1 for key in keys[hits:] if entries.get(key, 0.0) <= now)
        read = hits * BLOCK_TOKENS if hits * BLOCK_TOKENS >= MIN_PREFIX_TOKENS else 0
        return CacheLookup(read, fresh * BLOCK_TOKENS, tuple(keys), seconds)

    def store(self, account: str, found: CacheLookup) -> None:
        """Remember (or refresh) every block of a looked-up prompt; drop the least recently used past the cap."""
        if not found.keys:
            return
        now = self._clock()
        with self._lock:
            entries = self._accounts.setdefault(account, OrderedDict())
            for key in found.keys:
                entries[key] = max(entries.get(key, 0.0), now + found.seconds)
                entries.move_to_end(key)
            while len(entries) > self.max_blocks:
                entries.popitem(last=False)

    def size(self, account: str) -> int:
        """Blocks held for ``account`` (expired ones included until they are pushed out)."""
        with self._lock:
            return len(self._accounts.get(account, ()))
