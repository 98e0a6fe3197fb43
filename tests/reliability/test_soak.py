"""The soak: mixed requests through the client against a gateway injecting 20 % random faults.

Size with GATEWAYKIT_SOAK_REQUESTS (default 1,000, about 15-25 s); ``benchmarks/soak.py``
runs the long setting and prints the figures. One run (module fixture) is checked
from several sides: nothing lost, no job created twice, no thread or socket
leaked, and the ledger equal to the gateway's balance change.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

import pytest
from reliability_gateways import resource_counts, settle_counts
from soak_workload import CATALOG_PRICES, SoakReport, admin_get, balance, run_soak, start_faulty_gateway

import gatewaykit as gk

REQUESTS = int(os.environ.get("GATEWAYKIT_SOAK_REQUESTS", "1000"))


@dataclass
class SoakRun:
    report: SoakReport
    ledger: gk.Ledger
    balance_change: float
    stats: dict[str, Any]
    before: tuple[int, int]
    after: tuple[int, int]


@pytest.fixture(scope="module")
def soak() -> SoakRun:
    with start_faulty_gateway(fault_rate=0.2) as gateway:
        # In-memory ledgers: this checks the client and the gateway for leaks, and a ledger database
        # (its file, WAL and shared-memory descriptors) would be counted as three open files.
        warm = gk.Ledger(prices=CATALOG_PRICES, path=None)
        run_soak(gateway.base_url, 12, warm, threads=2)  # pools, worker threads and caches exist before counting
        before = settle_counts(resource_counts(), (0, 0), seconds=1.0)
        start_balance = balance(gateway.base_url)
        stats_before = admin_get(gateway.base_url, "/_emulator/stats")
        ledger = gk.Ledger(prices=CATALOG_PRICES, path=None)
        report = run_soak(gateway.base_url, REQUESTS, ledger)
        change = start_balance - balance(gateway.base_url)
        stats = admin_get(gateway.base_url, "/_emulator/stats")
        created_before = sum(stats_before["jobs_created"].get("soak", {}).values())
        stats["jobs_created_in_run"] = sum(stats["jobs_created"].get("soak", {}).values()) - created_before
        stats["faults_in_run"] = sum(stats["faults_injected"].values()) - sum(stats_before["faults_injected"].values())
        after = settle_counts(before, (1, 2))
    print(f"\nsoak: {REQUESTS} operations, {report.http_requests} HTTP requests, {stats['faults_in_run']} faults "
          f"injected, {report.billable_retries} billable retries, errors {dict(report.typed_errors)}, losses "
          f"{len(report.losses)}, jobs {report.jobs_created}/{stats['jobs_created_in_run']}, "
          f"threads/fds {before} -> {after}, {report.elapsed:.1f} s")
    return SoakRun(report, ledger, change, stats, before, after)


def test_no_request_is_lost(soak):
    """Every operation succeeded after retries or raised a typed GatewayError; every job reached its end."""
    assert soak.report.losses == [] and soak.report.jobs_unfinished == []
    assert soak.report.succeeded + sum(soak.report.typed_errors.values()) == REQUESTS


def test_most_requests_succeed_despite_faults(soak):
    """Retries absorb the 20 % faults: at least 90 % of operations succeed, and faults were injected."""
    assert soak.report.succeeded >= 0.9 * REQUESTS
    assert soak.stats["faults_in_run"] >= 0.1 * soak.report.http_requests


def test_only_unreplayable_failures_surface(soak):
    """The errors that surface are lost POST answers and cut streams (not retried by design), never time-outs."""
    assert set(soak.report.typed_errors) <= {"APIConnectionError", "StreamInterruptedError"}


def test_no_job_is_created_twice(soak):
    """The gateway created exactly as many jobs as the client's create calls returned."""
    assert soak.stats["jobs_created_in_run"] == soak.report.jobs_created > 0


def test_ledger_equals_the_balance_change(soak):
    """Reported costs plus price-table estimates of completed jobs equal the balance change, to 1e-9."""
    assert abs(soak.ledger.total_cost - soak.balance_change) <= 1e-9
    assert soak.ledger.reported_cost > 0 and soak.ledger.estimated_cost > 0


def test_interrupted_streams_are_recorded_as_not_charged(soak):
    """Cut streams are ledger rows 'interrupted' whose charge is unknown and that count nothing."""
    rows = [row for row in soak.ledger.rows if row["status"] == "interrupted"]
    assert len(rows) == soak.report.interrupted_streams > 0
    assert all(row["charged"] is None and row["total_cost"] is None for row in rows)


def test_no_thread_or_socket_leaks(soak):
    """After the clients close, threads and file descriptors are back to where they were (small slack)."""
    (threads_before, fds_before), (threads_after, fds_after) = soak.before, soak.after
    assert threads_after <= threads_before + 1 and fds_after <= fds_before + 2
