"""``print(ledger)`` in a terminal: a short table of the rows with the totals (issue 31, item 13)."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

from gatewaykit.costs import Ledger
from ledger_records import records  # noqa: F401  (fixture)

SCRIPT = """
import gatewaykit as gk
client = gk.Client(base_url={base_url!r}, api_key={api_key!r}, ledger=gk.Ledger(path=None, budget=1.0))
client.chat.completions.create(model="chat-mini", messages=[{{"role": "user", "content": "Name three rivers"}}])
client.images.generate(model="image-pixels", prompt="a red fox")
print(client.ledger)
print("TOTAL", gk.money.format_usd(client.ledger.total_cost))
"""


def test_a_script_prints_the_rows_and_the_totals(emulator: Any, keys: Any) -> None:
    """A script's print(client.ledger): header, one line per request (model, status, cost), the total and budget."""
    script = SCRIPT.format(base_url=emulator.base_url, api_key=keys.acme)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=True)
    lines = done.stdout.splitlines()
    total = lines[-1].removeprefix("TOTAL ")
    assert lines[0] == "Ledger: 2 rows"
    assert lines[1].split() == ["time", "(UTC)", "kind", "model", "status", "tokens", "cost"]
    assert "chat-mini" in lines[2] and " ok " in lines[2] and "$" in lines[2]
    assert "image-pixels" in lines[3] and "$" in lines[3]
    assert lines[4] == f"total {total}; budget $1.00 ({float(total[1:]):.0%} used)"


def test_pending_estimated_and_long_ledgers_say_what_is_left_out(records) -> None:  # noqa: F811
    """Only the last ten rows are listed, the rest counted; pending jobs are named, not priced as $0."""
    ledger = Ledger()
    for _ in range(11):
        ledger.record(records.chat_ok(cost=0.25))
    ledger.record(records.video_created())
    text = str(ledger)
    assert text.splitlines()[0] == "Ledger: 12 rows"
    assert text.splitlines()[1] == "(the last 10; 2 earlier rows not shown: ledger.to_pandas() has them all)"
    assert text.count("chat-mini") == 9 and "pending" in text.splitlines()[-2]
    assert text.splitlines()[-1] == "total $2.75 + 1 job pending"
    assert repr(ledger) == "<Ledger 12 rows, $2.75>"  # the one-line repr stays
