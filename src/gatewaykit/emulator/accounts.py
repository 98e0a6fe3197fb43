"""The offline gateway's keys and accounts: authentication and model scoping.

The accounts themselves (balance, holds, rate limit) are :class:`gatewaykit.serving.accounts.Account`;
keys are stored only as their :func:`~gatewaykit.serving.accounts.key_digest`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from gatewaykit.emulator.accounts_file import KEY_PREFIX, AccountEntry, read_accounts
from gatewaykit.money import nanos_to_usd, usd_to_nanos
from gatewaykit.serving.accounts import Account, key_digest
from gatewaykit.serving.errors import ApiError, invalid_key
from gatewaykit.serving.ratelimit import SlidingWindow


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
