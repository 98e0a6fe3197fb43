"""The long soak: mixed requests through the client against a gateway injecting random faults.

    .venv/bin/python benchmarks/soak.py [--requests 10000] [--fault-rate 0.2] [--threads 8] [--smoke]

Prints requests, faults injected (the gateway's count), retries, typed errors,
losses, jobs (client vs gateway), ledger vs balance change and thread/fd counts.
The CI-sized run of the same workload is tests/reliability/test_soak.py.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "reliability"))

import gatewaykit as gk  # noqa: E402
from soak_workload import (CATALOG_PRICES, admin_get, balance, open_fds, run_soak,  # noqa: E402
                           start_faulty_gateway)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=10_000)
    parser.add_argument("--fault-rate", type=float, default=0.2)
    parser.add_argument("--threads", type=int, default=8)
    parser.add_argument("--smoke", action="store_true", help="a few seconds with tiny counts: checks the script still runs (tests/test_benchmarks_smoke.py); no figures to keep")
    args = parser.parse_args()
    if args.smoke:
        args.requests, args.threads = 40, 2
    import threading

    with start_faulty_gateway(fault_rate=args.fault_rate) as gateway:
        run_soak(gateway.base_url, 12, gk.Ledger(prices=CATALOG_PRICES), threads=2)  # warm-up
        threads, fds = threading.active_count(), open_fds()
        start = balance(gateway.base_url)
        before = admin_get(gateway.base_url, "/_emulator/stats")
        ledger = gk.Ledger(prices=CATALOG_PRICES)
        report = run_soak(gateway.base_url, args.requests, ledger, threads=args.threads)
        change = start - balance(gateway.base_url)
        after = admin_get(gateway.base_url, "/_emulator/stats")
    faults = {k: v - before["faults_injected"].get(k, 0) for k, v in after["faults_injected"].items()}
    jobs = sum(after["jobs_created"].get("soak", {}).values()) - sum(before["jobs_created"].get("soak", {}).values())
    print(f"operations          {args.requests} ({report.http_requests} HTTP requests from the sync client)")
    print(f"elapsed             {report.elapsed:.1f} s")
    print(f"faults injected     {sum(faults.values())} {faults}")
    print(f"billable retries    {report.billable_retries}")
    print(f"succeeded           {report.succeeded}")
    print(f"typed errors        {dict(report.typed_errors)}")
    print(f"losses              {len(report.losses)} {report.losses[:5]}")
    print(f"jobs                client {report.jobs_created}, gateway {jobs}, unfinished {len(report.jobs_unfinished)}")
    print(f"ledger vs balance   {ledger.total_cost:.9f} vs {change:.9f} (diff {ledger.total_cost - change:.2e})")
    print(f"threads / fds       {threads}/{fds} -> {threading.active_count()}/{open_fds()}")
    ok = not report.losses and jobs == report.jobs_created and abs(ledger.total_cost - change) <= 1e-9
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
