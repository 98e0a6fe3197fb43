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


def settle_counts(target: tuple[int, int], slack: tuple[int, int], seconds: float = 60.0) -> tuple[int, int]:
    """Counts once they fall within ``target + slack`` (sockets and threads close asynchronously; a busy machine
    takes its time), or the last counts after ``seconds`` for the caller's assertion to show."""
    deadline = time.monotonic() + seconds
    while True:
        counts = resource_counts()
        if all(c <= t + s for c, t, s in zip(counts, target, slack)) or time.monotonic() > deadline:
            return counts
        time.sleep(0.05)


class GatewayProcess:
    """``python -m gatewaykit.emulator`` in its own process (for its memory), with one account; a context manager."""

    def __init__(self, account: str, key: str, balance: float = 100.0, *args: str) -> None:
        import json
        import subprocess
        import sys
        import tempfile

        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as file:
            json.dump(one_account(account, key, balance), file)
        self.accounts_file = file.name
        self.process = subprocess.Popen(
            [sys.executable, "-m", "gatewaykit.emulator", "--port", "0", "--accounts", self.accounts_file,
             "--time-scale", "0", "--admin-token", RELIABILITY_ADMIN, *args],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        assert self.process.stdout is not None
        line = self.process.stdout.readline()  # the banner's first line names the URL (blocks until it listens)
        if ": http://" not in line:
            self.close()
            raise AssertionError(f"the gateway process did not start; it printed {line!r}")
        self.base_url = line.split(": ", 1)[1].strip()
        self._drain = threading.Thread(target=self.process.stdout.read, daemon=True)  # the banner's rest
        self._drain.start()

    def peak_memory_mb(self) -> int:
        """The process's peak resident memory (VmHWM), in MB."""
        with open(f"/proc/{self.process.pid}/status") as status:
            line = next(line for line in status if line.startswith("VmHWM:"))
        return int(line.split()[1]) // 1024

    def close(self) -> None:
        self.process.terminate()
        self.process.wait(60)
        if getattr(self, "_drain", None) is not None:
            self._drain.join(60)
        if self.process.stdout is not None:
            self.process.stdout.close()
        os.unlink(self.accounts_file)

    def __enter__(self) -> GatewayProcess:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
