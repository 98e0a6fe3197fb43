"""What a process killed outright (SIGKILL) leaves in its ledger database (issue 28, item 1).

A job's row is committed before ``create()`` returns, so the next process can
resume the paid job; a chat row whose call returned more than
:data:`~gatewaykit.costs.database_store.DURABLE_WITHIN` seconds before the kill
is on disk, whether the process sleeps or computes after the call.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

import gatewaykit as gk
from gatewaykit.costs.database_store import DURABLE_WITHIN

_CREATE_AND_DIE = """
import os, signal, sys
import gatewaykit as gk
base_url, key, path = sys.argv[1:4]
client = gk.Client(api_key=key, base_url=base_url, ledger=gk.Ledger(path=path))
client.chat.completions.create(model="chat-mini", messages=[{"role": "user", "content": "hi"}])
job = client.videos.create(model="video-range", prompt="a lighthouse at night", duration=2)
print(job.id, flush=True)
os.kill(os.getpid(), signal.SIGKILL)  # the kernel dies right after create() returned
"""


def _killed(script: str, *args: str) -> str:
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(script), *args], capture_output=True, timeout=120)
    assert done.returncode == -9, done.stderr.decode()
    return done.stdout.decode()


def test_a_job_created_right_before_a_sigkill_is_resumed(emulator: Any, keys: Any, tmp_path: Path) -> None:
    """create() returned, then SIGKILL: the next process's jobs.pending() knows the paid job and fetches it."""
    path = tmp_path / "ledger.sqlite"
    job_id = _killed(_CREATE_AND_DIE, emulator.base_url, keys.acme, str(path)).strip()
    assert job_id.startswith("video")
    with gk.Client(api_key=keys.acme, base_url=emulator.base_url, ledger=gk.Ledger(path=path)) as client:
        assert [job.id for job in client.jobs.pending()] == [job_id]


_CHATS_THEN_DIE = """
import os, signal, sys, time
from gatewaykit.costs import CostRecord, Ledger
path, count, after, within = sys.argv[1], int(sys.argv[2]), sys.argv[3], float(sys.argv[4])
ledger = Ledger(path=path)
ledger.total_cost  # the database is open, as in a kernel that used it before
for i in range(count):
    ledger.record(CostRecord("chat", "chat-mini", "ok", id=f"chat-{i}", usage={"cost": {"total_cost": 0.001}}))
deadline = time.monotonic() + within
if after == "sleep":  # the kernel is idle after the cell
    time.sleep(within)
else:  # the next cell computes (holds the GIL) until the kill
    n = 0
    while time.monotonic() < deadline:
        n += 1
os.kill(os.getpid(), signal.SIGKILL)
"""


@pytest.mark.parametrize("after", ["sleep", "compute"])
@pytest.mark.parametrize("count", [1, 100])
def test_chat_rows_recorded_before_the_bound_survive_a_sigkill(tmp_path: Path, after: str, count: int) -> None:
    """Rows whose record() returned DURABLE_WITHIN seconds before a SIGKILL are committed (idle or busy after)."""
    path = tmp_path / "ledger.sqlite"
    _killed(_CHATS_THEN_DIE, str(path), str(count), after, str(DURABLE_WITHIN))
    assert len(gk.Ledger(path=path)) == count
