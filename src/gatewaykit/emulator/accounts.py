"""Accounts, keys and balances: authentication, model scoping and exact billing.

Money is kept in integer nano-dollars (1e-9 USD), so every charge is exact and
the reported ``total_cost`` values (nanos / 1e9) sum to the balance change.
Keys are stored only as SHA-256 digests and looked up by digest, so comparing
a presented key never depends on how many characters matched.
"""

from __future__ import annotations

import hashlib
import threading
from dataclasses import dataclass, field
from typing import Any

from gatewaykit.emulator.accounts_file import KEY_PREFIX, AccountEntry, read_accounts
from gatewaykit.emulator.errors import ApiError, invalid_key
from gatewaykit.emulator.ratelimit import SlidingWindow

NANOS_PER_USD = 1_000_000_000


def usd_to_nanos(usd: float | int | str) -> int:
    from decimal import Decimal

    return int((Decimal(str(usd)) * NANOS_PER_USD).to_integral_value())


def nanos_to_usd(nanos: int) -> float:
    return round(nanos / NANOS_PER_USD, 9)


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


@dataclass(frozen=True)
class ApiKey:
    """A key as the gateway knows it: never the key itself, only its digest."""

    digest: str
    account: Account
    status: str
    models: frozenset[str] | None  # None = every model

    def may_use(self, model_id: str) -> bool:
        return self.models is None or model_id in self.models


class AccountBook:
    """All accounts and keys of one gateway instance."""

    def __init__(self, accounts: dict[str, Any]) -> None:
        """``accounts`` as documented in :mod:`gatewaykit.emulator.accounts_file` (AccountsError otherwise)."""
        self.accounts: dict[str, Account] = {}
        self._keys: dict[str, ApiKey] = {}
        self.first_active_key: str | None = None
        for entry in read_accounts(accounts):
            self._add_account(entry)

    def _add_account(self, entry: AccountEntry) -> None:
        account = Account(id=entry.id, balance_nanos=usd_to_nanos(entry.balance_usd),
                          limiter=SlidingWindow(entry.requests, entry.per_seconds))
        self.accounts[entry.id] = account
        for key in entry.keys:
            self._keys[key_digest(key.key)] = ApiKey(key_digest(key.key), account, key.status, key.models)
            if key.status == "active" and self.first_active_key is None:
                self.first_active_key = key.key

    def authenticate(self, authorization: str | None) -> ApiKey:
        """The key of an ``Authorization`` header; 401 when missing/malformed/unknown, 403 when revoked."""
        if not authorization:
            raise invalid_key("Missing API key. Send the header 'Authorization: Bearer sk-bf-...'.")
        scheme, _, token = authorization.partition(" ")
        token = token.strip()
        if scheme.lower() != "bearer" or not token.startswith(KEY_PREFIX) or len(token) > 512:
            raise invalid_key("Malformed API key. Send 'Authorization: Bearer sk-bf-...'.")
        api_key = self._keys.get(key_digest(token))
        if api_key is None:
            raise invalid_key("Unknown API key. Check the key in your dashboard.")
        if api_key.status != "active":
            raise ApiError(
                403,
                f"This API key is {api_key.status}. Create or activate a key in your dashboard.",
                code=f"api_key_{api_key.status}"[:40],
            )
        return api_key

    def summary(self) -> list[dict[str, Any]]:
        return [
            {
                "id": account.id,
                "balance_usd": nanos_to_usd(account.balance_nanos),
                "spent_usd": nanos_to_usd(account.spent_nanos),
            }
            for account in self.accounts.values()
        ]
