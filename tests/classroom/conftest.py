"""Fixtures for the classroom tests: a fresh offline gateway per test (its teacher account's spend is
exact), and classrooms started in front of it."""

from __future__ import annotations

from typing import Any, Iterator

import pytest
from classroom_fixtures import Rooms, rooms_on, start_upstream


@pytest.fixture
def upstream() -> Iterator[Any]:
    with start_upstream() as gateway:
        yield gateway


@pytest.fixture
def rooms(upstream: Any) -> Iterator[Rooms]:
    yield from rooms_on(upstream)
