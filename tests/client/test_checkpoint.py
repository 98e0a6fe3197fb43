"""map/batch with checkpoint=: a re-run after a kill skips finished items and pays nothing twice (issue 14)."""

from __future__ import annotations

import asyncio
import functools
import json
import math
import signal
import subprocess
import sys
import textwrap
import threading
from pathlib import Path
from typing import Any, Iterator

import pytest

import gatewaykit as gk
from gatewaykit.client.session_tools.checkpoint import Checkpoint, item_keys

from .own_gateway import OWN_ADMIN, one_account, settled_balance

KEY = "sk-bf-test-checkpoint-000000000010"
PROMPTS = [f"Question number {i}: what is {i} squared?" for i in range(12)]

_RUN = """
import json, os, signal, sqlite3, sys
import gatewaykit as gk
base_url, key, checkpoint, concurrency = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[5])
# A dict, not a scalar global: scalars ask() reads are part of its fingerprint (a change would re-run all).
crash = {"after": int(sys.argv[4])}
prompts = [f"Question number {i}: what is {i} squared?" for i in range(12)]
client = gk.Client(api_key=key, base_url=base_url, ledger=gk.Ledger(path=None), display=False)
sent = []

def stored():
    try:
        return sqlite3.connect(checkpoint).execute("SELECT COUNT(*) FROM results").fetchone()[0]
    except sqlite3.Error:
        return 0

def ask(prompt):
    if stored() >= crash["after"]:  # the 'crash': before this item is sent, after the others were stored
        os.kill(os.getpid(), signal.SIGKILL)
    sent.append(prompt)
    return client.chat.completions.create(model="chat-mini", messages=[{"role": "user", "content": prompt}])

results = client.map(ask, prompts, concurrency=concurrency, checkpoint=checkpoint)
print(json.dumps({"sent": sent, "ids": [r.id for r in results], "costs": [r.usage.cost.total_cost for r in results],
                  "ok": results.ok}))
"""


def _run(base_url: str, path: Path, kill_after: int, concurrency: int) -> subprocess.CompletedProcess:
    """The same script (so the same call) each time: killed once ``kill_after`` results are stored."""
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(_RUN), base_url, KEY, str(path), str(kill_after), str(concurrency)],
        capture_output=True, timeout=120,
    )  # fmt: skip


@pytest.fixture(scope="module")
def gateway() -> Iterator[Any]:
    with gk.emulator.start(accounts=one_account("checkpoints", KEY), time_scale=0, admin_token=OWN_ADMIN) as running:
        yield running


@pytest.fixture
def client(gateway: Any) -> Iterator[gk.Client]:
    with gk.Client(api_key=KEY, base_url=gateway.base_url, ledger=gk.Ledger(path=None), display=False) as made:
        yield made


def _counting_ask(client: gk.Client) -> tuple[Any, list[str]]:
    sent: list[str] = []
    lock = threading.Lock()

    def ask(prompt: str) -> Any:
        with lock:
            sent.append(prompt)
        return client.chat.completions.create(model="chat-mini", messages=[{"role": "user", "content": prompt}])

    return ask, sent


def test_killed_map_reruns_only_the_rest_and_pays_once(gateway: Any, tmp_path: Path) -> None:
    """A process killed after 5 stored results; the re-run sends 7, returns 12 in order; balance change = one charge each."""
    path = tmp_path / "run.sqlite"
    before = settled_balance(gateway.base_url, "checkpoints")
    killed = _run(gateway.base_url, path, 5, 1)
    assert killed.returncode == -signal.SIGKILL, killed.stderr.decode()
    stored = Checkpoint(path).load(item_keys(PROMPTS))
    assert len(stored) == 5
    again = _run(gateway.base_url, path, 100, 4)
    assert again.returncode == 0, again.stderr.decode()
    seen = json.loads(again.stdout)
    change = before - settled_balance(gateway.base_url, "checkpoints")
    assert seen["ok"] and len(seen["ids"]) == len(PROMPTS) and sorted(seen["sent"]) == sorted(PROMPTS[5:])
    assert seen["ids"][:5] == [stored[key].id for key in item_keys(PROMPTS)[:5]]
    assert math.isclose(change, math.fsum(seen["costs"]), abs_tol=1e-9)
    assert len(set(seen["ids"])) == len(PROMPTS)


def test_a_finished_run_sends_nothing_again(client: gk.Client, tmp_path: Path) -> None:
    """A second run of a finished checkpointed map returns the same results and calls nothing."""
    path = tmp_path / "run.sqlite"
    ask, sent = _counting_ask(client)
    first = client.map(ask, PROMPTS[:4], checkpoint=path)
    again = client.map(ask, PROMPTS[:4], checkpoint=path)
    assert len(sent) == 4 and [r.id for r in again] == [r.id for r in first]


def test_failed_items_are_not_stored(client: gk.Client, tmp_path: Path) -> None:
    """An item that raised runs again on the next run; the successful ones do not."""
    path = tmp_path / "run.sqlite"
    calls: list[int] = []

    def flaky(number: int) -> int:
        calls.append(number)
        if number == 2 and calls.count(2) == 1:
            raise RuntimeError("first attempt fails")
        return number * 10

    first = client.map(flaky, [1, 2, 3], checkpoint=path)
    second = client.map(flaky, [1, 2, 3], checkpoint=path)
    assert [i for i, _ in first.errors] == [1] and list(second) == [10, 20, 30] and sorted(calls) == [1, 2, 2, 3]


def test_batch_checkpoint_is_keyed_by_position(client: gk.Client, tmp_path: Path) -> None:
    """batch(calls, checkpoint=) restores by index: the same calls run again never execute."""
    path = tmp_path / "batch.sqlite"
    ran: list[str] = []

    def answer(text: str) -> str:
        ran.append(text)
        return text

    calls = [functools.partial(answer, "a"), functools.partial(answer, "b")]
    assert list(client.batch(calls, checkpoint=path)) == ["a", "b"]
    assert list(client.batch([*calls, functools.partial(answer, "c")], checkpoint=path)) == ["a", "b", "c"]
    assert ran == ["a", "b", "c"]


def test_unstorable_results_are_returned_not_stored(client: gk.Client, tmp_path: Path) -> None:
    """A result a checkpoint cannot store as data is still returned; one CheckpointWarning names it; nothing is stored."""
    path = tmp_path / "run.sqlite"
    with pytest.warns(gk.CheckpointWarning, match=r"1 result\(s\) were returned but not stored.*_thread.lock"):
        results = client.map(lambda n: threading.Lock(), [1], checkpoint=path)
    assert len(results) == 1 and not results.errors and len(Checkpoint(path)) == 0


def test_async_map_checkpoint(gateway: Any, tmp_path: Path) -> None:
    """AsyncClient.map(checkpoint=) skips stored items on a re-run too."""
    path = tmp_path / "run.sqlite"
    sent: list[str] = []

    async def run() -> list[Any]:
        async with gk.AsyncClient(api_key=KEY, base_url=gateway.base_url, ledger=gk.Ledger(path=None)) as aclient:

            async def ask(prompt: str) -> Any:
                sent.append(prompt)
                return await aclient.chat.completions.create(
                    model="chat-mini", messages=[{"role": "user", "content": prompt}]
                )

            await aclient.map(ask, PROMPTS[:3], checkpoint=path)
            return list(await aclient.map(ask, PROMPTS[:5], checkpoint=path))

    results = asyncio.run(run())
    assert len(results) == 5 and sorted(sent) == sorted(PROMPTS[:5])
