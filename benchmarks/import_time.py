"""``import gatewaykit`` against ``import httpx, pydantic`` (its two dependencies), in fresh interpreters.

Run: ``.venv/bin/python benchmarks/import_time.py [--rounds 30] [--smoke]``

Each round starts one fresh interpreter per import, alternating which goes
first, and times the import inside it (``time.perf_counter`` around the
import statement, so interpreter start-up is left out). Medians over the
rounds; the ratio is the target (issue 24: at most 1.1x). ``gatewaykit.Client``
is the first use of the client (the client core and its types load then).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
from pathlib import Path

SOURCE = Path(__file__).resolve().parents[1] / "src"
STATEMENTS = {
    "httpx + pydantic": "import httpx, pydantic",
    # ``import pydantic`` loads its model machinery lazily; a first model loads it, as any pydantic client does.
    "httpx + pydantic model": "import httpx, pydantic; exec('class M(pydantic.BaseModel):\\n    x: int')",
    "gatewaykit": "import gatewaykit",
    # The first use of the client loads the client core, its types, httpx and pydantic.
    "gatewaykit.Client": "import gatewaykit; gatewaykit.Client",
}


def time_import(statement: str) -> float:
    code = f"import time; t = time.perf_counter(); {statement}; print(time.perf_counter() - t)"
    environment = {**os.environ, "PYTHONPATH": str(SOURCE)}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=environment)
    return float(done.stdout.strip())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--smoke", action="store_true", help="a few seconds with tiny counts: checks the script still runs (tests/test_benchmarks_smoke.py); no figures to keep")
    args = parser.parse_args()
    rounds = 1 if args.smoke else args.rounds
    times: dict[str, list[float]] = {name: [] for name in STATEMENTS}
    names = list(STATEMENTS)
    for number in range(rounds):
        for name in names if number % 2 == 0 else reversed(names):
            times[name].append(time_import(STATEMENTS[name]))
    medians = {name: statistics.median(values) for name, values in times.items()}
    for name, value in medians.items():
        print(f"{name:>24}: {value * 1e3:6.1f} ms (median of {rounds})")
    for name in ("gatewaykit", "gatewaykit.Client"):
        ratio = medians[name] / medians["httpx + pydantic"]
        print(f"{name + ' ratio':>24}: {ratio:6.2f}x   of httpx + pydantic (target for import gatewaykit <= 1.10)")
    ratio = medians["gatewaykit.Client"] / medians["httpx + pydantic model"]
    print(f"{'gatewaykit.Client ratio':>24}: {ratio:6.2f}x   of httpx + pydantic with one model defined (both load pydantic's model machinery)")


if __name__ == "__main__":
    main()
