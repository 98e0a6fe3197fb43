"""client.jobs.pending(): jobs whose end the ledger has not seen, resumed after a restart (issue 14)."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import gatewaykit as gk

_START_AND_EXIT = """
import sys
import gatewaykit as gk
base_url, key, path = sys.argv[1:4]
client = gk.Client(api_key=key, base_url=base_url, ledger=gk.Ledger(path=path))
job = client.videos.create(model="video-range", prompt="a lighthouse at night", duration=2)
print(job.id)
"""


def _start_in_another_process(base_url: str, key: str, path: Path) -> str:
    """A 'kernel' that creates a video job and exits before it finishes (never polls it)."""
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(_START_AND_EXIT), base_url, key, str(path)],
        capture_output=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr.decode()
    return done.stdout.decode().strip()


def test_records_carry_the_gateway_base_url(emulator: Any, keys: Any, tmp_path: Path) -> None:
    """A job row keeps the client's base URL (never its key), so pending_jobs(base_url=) finds it."""
    ledger = gk.Ledger(path=tmp_path / "ledger.sqlite")
    with gk.Client(api_key=keys.acme, base_url=emulator.base_url, ledger=ledger) as client:
        job = client.music.create(model="music-song", prompt="folk", lyrics_prompt="[Verse]\nla la la la")
    (pending,) = ledger.pending_jobs(base_url=emulator.base_url)
    assert (pending["id"], pending["base_url"], pending["kind"]) == (job.id, emulator.base_url, "music")
    assert keys.acme.encode() not in (tmp_path / "ledger.sqlite").read_bytes()


def test_pending_job_from_a_dead_process_is_resumed(emulator: Any, keys: Any, tmp_path: Path) -> None:
    """Process A starts a video and exits; a new client on the same ledger gets it from jobs.pending(), waits, saves."""
    path = tmp_path / "ledger.sqlite"
    job_id = _start_in_another_process(emulator.base_url, keys.acme, path)
    ledger = gk.Ledger(path=path)
    with gk.Client(api_key=keys.acme, base_url=emulator.base_url, ledger=ledger) as client:
        (job,) = client.jobs.pending()
        assert isinstance(job, gk.VideoJob) and job.id == job_id
        saved = job.wait(timeout=60).save(tmp_path)
        assert saved.stat().st_size > 0 and client.jobs.pending() == []
    rows = gk.Ledger(path=path).rows
    assert [(row["id"], row["status"], row["charged"]) for row in rows] == [(job_id, "completed", True)]


def test_pending_ignores_jobs_of_another_gateway(emulator: Any, keys: Any, tmp_path: Path) -> None:
    """Jobs recorded for another base URL are not this client's to resume."""
    path = tmp_path / "ledger.sqlite"
    ledger = gk.Ledger(path=path)
    ledger.record(gk.CostRecord("video", "video-range", "queued", id="video_elsewhere", base_url="https://other.example"))
    with gk.Client(api_key=keys.acme, base_url=emulator.base_url, ledger=ledger) as client:
        assert client.jobs.pending() == []


def test_async_pending_jobs_are_awaitable(emulator: Any, keys: Any, tmp_path: Path) -> None:
    """AsyncClient.jobs.pending() gives jobs bound to the async client: await job.wait()."""
    path = tmp_path / "ledger.sqlite"
    job_id = _start_in_another_process(emulator.base_url, keys.acme, path)

    async def resume() -> str:
        async with gk.AsyncClient(api_key=keys.acme, base_url=emulator.base_url, ledger=gk.Ledger(path=path)) as client:
            (job,) = await client.jobs.pending()
            done = await job.wait(timeout=60)
            return f"{done.id} {done.status}"

    assert asyncio.run(resume()) == f"{job_id} completed"


def _start_with_each_key(base_url: str, keys: Any, ledger: Any) -> dict[str, str]:
    """Two keys of one account start a video each on one gateway, recorded in one ledger."""
    started = {}
    for key in (keys.acme, keys.acme_second):
        with gk.Client(api_key=key, base_url=base_url, ledger=ledger) as client:
            started[key] = client.videos.create(model="video-range", prompt="a lighthouse", duration=2).id
    return started


def test_pending_returns_only_the_jobs_this_key_started(emulator: Any, keys: Any, tmp_path: Path) -> None:
    """Two keys on one gateway and one ledger: each client's jobs.pending() is its own job, which it can wait on."""
    path = tmp_path / "ledger.sqlite"
    started = _start_with_each_key(emulator.base_url, keys, gk.Ledger(path=path))
    for key, job_id in started.items():
        with gk.Client(api_key=key, base_url=emulator.base_url, ledger=gk.Ledger(path=path)) as client:
            (job,) = client.jobs.pending()
            assert job.id == job_id and job.wait(timeout=60).status == "completed"  # not another key's 404


def test_the_ledger_files_hold_fingerprints_never_keys(emulator: Any, keys: Any, tmp_path: Path) -> None:
    """The SQLite files (database, WAL) and a JSONL journal hold each key's fingerprint and neither key."""
    from gatewaykit.client.core.key_fingerprint import key_id

    _start_with_each_key(emulator.base_url, keys, gk.Ledger(path=tmp_path / "ledger.sqlite"))
    _start_with_each_key(emulator.base_url, keys, gk.Ledger(path=tmp_path / "ledger.jsonl"))
    written = b"".join(file.read_bytes() for file in tmp_path.iterdir() if file.is_file())
    for key in (keys.acme, keys.acme_second):
        assert key.encode() not in written and key[-12:].encode() not in written
        assert written.count(str(key_id(key)).encode()) >= 2  # once in the database, once in the journal


def test_pending_keeps_rows_recorded_before_key_ids(emulator: Any, keys: Any, tmp_path: Path) -> None:
    """A job row with no key_id (an older ledger) is still listed for the client on its base URL."""
    ledger = gk.Ledger(path=tmp_path / "ledger.sqlite")
    ledger.record(gk.CostRecord("video", "video-range", "queued", id="video_from_before", base_url=emulator.base_url))
    with gk.Client(api_key=keys.acme_second, base_url=emulator.base_url, ledger=ledger) as client:
        assert [job.id for job in client.jobs.pending()] == ["video_from_before"]
