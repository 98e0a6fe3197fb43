"""Money held on an account for one piece of paid work, from before the work starts until it is settled.

Every paid request holds its price (or the least it can cost) before any work, answering 402 when the
balance cannot cover it; the hold is charged when the answer is delivered and released when the work
fails, is refused or the client leaves. Held money is not available to other requests, so concurrent
requests can never together spend more than the balance. Details: ``docs/internals.md``.
"""

from __future__ import annotations

import threading
from typing import Any

from gatewaykit.serving.accounts import Account
from gatewaykit.serving.errors import insufficient_quota


class Hold:
    """``nanos`` held on ``account``; settled exactly once (:meth:`charge` or :meth:`release`; later calls
    do nothing). Thread-safe: a stream's end and a client's disconnect may race to settle it."""

    def __init__(self, account: Account, nanos: int) -> None:
        """An already-held amount; use :meth:`take` to hold one."""
        self.account = account
        self.nanos = nanos
        self._settled = False
        self._lock = threading.Lock()

    @classmethod
    def take(cls, account: Account, nanos: int) -> Hold:
        """Hold ``nanos`` on ``account``; raise the 402 ``insufficient_quota`` ApiError when its available
        balance (balance minus what is already held) is lower."""
        if not account.hold(nanos):
            raise insufficient_quota()
        return cls(account, nanos)

    @property
    def settled(self) -> bool:
        return self._settled

    def resize(self, nanos: int) -> bool:
        """Hold ``nanos`` instead (the real price, once known). Shrinking always works; growing only when the
        balance covers the difference: False (and the hold unchanged) otherwise."""
        with self._lock:
            if self._settled:
                raise RuntimeError("a settled hold cannot be resized")
            if not self.account.change_hold(self.nanos, nanos):
                return False
            self.nanos = nanos
            return True

    def resize_or_refuse(self, nanos: int) -> None:
        """:meth:`resize`, or release the hold and raise the 402 ``insufficient_quota`` ApiError."""
        if not self.resize(nanos):
            self.release()
            raise insufficient_quota()

    def charge(self) -> None:
        """Bill the held amount (the work was delivered)."""
        self._settle(paid=True)

    def release(self) -> None:
        """Give the held amount back, charging nothing (the work failed, was refused or abandoned)."""
        self._settle(paid=False)

    def _settle(self, *, paid: bool) -> None:
        with self._lock:
            if self._settled:
                return
            self._settled = True
        self.account.settle(self.nanos, paid=paid)

    def __enter__(self) -> Hold:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.release()  # no-op when the block charged it

    def __repr__(self) -> str:
        state = "settled" if self._settled else "held"
        return f"Hold(account={self.account.id!r}, nanos={self.nanos}, {state})"
