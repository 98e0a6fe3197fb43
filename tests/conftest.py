"""Session fixtures: one real offline gateway (uvicorn in a thread) shared by the whole suite.

Accounts:
- ``acme`` ($50, generous rate limit): ``ACME_KEY`` (every model), ``CHAT_ONLY_KEY``
  (only ``chat-mini``), ``REVOKED_KEY`` (revoked), ``ACME_SECOND_KEY`` (every model; for ownership tests).
- ``tight`` ($0.0001): ``TIGHT_KEY``, for 402.
- ``limited`` (3 requests per 60 s): ``LIMITED_KEY``, for 429 (use it only in the rate-limit tests).
"""

from __future__ import annotations

import os

# Logfire (in the [test] extra for tests/telemetry) registers a pydantic plugin that imports Logfire and
# OpenTelemetry into every process that builds a pydantic validator: kernels, subprocesses and this one.
# Off for the suite (the variable reaches every child process); the Logfire test turns it back on.
os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "logfire-plugin")

from typing import Any, Iterator

import early_start
import httpx
import pytest
import xdist_groups

from gateway_accounts import (  # noqa: F401 - re-exported for fixtures below
    ACME_KEY,
    ACME_SECOND_KEY,
    ADMIN_TOKEN,
    CHAT_ONLY_KEY,
    LIMITED_KEY,
    REVOKED_KEY,
    TEST_ACCOUNTS,
    TIGHT_KEY,
    auth,
)


def pytest_configure(config: pytest.Config) -> None:
    xdist_groups.name_the_units_file(config)


def pytest_unconfigure(config: pytest.Config) -> None:
    xdist_groups.remove_the_units_file(config)


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """In a pytest-xdist worker of ``--dist loadgroup`` (``.ci/run``): the units of work (tests/xdist_groups.py)."""
    if getattr(config.option, "loadgroup", False) and xdist_groups.ENVIRONMENT in os.environ:
        xdist_groups.sort_and_write_units(items)


@pytest.hookimpl(tryfirst=True, optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    if config.getvalue("dist") == "loadgroup":
        return xdist_groups.make_scheduler(config, log)
    return None


def pytest_collection_finish(session: pytest.Session) -> None:
    """Start the selected tests' ``start_early`` work (slow subprocesses) now, beside the rest of the run."""
    if session.config.option.collectonly:
        return
    markers = (item.get_closest_marker("start_early") for item in session.items)
    early_start.start([marker.args[0] for marker in markers if marker is not None])


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    early_start.stop(interrupted=exitstatus == pytest.ExitCode.INTERRUPTED or bool(session.shouldstop))


@pytest.fixture
def no_key(monkeypatch: pytest.MonkeyPatch) -> None:
    """No SVC_* variables (a cassette's replay, the offline default must not need them)."""
    monkeypatch.delenv("SVC_API_KEY", raising=False)
    monkeypatch.delenv("SVC_BASE_URL", raising=False)


@pytest.fixture(scope="session")
def ledger_folder(tmp_path_factory: pytest.TempPathFactory) -> Any:
    return tmp_path_factory.mktemp("ledgers")


def _ledger_file(ledger_folder: Any, node: Any) -> str:
    import hashlib

    return str(ledger_folder / f"{hashlib.sha1(node.nodeid.encode()).hexdigest()[:16]}.sqlite")


# Module- and session-scoped fixtures are set up before any function-scoped one, so the
# per-test fixture alone would leave them on the user's real database: each scope gets its own.
@pytest.fixture(scope="session", autouse=True)
def _session_ledger_database(ledger_folder: Any, request: Any) -> Iterator[None]:
    """Session-scoped fixtures' default ledger database is a temporary file, never the user's."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("GATEWAYKIT_LEDGER_PATH", str(ledger_folder / "session.sqlite"))
        yield


@pytest.fixture(scope="module", autouse=True)
def _module_ledger_database(_session_ledger_database: None, ledger_folder: Any, request: Any) -> Iterator[None]:
    """Each test module's module-scoped fixtures get their own default ledger database."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("GATEWAYKIT_LEDGER_PATH", _ledger_file(ledger_folder, request.node))
        yield


@pytest.fixture(autouse=True)
def _own_ledger_database(
    _module_ledger_database: None, ledger_folder: Any, monkeypatch: pytest.MonkeyPatch, request: Any
) -> None:
    """Every test's default ledger database is its own temporary file, never the user's."""
    monkeypatch.setenv("GATEWAYKIT_LEDGER_PATH", _ledger_file(ledger_folder, request.node))


@pytest.fixture(scope="session", autouse=True)
def _classrooms_in_memory() -> Iterator[None]:
    """A classroom started without ``db=`` stays in memory, never in the user's per-user ``classroom.db``."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("GATEWAYKIT_CLASSROOM_DB", "memory")
        yield


@pytest.fixture(autouse=True)
def _own_response_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test's per-user response cache (``Client(cache=True)``) is its own folder, never the user's."""
    monkeypatch.setenv("GATEWAYKIT_CACHE_PATH", str(tmp_path_factory.mktemp("response-cache")))


class Admin:
    """Reads balances through the admin endpoint."""

    def __init__(self, base_url: str, token: str) -> None:
        self.base_url = base_url
        self.token = token

    def accounts(self) -> dict[str, dict[str, float]]:
        answer = httpx.get(f"{self.base_url}/_emulator/accounts", headers={"Authorization": f"Bearer {self.token}"})
        answer.raise_for_status()
        return {entry["id"]: entry for entry in answer.json()["accounts"]}

    def balance(self, account: str = "acme") -> float:
        return self.accounts()[account]["balance_usd"]


@pytest.fixture(scope="session")
def emulator() -> Iterator[Any]:
    """The offline gateway at time-scale 0 with the test accounts."""
    from gatewaykit import emulator as gateway

    with gateway.start(accounts=TEST_ACCOUNTS, time_scale=0, seed=0, admin_token=ADMIN_TOKEN) as running:
        yield running


@pytest.fixture(scope="session")
def admin(emulator: Any) -> Admin:
    return Admin(emulator.base_url, ADMIN_TOKEN)


@pytest.fixture
def http(emulator: Any) -> Iterator[httpx.Client]:
    """An httpx client on the gateway, authenticated as ``ACME_KEY``."""
    with httpx.Client(base_url=emulator.base_url, headers=auth(ACME_KEY), timeout=60) as client:
        yield client


class Keys:
    """The test keys by role (the same values as the module constants)."""

    acme = ACME_KEY
    acme_second = ACME_SECOND_KEY
    chat_only = CHAT_ONLY_KEY
    revoked = REVOKED_KEY
    tight = TIGHT_KEY
    limited = LIMITED_KEY


@pytest.fixture(scope="session")
def keys() -> type[Keys]:
    return Keys
