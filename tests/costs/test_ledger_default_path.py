"""The default ledger's database is resolved once and kept: a change of
GATEWAYKIT_LEDGER_PATH later never makes a ledger read or write another file, and
fixtures wider than one test never see the user's real database."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

import platformdirs
import pytest

from gatewaykit.costs import Ledger
from gatewaykit.costs.location import user_ledger_path
from ledger_records import records  # noqa: F401  (fixture)


@pytest.fixture(scope="module")
def module_setup_path() -> Optional[Path]:
    """The default ledger path a module-scoped fixture sees while it is set up."""
    return user_ledger_path()


def test_module_fixtures_never_use_the_users_database(module_setup_path, ledger_folder):
    """A module-scoped fixture's default ledger is a temporary file of the test run, not the user's."""
    users = Path(platformdirs.user_data_dir("gatewaykit", appauthor=False)) / "ledger.sqlite"
    assert module_setup_path is not None and module_setup_path != users
    assert module_setup_path.parent == ledger_folder


def test_a_ledger_never_reads_the_database_the_environment_names_later(tmp_path, monkeypatch, records):
    """A default ledger that has looked for its database keeps that path: rows in a later env path stay out."""
    first, second = tmp_path / "first.sqlite", tmp_path / "second.sqlite"
    monkeypatch.setenv("GATEWAYKIT_LEDGER_PATH", str(first))
    ledger = Ledger()
    ledger.record(records.chat_ok(cost=0.5, offline=True))  # kept in memory; the file is not created
    assert len(ledger) == 1 and not first.exists()
    monkeypatch.setenv("GATEWAYKIT_LEDGER_PATH", str(second))
    Ledger().record(records.chat_ok(cost=0.25))  # another ledger's row, in the second database
    assert second.exists()
    assert len(ledger) == 1 and ledger.total_cost == 0.5 and ledger.path == first


def test_a_ledger_writes_to_the_database_it_resolved_first(tmp_path, monkeypatch, records):
    """A default ledger's first real row goes to the path resolved at its first use, not the env's new one."""
    first, second = tmp_path / "first.sqlite", tmp_path / "second.sqlite"
    monkeypatch.setenv("GATEWAYKIT_LEDGER_PATH", str(first))
    ledger = Ledger()
    assert len(ledger) == 0  # first use: the path is resolved (no file yet)
    monkeypatch.setenv("GATEWAYKIT_LEDGER_PATH", str(second))
    ledger.record(records.chat_ok(cost=0.25))
    assert first.exists() and not second.exists()
    assert Ledger(path=first).total_cost == 0.25 and ledger.total_cost == 0.25


def test_an_attached_ledger_keeps_its_rows_when_the_environment_changes(tmp_path, monkeypatch, records):
    """A ledger open on one database shows exactly its rows after GATEWAYKIT_LEDGER_PATH names another."""
    first, second = tmp_path / "first.sqlite", tmp_path / "second.sqlite"
    monkeypatch.setenv("GATEWAYKIT_LEDGER_PATH", str(first))
    ledger = Ledger()
    ledger.record(records.chat_ok(cost=0.1))
    ledger.record(records.chat_ok(cost=0.2, offline=True))
    before: list[dict[str, Any]] = ledger.rows
    monkeypatch.setenv("GATEWAYKIT_LEDGER_PATH", str(second))
    Ledger().record(records.image_ok(cost=0.4))
    assert ledger.rows == before and ledger.total_cost == pytest.approx(0.3) and ledger.path == first
