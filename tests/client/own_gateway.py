"""A dedicated offline gateway per test module, so balance changes are this module's alone."""

from __future__ import annotations

import time
from typing import Any

import httpx

OWN_ADMIN = "client-own-admin-token"


def one_account(account: str, key: str, balance: float = 100.0) -> dict[str, Any]:
    return {
        "accounts": [
            {
                "id": account,
                "balance_usd": balance,
                "rate_limit": {"requests": 10_000_000, "per_seconds": 60},
                "keys": [{"key": key, "status": "active", "models": "*"}],
            }
        ]
    }


def balance(base_url: str, account: str) -> float:
    """The account's balance in USD (admin endpoint)."""
    answer = httpx.get(f"{base_url}/_emulator/accounts", headers={"Authorization": f"Bearer {OWN_ADMIN}"}, timeout=30)
    answer.raise_for_status()
    return next(entry["balance_usd"] for entry in answer.json()["accounts"] if entry["id"] == account)


def settled_balance(base_url: str, account: str, *, quiet: float = 0.3, limit: float = 5.0) -> float:
    """The balance once it has not moved for ``quiet`` seconds (streams settle after the client leaves)."""
    deadline = time.monotonic() + limit
    last = balance(base_url, account)
    still_since = time.monotonic()
    while time.monotonic() < deadline:
        time.sleep(0.05)
        now = balance(base_url, account)
        if now != last:
            last, still_since = now, time.monotonic()
        elif time.monotonic() - still_since >= quiet:
            break
    return last
