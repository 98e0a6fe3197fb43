"""The ledger's files and the response cache hold prompts and answers: 0600 files in 0700 folders (issue 28, item 14).

Whatever the umask (the usual 022 made them world-readable), every file the
toolkit creates for them is readable by its owner only, and every folder it
creates for them is the owner's only. Folders that already existed are left as they are.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any, Iterator

import pytest

import gatewaykit as gk

pytestmark = pytest.mark.skipif(os.name != "posix", reason="POSIX permissions")


@pytest.fixture(autouse=True)
def _usual_umask() -> Iterator[None]:
    before = os.umask(0o022)
    yield
    os.umask(before)


def _modes(root: Path) -> dict[str, str]:
    """Every file and folder under ``root`` (and ``root``) with its permission bits."""
    found = {".": oct(stat.S_IMODE(root.stat().st_mode))}
    for path in root.rglob("*"):
        found[str(path.relative_to(root))] = oct(stat.S_IMODE(path.stat().st_mode))
    return found


def _private(modes: dict[str, str], root: Path) -> bool:
    return all(mode == ("0o700" if (root / name).is_dir() else "0o600") for name, mode in modes.items())


def _row(i: int = 0) -> gk.CostRecord:
    return gk.CostRecord("chat", "chat-mini", "ok", id=f"c{i}", usage={"cost": {"total_cost": 0.001}})


@pytest.mark.parametrize("name", ["ledger.sqlite", "ledger.jsonl"])
def test_a_ledger_file_and_its_new_folders_are_private(tmp_path: Path, name: str) -> None:
    root = tmp_path / "new"
    ledger = gk.Ledger(path=root / "deeper" / name)
    ledger.record(_row())
    ledger.record(gk.CostRecord("video", "video-range", "queued", id="video_1"))  # a job: committed at once
    ledger.flush()
    modes = _modes(root)
    assert any(key.endswith(name) for key in modes)
    assert _private(modes, root), modes


def test_the_default_ledger_database_is_private(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The per-user database (GATEWAYKIT_LEDGER_PATH here), created by its first row."""
    root = tmp_path / "user-data"
    monkeypatch.setenv("GATEWAYKIT_LEDGER_PATH", str(root / "gatewaykit" / "ledger.sqlite"))
    ledger = gk.Ledger()
    ledger.record(gk.CostRecord("chat", "chat-mini", "ok", id="c1", base_url="https://gateway.example"))
    ledger.flush()
    modes = _modes(root)
    assert "gatewaykit/ledger.sqlite" in modes and _private(modes, root), modes


def test_the_response_cache_is_private(emulator: Any, keys: Any, tmp_path: Path) -> None:
    """Its index, media (a large image) and folders."""
    root = tmp_path / "cache"
    with gk.Client(api_key=keys.acme, base_url=emulator.base_url, ledger=gk.Ledger(path=None), display=False,
                   cache=root) as client:  # fmt: skip
        client.chat.completions.create(model="chat-mini", messages=[{"role": "user", "content": "hi"}])
        client.images.generate(model="image-pixels", prompt="a kite", width=512, height=512)
    modes = _modes(root)
    assert any(name.startswith("media/") for name in modes) and any(name.endswith(".jsonl") for name in modes)
    assert _private(modes, root), modes
