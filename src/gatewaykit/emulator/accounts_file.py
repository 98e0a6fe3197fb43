"""The accounts file (``--accounts FILE`` or ``start(accounts=...)``), checked field by field.

Shape::

    {"accounts": [{"id": "acme", "balance_usd": 10.0,
                   "rate_limit": {"requests": 600, "per_seconds": 60},
                   "keys": [{"key": "sk-bf-...", "status": "active", "models": "*"}]}]}

``id``, ``balance_usd`` and ``keys`` are required; ``rate_limit``, a key's ``status``
(default ``active``) and ``models`` (default ``"*"``, every model) are optional.
A wrong type, a missing or unknown field is an :class:`AccountsError` (a
ValueError) that names the field and says what to put there. Messages never
contain a key.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any

KEY_PREFIX = "sk-bf-"
SHAPE = '{"accounts": [{"id": "acme", "balance_usd": 10.0, "keys": [{"key": "sk-bf-..."}]}]}'
DEFAULT_RATE_LIMIT = {"requests": 100_000, "per_seconds": 60}
_ACCOUNT_FIELDS = {"id": True, "balance_usd": True, "keys": True, "rate_limit": False}
_KEY_FIELDS = {"key": True, "status": False, "models": False}
_RATE_FIELDS = {"requests": True, "per_seconds": True}


class AccountsError(ValueError):
    """The accounts data is not in the documented shape; the message says what to change."""


class AccountsFileError(AccountsError):
    """The accounts file cannot be read as JSON (``reason`` says why, e.g. ``is not valid JSON: ...``)."""

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(f"accounts file {path!r} {reason}")
        self.path = path
        self.reason = reason


def read_accounts_file(path: str) -> Any:
    """The parsed JSON of the accounts file at ``path``, or :class:`AccountsFileError`."""
    try:
        with open(path, encoding="utf-8") as handle:
            return json.load(handle)
    except json.JSONDecodeError as exc:
        raise AccountsFileError(path, f"is not valid JSON: {exc}") from None
    except UnicodeDecodeError as exc:
        raise AccountsFileError(path, f"is not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    except OSError as exc:
        raise AccountsFileError(path, f"cannot be read: {exc.strerror or exc}") from None


@dataclass(frozen=True)
class KeyEntry:
    key: str
    status: str
    models: frozenset[str] | None  # None = every model


@dataclass(frozen=True)
class AccountEntry:
    id: str
    balance_usd: float
    requests: int
    per_seconds: float
    keys: tuple[KeyEntry, ...]


def read_accounts(data: Any) -> list[AccountEntry]:
    """The checked accounts of ``data`` (the parsed JSON), or :class:`AccountsError`."""
    if not isinstance(data, dict) or set(data) != {"accounts"}:
        raise AccountsError(f"the accounts must be an object with one field, 'accounts', like {SHAPE}")
    entries = data["accounts"]
    if not isinstance(entries, list) or not entries:
        raise AccountsError(f"'accounts' must be a non-empty list of accounts, like {SHAPE}")
    accounts: list[AccountEntry] = []
    seen_keys: set[str] = set()
    for index, entry in enumerate(entries):
        account = _account(entry, f"accounts[{index}]")
        if any(other.id == account.id for other in accounts):
            raise AccountsError(f"account {account.id!r} is listed twice; give each account its own 'id'")
        for number, key in enumerate(account.keys):
            if key.key in seen_keys:
                raise AccountsError(f"account {account.id!r}, keys[{number}]: this key is already listed; "
                                    "every key must be unique")
            seen_keys.add(key.key)
        accounts.append(account)
    return accounts


def _fields(entry: Any, where: str, fields: dict[str, bool], example: str) -> dict[str, Any]:
    if not isinstance(entry, dict):
        raise AccountsError(f"{where} must be an object like {example}; got {_kind(entry)}")
    unknown = [name for name in entry if name not in fields]
    if unknown:
        raise AccountsError(f"{where}: unknown field {unknown[0]!r}; the fields are {', '.join(fields)}")
    missing = [name for name, required in fields.items() if required and name not in entry]
    if missing:
        raise AccountsError(f"{where}: missing required field {missing[0]!r}")
    return entry


def _account(entry: Any, where: str) -> AccountEntry:
    _fields(entry, where, _ACCOUNT_FIELDS, '{"id": "acme", "balance_usd": 10.0, "keys": [...]}')
    account_id = entry["id"]
    if not isinstance(account_id, str) or not account_id.strip():
        raise AccountsError(f"{where}: 'id' must be a non-empty string, like \"acme\"")
    where = f"account {account_id!r}"
    balance = _number(entry["balance_usd"], f"{where}: 'balance_usd'", "a number of US dollars >= 0, like 10.5")
    if balance < 0:
        raise AccountsError(f"{where}: 'balance_usd' must be a number of US dollars >= 0, like 10.5; "
                            f"got {balance!r}")
    limit = entry.get("rate_limit")
    limit = DEFAULT_RATE_LIMIT if limit is None else _fields(
        limit, f"{where}: 'rate_limit'", _RATE_FIELDS, '{"requests": 600, "per_seconds": 60}')
    requests = _number(limit["requests"], f"{where}: 'rate_limit.requests'", "a whole number >= 1, like 600")
    if requests != int(requests) or requests < 1:
        raise AccountsError(f"{where}: 'rate_limit.requests' must be a whole number >= 1, like 600; "
                            f"got {requests!r}")
    per_seconds = _number(limit["per_seconds"], f"{where}: 'rate_limit.per_seconds'", "seconds > 0, like 60")
    if per_seconds <= 0:
        raise AccountsError(f"{where}: 'rate_limit.per_seconds' must be seconds > 0, like 60; got {per_seconds!r}")
    keys = entry["keys"]
    if not isinstance(keys, list):
        raise AccountsError(f"{where}: 'keys' must be a list of key objects, like "
                            f'[{{"key": "{KEY_PREFIX}..."}}]; got {_kind(keys)}')
    return AccountEntry(account_id, balance, int(requests), per_seconds,
                        tuple(_key(key, f"{where}, keys[{number}]") for number, key in enumerate(keys)))


def _key(entry: Any, where: str) -> KeyEntry:
    _fields(entry, where, _KEY_FIELDS, f'{{"key": "{KEY_PREFIX}...", "status": "active", "models": "*"}}')
    key = entry["key"]
    if not isinstance(key, str) or not key.startswith(KEY_PREFIX) or len(key) > 512 \
            or any(c.isspace() or not c.isprintable() or not c.isascii() for c in key):
        raise AccountsError(f"{where}: 'key' must be a string starting with {KEY_PREFIX!r} (printable ASCII, "
                            "no spaces, at most 512 characters)")
    status = entry.get("status", "active")
    if not isinstance(status, str) or not status.strip():
        raise AccountsError(f"{where}: 'status' must be a string such as \"active\" or \"revoked\"")
    models = entry.get("models", "*")
    if models in ("*", None):
        scope = None
    elif isinstance(models, list) and all(isinstance(model, str) for model in models):
        scope = frozenset(models)
    else:
        raise AccountsError(f"{where}: 'models' must be \"*\" (every model) or a list of model id strings")
    return KeyEntry(key, status, scope)


def _number(value: Any, where: str, wanted: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise AccountsError(f"{where} must be {wanted}; got {_shown(value)}")
    return value


def _shown(value: Any) -> str:
    """``value`` as it reads in JSON (``true``, ``"abc"``), shortened."""
    try:
        text = json.dumps(value)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _kind(value: Any) -> str:
    names = {dict: "an object", list: "a list", str: "a string", bool: "a boolean", type(None): "null"}
    return names.get(type(value), "a number" if isinstance(value, (int, float)) else type(value).__name__)
