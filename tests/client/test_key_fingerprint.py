"""The key fingerprint the ledger keeps: stable, short, distinct per key, never the key."""

from __future__ import annotations

import hashlib

from gateway_accounts import ACME_KEY, ACME_SECOND_KEY

from gatewaykit.client.core.key_fingerprint import key_id


def test_fingerprint_is_the_documented_domain_separated_sha256_prefix() -> None:
    """key_id is the first 16 hex digits of sha256(b"gatewaykit key id\\0" + key)."""
    assert key_id(ACME_KEY) == hashlib.sha256(b"gatewaykit key id\0" + ACME_KEY.encode()).hexdigest()[:16]


def test_two_keys_of_one_account_have_two_fingerprints() -> None:
    """Keys of one account get different 16-hex-digit fingerprints (so their jobs can be told apart)."""
    first, second = key_id(ACME_KEY), key_id(ACME_SECOND_KEY)
    assert first != second
    assert all(len(str(f)) == 16 and int(str(f), 16) >= 0 for f in (first, second))


def test_no_key_has_no_fingerprint() -> None:
    """A client without a key (a replay-only cassette client) records key_id None."""
    assert key_id("") is None and key_id(None) is None
