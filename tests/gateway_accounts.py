"""The suite's test accounts and keys, importable from any test module.

(Not in conftest.py: several folders have a conftest.py, and ``from conftest
import ...`` picks whichever was imported last.) ``tests/`` is on ``sys.path``
through ``pythonpath`` in pyproject.toml.

Accounts:
- ``acme`` ($50, generous rate limit): ``ACME_KEY`` (every model), ``CHAT_ONLY_KEY``
  (only ``chat-mini``), ``REVOKED_KEY`` (revoked), ``ACME_SECOND_KEY`` (every model; for ownership tests).
- ``tight`` ($0.0001): ``TIGHT_KEY``, for 402.
- ``limited`` (3 requests per 60 s): ``LIMITED_KEY``, for 429 (use it only in the rate-limit tests).
"""

from __future__ import annotations

from typing import Any

ADMIN_TOKEN = "admin-test-token"
ACME_KEY = "sk-bf-test-acme-full-000000000001"
ACME_SECOND_KEY = "sk-bf-test-acme-second-0000000002"
CHAT_ONLY_KEY = "sk-bf-test-acme-chatonly-00000003"
REVOKED_KEY = "sk-bf-test-acme-revoked-000000004"
TIGHT_KEY = "sk-bf-test-tight-0000000000000005"
LIMITED_KEY = "sk-bf-test-limited-00000000000006"

TEST_ACCOUNTS: dict[str, Any] = {
    "accounts": [
        {
            "id": "acme",
            "balance_usd": 50.0,
            "rate_limit": {"requests": 1_000_000, "per_seconds": 60},
            "keys": [
                {"key": ACME_KEY, "status": "active", "models": "*"},
                {"key": ACME_SECOND_KEY, "status": "active", "models": "*"},
                {"key": CHAT_ONLY_KEY, "status": "active", "models": ["chat-mini"]},
                {"key": REVOKED_KEY, "status": "revoked"},
            ],
        },
        {
            "id": "tight",
            "balance_usd": 0.0001,
            "rate_limit": {"requests": 1000, "per_seconds": 60},
            "keys": [{"key": TIGHT_KEY, "status": "active", "models": "*"}],
        },
        {
            "id": "limited",
            "balance_usd": 5.0,
            "rate_limit": {"requests": 3, "per_seconds": 60},
            "keys": [{"key": LIMITED_KEY, "status": "active", "models": "*"}],
        },
    ]
}


def auth(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}
