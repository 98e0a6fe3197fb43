"""Fixtures for the classroom tests: a fresh offline gateway per test (its teacher account's spend is
exact), and classrooms started in front of it."""

from __future__ import annotations

from typing import Any, Iterator

import pytest
from classroom_fixtures import Rooms, rooms_on, start_upstream
from postgres_cluster import Cluster, find_binaries


@pytest.fixture
def upstream() -> Iterator[Any]:
    with start_upstream() as gateway:
        yield gateway


@pytest.fixture
def rooms(upstream: Any) -> Iterator[Rooms]:
    yield from rooms_on(upstream)


@pytest.fixture(scope="session")
def postgres_cluster() -> Iterator[Cluster]:
    """A throwaway PostgreSQL cluster (Debian's; started only when a selected test uses it)."""
    import os

    binaries = find_binaries()
    if binaries is None:
        message = "Debian's postgresql is not installed (.ci/run installs it: apt-get install postgresql)"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    cluster = Cluster(binaries)
    try:
        yield cluster
    finally:
        cluster.stop()


@pytest.fixture
def pg_url(postgres_cluster: Cluster) -> str:
    """The URL of a fresh, empty database of the test cluster: a class of its own."""
    return postgres_cluster.url(postgres_cluster.new_database())
