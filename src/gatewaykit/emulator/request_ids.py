"""Ids, media tokens, default seeds and timestamps: random and from the clock, or reproducible.

By default a completion id or a job id is random, a media link's token is a
secret, ``created`` is the clock and a request without a ``seed`` draws one
from the gateway's seeded sequence. With ``Settings.reproducible`` (what a
grader gets with ``GATEWAYKIT_OFFLINE=1`` / ``GATEWAYKIT_SEED=N``) each of
them is derived from the gateway's ``seed``, what the request asked and how
many identical requests came before it, so the same notebook sees the same
ids, links, seeds and timestamps on every run and every machine, even when
its requests arrive concurrently in another order. Timestamps then start at
:data:`REPRODUCIBLE_EPOCH`; a job completes its nominal duration later.
"""

from __future__ import annotations

import hashlib
import json
import secrets
import threading
import time
from typing import Any

__all__ = ["REPRODUCIBLE_EPOCH", "RequestIds"]

#: ``created`` of every answer of a reproducible gateway: 2026-01-01T00:00:00Z.
REPRODUCIBLE_EPOCH = 1767225600


class RequestIds:
    """Where one gateway's ids, tokens, default seeds and timestamps come from."""

    def __init__(self, seed: int, reproducible: bool) -> None:
        self.seed = seed
        self.reproducible = reproducible
        self._seen: dict[str, int] = {}
        self._lock = threading.Lock()

    def _digest(self, kind: str, basis: Any) -> bytes:
        text = json.dumps([kind, basis], sort_keys=True, default=repr, ensure_ascii=True)
        with self._lock:  # the n-th identical request gets the n-th id
            occurrence = self._seen.get(text, 0)
            self._seen[text] = occurrence + 1
        return hashlib.sha256(json.dumps([self.seed, occurrence, text]).encode()).digest()

    def hex(self, kind: str, basis: Any, nbytes: int) -> str:
        """``nbytes`` random bytes as hex; derived from ``basis`` (what the request asked) when reproducible."""
        if not self.reproducible:
            return secrets.token_hex(nbytes)
        return _stretch(self._digest(kind, basis), nbytes).hex()

    def token(self, kind: str, basis: Any) -> str:
        """A media link's secret (43 URL-safe characters); derived from ``basis`` when reproducible."""
        if not self.reproducible:
            return secrets.token_urlsafe(32)
        import base64

        return base64.urlsafe_b64encode(self._digest(kind, basis)).decode().rstrip("=")

    def seed_for(self, basis: Any) -> int:
        """A reproducible seed for a request that gave none (call only when reproducible)."""
        return int.from_bytes(self._digest("seed", basis)[:4], "big") >> 1

    def sample_seed(self, basis: Any) -> int:
        """The draw of a sampled chat answer (temperature > 0, no seed): from the gateway's seed and how many
        requests identical to ``basis`` came before, reproducible or not (:mod:`.chat.sampling`)."""
        return int.from_bytes(self._digest("sample", basis)[:4], "big") >> 1

    def now(self) -> int:
        """``created``: the clock, or the fixed epoch when reproducible."""
        return REPRODUCIBLE_EPOCH if self.reproducible else int(time.time())

    def finished_at(self, created_at: int, nominal_seconds: float) -> int:
        """A job's ``completed_at``: the clock, or its creation plus its nominal duration when reproducible."""
        return created_at + round(nominal_seconds) if self.reproducible else int(time.time())


def _stretch(digest: bytes, nbytes: int) -> bytes:
    out = digest
    while len(out) < nbytes:
        out += hashlib.sha256(out).digest()
    return out[:nbytes]
