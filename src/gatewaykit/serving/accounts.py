"""An account's balance, holds and rate limit, and the digest keys are known by, for both servers.

Money is kept in integer nano-dollars (1e-9 USD; :mod:`gatewaykit.money` converts), so every
charge is exact and the reported ``total_cost`` values (nanos / 1e9) sum to the balance change.
Keys are stored only as SHA-256 digests and looked up by digest, so comparing
a presented key never depends on how many characters matched.
"""

from __future__ import annotations

import hashlib
import threading
from dataclasses import dataclass, field

from gatewaykit.serving.ratelimit import SlidingWindow


def key_digest(key: str) -> str:
    return hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()


@dataclass
class Account:
    id: str
    balance_nanos: int
    limiter: SlidingWindow
    spent_nanos: int = 0
    held_nanos: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def available(self) -> int:
        return self.balance_nanos - self.held_nanos

    def can_pay(self, nanos: int) -> bool:
        return self.available() >= nanos

    def charge(self, nanos: int) -> bool:
        """Deduct ``nanos`` if the balance allows it; False (and nothing changes) otherwise."""
        with self.lock:
            if self.available() < nanos:
                return False
            self.balance_nanos -= nanos
            self.spent_nanos += nanos
            return True

    def hold(self, nanos: int) -> bool:
        """Reserve ``nanos`` (work in flight) so concurrent requests cannot spend it; see :class:`.holds.Hold`."""
        with self.lock:
            if self.available() < nanos:
                return False
            self.held_nanos += nanos
            return True

    def change_hold(self, held: int, nanos: int) -> bool:
        """Turn a hold of ``held`` into one of ``nanos``; False (nothing changes) when growing it is not covered."""
        with self.lock:
            if nanos > held and self.available() < nanos - held:
                return False
            self.held_nanos += nanos - held
            return True

    def settle(self, nanos: int, *, paid: bool, charged: int | None = None) -> None:
        """Release a hold, charging it when ``paid`` (the stream completed): the held ``nanos``, or ``charged``
        when the final price differs from the hold (the classroom holds a worst case, then charges the
        upstream's reported cost)."""
        with self.lock:
            self.held_nanos -= nanos
            if paid:
                amount = nanos if charged is None else charged
                self.balance_nanos -= amount
                self.spent_nanos += amount
