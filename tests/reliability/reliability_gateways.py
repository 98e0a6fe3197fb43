"""Helpers for the reliability suite (not a conftest.py: tests import the session conftest by name): dedicated gateways (so faults and spending never touch
the session gateway's accounts), admin reads, and resource counts."""

from __future__ import annotations

import os
import threading
import time
from typing import Any

import httpx

RELIABILITY_ADMIN = "reliability-admin-token"


def one_account(account: str, key: str, balance: float = 100.0) -> dict[str, Any]:
    return {"accounts": [{"id": account, "balance_usd": balance,
                          "rate_limit": {"requests": 10_000_000, "per_seconds": 60},
                          "keys": [{"key": key, "status": "active", "models": "*"}]}]}


def admin_json(base_url: str, path: str, token: str = RELIABILITY_ADMIN) -> Any:
    answer = httpx.get(base_url + path, headers={"Authorization": f"Bearer {token}"}, timeout=30)
    answer.raise_for_status()
    return answer.json()


def account_balance(base_url: str, account: str, token: str = RELIABILITY_ADMIN) -> float:
    accounts = admin_json(base_url, "/_emulator/accounts", token)["accounts"]
    return next(entry["balance_usd"] for entry in accounts if entry["id"] == account)


def resource_counts() -> tuple[int, int]:
    """(threads, open file descriptors) of this process."""
    return threading.active_count(), len(os.listdir("/proc/self/fd"))


def settle_counts(target: tuple[int, int], slack: tuple[int, int], seconds: float = 5.0) -> tuple[int, int]:
    """Counts once they fall within ``target + slack`` (sockets and threads close asynchronously)."""
    deadline = time.monotonic() + seconds
    while True:
        counts = resource_counts()
        if all(c <= t + s for c, t, s in zip(counts, target, slack)) or time.monotonic() > deadline:
            return counts
        time.sleep(0.05)
