"""``client.evaluate``: a 4 × 3 chat grid against its slowest row alone, and the live grid's share of the time.

Run: ``.venv/bin/python benchmarks/evaluate.py [--runs 3] [--smoke]``

The offline gateway runs in this process at time scale 1, so answers stream
at the pace its models simulate (chat-reasoner thinks before it answers).

Measures
- the wall time of a 4-case × 3-model chat evaluation with every cell at once
  (``concurrency=12``), against the slowest of its four rows evaluated on its
  own (3 cells at once); target: the grid within 1.2x of that row;
- the same grid and rows through the notebook's live view (chat cells then stream) (every chunk recorded, the
  painter thread repainting into a capturing sink, as in a kernel without the
  front end): the time spent building and sending paints over the wall time;
  target: under 10 %;
- for reference, the grid at the default ``concurrency=4`` (three waves);
- a long session: 100 cells at time scale 0 on a client whose ledger already holds ``--ledger-rows`` rows,
  against the same on an empty ledger (each cell reads only its own rows, so the ratio stays near 1).

``--smoke`` runs each measurement once (CI); the default takes the median of ``--runs``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path
from typing import Any, Callable

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

import gatewaykit as gk  # noqa: E402
from gatewaykit.notebook.cell_output.sinks import CapturingSink  # noqa: E402
from gatewaykit.notebook.comparison_views.evaluation_live import LiveEvaluationView  # noqa: E402

MODELS = ["chat-mini", "chat-vision", "chat-reasoner"]
CASES = [
    "Explain server-sent events in two sentences",
    "Name three rivers in Europe",
    "What does a cost ledger record?",
    "Summarise the idea of a checkpoint",
]


class LiveDisplay(gk.NullDisplay):
    """The kernel's live grid on a capturing sink (no front end): keeps the views it opened."""

    def __init__(self) -> None:
        self.views: list[LiveEvaluationView] = []

    def evaluate_view(self, evaluation: Any) -> LiveEvaluationView:
        view = LiveEvaluationView(evaluation, sink=CapturingSink())
        self.views.append(view)
        return view


def timed(run: Callable[[], Any]) -> float:
    started = time.perf_counter()
    run()
    return time.perf_counter() - started


def words(output: str, case: Any) -> int:
    return len(output.split())


def long_session(earlier: int, runs: int) -> None:
    from gatewaykit.costs.records import CostRecord

    cases = [f"case {i}" for i in range(50)]
    with gk.emulator.start(time_scale=0, seed=0) as gateway:
        figures = {}
        for rows in (0, earlier):
            ledger = gk.Ledger(path=None)
            for i in range(rows):
                ledger.record(CostRecord("chat", "chat-mini", "ok", id=f"earlier-{i}", time=1.7e9 + i,
                                         usage={"total_tokens": 10, "cost": {"total_cost": 1e-5}}, latency=0.1))
            with gk.Client(api_key=gateway.api_key, base_url=gateway.base_url, display=False, ledger=ledger) as client:
                client.evaluate(cases[:2], models=["chat-mini"])  # warm up
                figures[rows] = statistics.median(
                    timed(lambda: client.evaluate(cases, models=["chat-mini", "chat-vision"], concurrency=4))
                    for _ in range(runs))
    print(f"100 cells, empty ledger:            {figures[0]:6.2f} s")
    print(f"100 cells, {earlier:,} earlier rows:  {figures[earlier]:6.2f} s   ratio {figures[earlier] / figures[0]:4.2f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--smoke", action="store_true", help="one run of each measurement")
    parser.add_argument("--ledger-rows", type=int, default=50_000, help="earlier rows in the long session's ledger")
    args = parser.parse_args()
    runs = 1 if args.smoke else max(1, args.runs)
    long_session(1_000 if args.smoke else args.ledger_rows, runs)

    with gk.emulator.start(time_scale=1, seed=0) as gateway:
        quiet = gk.Client(api_key=gateway.api_key, base_url=gateway.base_url, display=False, ledger=gk.Ledger(path=None))
        live_display = LiveDisplay()
        live = gk.Client(api_key=gateway.api_key, base_url=gateway.base_url, display=live_display,
                         ledger=gk.Ledger(path=None))  # fmt: skip
        quiet.evaluate(CASES[:1], models=MODELS)  # warm up: catalog, connections

        rows, live_rows, grids, lives, waves, shares = [], [], [], [], [], []
        for _ in range(runs):
            rows.append(max(timed(lambda c=case: quiet.evaluate([c], models=MODELS, scorers=[words], concurrency=3))
                            for case in CASES))  # fmt: skip
            live_rows.append(max(timed(lambda c=case: live.evaluate([c], models=MODELS, scorers=[words], concurrency=3))
                                 for case in CASES))  # fmt: skip
            grids.append(timed(lambda: quiet.evaluate(CASES, models=MODELS, scorers=[words], concurrency=12)))
            lives.append(timed(lambda: live.evaluate(CASES, models=MODELS, scorers=[words], concurrency=12)))
            view = live_display.views[-1]
            shares.append(view.paint_seconds / lives[-1])
            waves.append(timed(lambda: quiet.evaluate(CASES, models=MODELS, scorers=[words])))

        row, grid, shown = statistics.median(rows), statistics.median(grids), statistics.median(lives)
        share = statistics.median(shares)
        paints = live_display.views[-1].paints
        print(f"slowest row alone (3 cells):        {row:6.2f} s")
        print(f"4 x 3 grid, concurrency=12:         {grid:6.2f} s   ratio {grid / row:4.2f}x  (target <= 1.20x)")
        live_row = statistics.median(live_rows)
        print(f"slowest row alone, live (streamed): {live_row:6.2f} s")
        print(f"4 x 3 grid, live view (streamed):   {shown:6.2f} s   ratio {shown / live_row:4.2f}x  (target <= 1.20x)")
        print(f"  live rendering: {share * 100:4.1f} % of the wall time, {paints} paints  (target < 10 %)")
        print(f"4 x 3 grid, concurrency=4 (default): {statistics.median(waves):6.2f} s   (three waves, for reference)")
        quiet.close()
        live.close()


if __name__ == "__main__":
    main()
