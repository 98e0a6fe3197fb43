"""A job's catalog estimate is stored with it: every process on the ledger file counts it (issue 31, item 1)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import gatewaykit as gk

MAKE_VIDEO = """
import sys, gatewaykit as gk
client = gk.Client(base_url=sys.argv[1], api_key=sys.argv[2], ledger=gk.Ledger(path=sys.argv[3]), display=False)
client.videos.create(model="video-range", prompt="waves", duration=4).wait()
client.ledger.flush()
print(client.ledger.total_cost)
"""


def test_a_video_made_in_another_process_counts_here(tmp_path: Path, emulator: Any, keys: Any) -> None:
    """Process A's video row is estimated in the file; process B's budget counts it and refuses a second video."""
    path = str(tmp_path / "shared.sqlite")
    made = subprocess.run([sys.executable, "-c", MAKE_VIDEO, emulator.base_url, keys.acme, path],
                          capture_output=True, text=True, timeout=120, check=True)  # fmt: skip
    spent_in_a = float(made.stdout.split()[-1])
    assert spent_in_a > 0
    reader = gk.Ledger(path=path)  # a third process's view: no client, no catalog
    (row,) = reader.history().rows
    assert row["cost_source"] == "estimated" and row["total_cost"] == pytest.approx(spent_in_a)
    with gk.Client(base_url=emulator.base_url, api_key=keys.acme, display=False,
                   ledger=gk.Ledger(path=path, budget=1.5 * spent_in_a)) as client:  # fmt: skip
        with pytest.raises(gk.BudgetExceededError):
            client.videos.create(model="video-range", prompt="more waves", duration=4)
