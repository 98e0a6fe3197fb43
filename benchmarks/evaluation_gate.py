"""The regression gate's error rates: how often ``compare`` catches a worse prompt, how often it cries wolf.

Run: ``.venv/bin/python benchmarks/evaluation_gate.py [--seeds 5] [--runs 20] [--smoke]``

On the offline gateway at temperature 1 (sampled answers, time scale 0, $0):
a baseline of 3 cases × 40 repeats of prompts that state their form and
subject, then per run a candidate of 10 repeats, either the vague prompts (an
injected regression: each answer drifts off its subject more often) or the same
prompts (no change). A run is caught, or a false alarm, when any cell of
``candidate.compare(baseline)`` is ``worse``. Prints, per gateway seed and in
all: caught / regressed runs, false alarms / unchanged runs, and seconds.
The test ``test_the_gate_catches_an_injected_regression_and_rarely_cries_wolf``
asserts one seed's 20 + 20 (≥ 19 caught, ≤ 1 false alarm); this measures the rates.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

import gatewaykit as gk  # noqa: E402

GOOD = [{"id": "volcano", "prompt": "In one sentence, tell me about volcanoes."},
        {"id": "tides", "prompt": "In one sentence, tell me about tides."},
        {"id": "bees", "prompt": "In one sentence, tell me about bees."}]  # fmt: skip
VAGUE = [{"id": "volcano", "prompt": "volcanoes?"}, {"id": "tides", "prompt": "tides?"}, {"id": "bees", "prompt": "bees?"}]


def mentions(output: str, case: dict[str, Any]) -> bool:
    return case["id"].rstrip("s") in output.lower()


def run(gateway: Any, cases: list[dict[str, Any]], repeats: int) -> gk.Evaluation:
    with gk.Client(base_url=gateway.base_url, api_key=gateway.api_key, ledger=gk.Ledger(path=None),
                   display=False) as client:  # fmt: skip
        return client.evaluate(cases, models=["chat-mini"], scorers=[mentions], repeats=repeats, temperature=1.0,
                               concurrency=1)  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--smoke", action="store_true", help="one seed, one run of each, a 10-repeat baseline")
    args = parser.parse_args()
    seeds, runs = (1, 1) if args.smoke else (args.seeds, args.runs)
    baseline_repeats = 10 if args.smoke else 40
    caught_all = alarms_all = 0
    for seed in range(seeds):
        started = time.perf_counter()
        with gk.emulator.start(time_scale=0, seed=seed) as gateway:
            baseline = run(gateway, GOOD, baseline_repeats)
            caught = sum("worse" in set(run(gateway, VAGUE, 10).compare(baseline).change) for _ in range(runs))
            alarms = sum("worse" in set(run(gateway, GOOD, 10).compare(baseline).change) for _ in range(runs))
        caught_all, alarms_all = caught_all + caught, alarms_all + alarms
        print(f"gateway seed {seed}: caught {caught}/{runs} regressed runs, {alarms}/{runs} false alarms "
              f"({time.perf_counter() - started:.1f} s)")  # fmt: skip
    total = seeds * runs
    print(f"in all: caught {caught_all}/{total} ({caught_all / total:.1%}), "
          f"false alarms {alarms_all}/{total} ({alarms_all / total:.1%})")  # fmt: skip


if __name__ == "__main__":
    main()
