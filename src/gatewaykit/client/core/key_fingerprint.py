"""The key fingerprint the ledger keeps, so ``client.jobs.pending()`` can tell a key's own jobs apart.

The ledger never stores an API key. It stores, with each row, a short
one-way fingerprint of it: the first 16 hex digits of
``sha256(b"gatewaykit key id\\0" + key)``. It cannot be turned back into the
key (SHA-256 is one-way, and the prefix keeps it from matching any other
system's hash of the same key); it is used for one thing only, to tell the jobs
this key started from those another key started on the same gateway (which
answer 404 to this key when polled).
"""

from __future__ import annotations

import hashlib
from typing import Optional

__all__ = ["key_id"]

_DOMAIN = b"gatewaykit key id\0"


def key_id(api_key: Optional[str]) -> Optional[str]:
    """The irreversible fingerprint of ``api_key`` kept in ledger rows, or None without a key."""
    if not api_key:
        return None
    return hashlib.sha256(_DOMAIN + api_key.encode()).hexdigest()[:16]
