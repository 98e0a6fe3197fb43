"""Client test fixtures: a recording ledger double and clients on the session's offline gateway."""

from __future__ import annotations

from typing import Any, Iterator, Optional

import pytest

import gatewaykit as gk
from gatewaykit.costs.records import CostRecord

FAST_RETRIES = gk.RetryPolicy(max_retries=2, backoff_base=0.001, backoff_cap=0.002, retry_after_cap=0.0)


class RecordingLedger:
    """A ledger test double: keeps what the client hands over (records.py protocol)."""

    def __init__(self, refuse: Optional[Exception] = None) -> None:
        self.records: list[CostRecord] = []
        self.jobs: list[tuple[str, dict[str, Any]]] = []
        self.budget_checks: list[tuple[str, Optional[str]]] = []
        self.refuse = refuse

    def check_budget(self, kind: str, model: Optional[str], request: dict[str, Any]) -> None:
        self.budget_checks.append((kind, model))
        if self.refuse is not None:
            raise self.refuse

    def record(self, record: CostRecord) -> None:
        self.records.append(record)

    def update_job(self, job_id: str, *, status: str, seconds: Any = None, error_message: Any = None) -> None:
        self.jobs.append((job_id, {"status": status, "seconds": seconds, "error_message": error_message}))


@pytest.fixture
def sink() -> RecordingLedger:
    return RecordingLedger()


@pytest.fixture
def client(emulator: Any, keys: Any, sink: RecordingLedger) -> Iterator[gk.Client]:
    """A sync client on the test gateway as the full-access key, fast retries, recording into ``sink``."""
    with gk.Client(api_key=keys.acme, base_url=emulator.base_url, ledger=sink, retry_policy=FAST_RETRIES) as made:
        yield made


@pytest.fixture
def make_client(emulator: Any, sink: RecordingLedger) -> Any:
    """Build a client on the test gateway with another key or options."""
    made: list[gk.Client] = []

    def build(key: str, **options: Any) -> gk.Client:
        options.setdefault("ledger", sink)
        options.setdefault("retry_policy", FAST_RETRIES)
        new = gk.Client(api_key=key, base_url=emulator.base_url, **options)
        made.append(new)
        return new

    yield build
    for each in made:
        each.close()


@pytest.fixture
def book() -> gk.Ledger:
    """A real ledger in memory (tags, rows, costs), for tests that read what the ledger says."""
    return gk.Ledger(path=None)


@pytest.fixture
def booked_client(emulator: Any, keys: Any, book: gk.Ledger) -> Iterator[gk.Client]:
    """A sync client on the test gateway recording into the in-memory ledger ``book``, nothing displayed."""
    with gk.Client(api_key=keys.acme, base_url=emulator.base_url, ledger=book, display=False) as made:
        yield made


def user(text: str) -> list[dict[str, str]]:
    return [{"role": "user", "content": text}]
