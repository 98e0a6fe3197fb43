"""An uncaught gateway error in a script: the user's frames, one of ours, the message (issue 31, item 14)."""

from __future__ import annotations

import os
import subprocess
import sys
import traceback
from pathlib import Path
from typing import Any

import pytest

SCRIPT = """
import gatewaykit as gk
client = gk.Client(base_url={base_url!r}, api_key={api_key!r}, ledger=gk.Ledger(path=None))

def ask(model):
    return client.chat.completions.create(model=model, messages=[{{"role": "user", "content": "hi"}}])

ask("no-such-model")
"""


ASYNC_SCRIPT = """
import asyncio
import gatewaykit as gk

async def ask(client, model):
    return await client.{call}

async def main():
    async with gk.AsyncClient(base_url={base_url!r}, api_key={api_key!r}, ledger=gk.Ledger(path=None)) as client:
        await ask(client, "no-such-model")

asyncio.run(main())
"""
ASYNC_CREATE = 'chat.completions.create(model=model, messages=[{{"role": "user", "content": "hi"}}])'


def _run(tmp_path: Path, emulator: Any, keys: Any, script_text: str = SCRIPT, **env: str) -> list[str]:
    script = tmp_path / "homework.py"
    script.write_text(script_text.format(base_url=emulator.base_url, api_key=keys.acme))
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120,
                          env={**os.environ, **env})  # fmt: skip
    assert done.returncode == 1, done.stderr
    return done.stderr.splitlines()


def test_the_traceback_holds_the_users_frames_and_one_of_ours(tmp_path: Path, emulator: Any, keys: Any) -> None:
    """homework.py's two frames, then one gatewaykit frame named after the call, then the message."""
    lines = _run(tmp_path, emulator, keys)
    frames = [line.strip() for line in lines if line.strip().startswith("File ")]
    assert len(frames) == 3, "\n".join(lines)
    assert "homework.py" in frames[0] and "homework.py" in frames[1] and frames[1].endswith("in ask")
    assert "gatewaykit" in frames[2] and frames[2].endswith("in create")
    assert "GATEWAYKIT_FULL_TRACEBACK=1" in "\n".join(lines)  # the one line of ours says how to see the rest
    assert lines[-1].startswith("gatewaykit.errors.ModelNotFoundError: 400 model_not_found")


def test_the_full_traceback_is_one_switch_away(tmp_path: Path, emulator: Any, keys: Any) -> None:
    """GATEWAYKIT_FULL_TRACEBACK=1 keeps every frame, for debugging gatewaykit itself."""
    lines = _run(tmp_path, emulator, keys, GATEWAYKIT_FULL_TRACEBACK="1")
    frames = [line for line in lines if line.strip().startswith("File ")]
    assert len(frames) > 5 and lines[-1].startswith("gatewaykit.errors.ModelNotFoundError")


def _ours(frames: list[str]) -> list[str]:
    return [frame for frame in frames if "gatewaykit" in frame]


@pytest.mark.parametrize(
    ("call", "named"),
    [(ASYNC_CREATE, "in create"), ('chat.ask("hi", model=model)', "in ask"), ("videos.retrieve(model)", "in retrieve")],
    ids=["create", "ask", "job"],
)
def test_an_awaited_async_client_call_is_trimmed_alike(tmp_path: Path, emulator: Any, keys: Any, call: str, named: str) -> None:
    """asyncio.run(main()) in a script: the user's frames (asyncio's own between them), then one of ours."""
    lines = _run(tmp_path, emulator, keys, ASYNC_SCRIPT.replace("{call}", call))
    frames = [line.strip() for line in lines if line.strip().startswith("File ")]
    users = [frame for frame in frames if "homework.py" in frame]
    assert len(users) == 3 and users[-1].endswith("in ask"), "\n".join(lines)
    assert len(_ours(frames)) == 1 and frames[-1] == _ours(frames)[0] and frames[-1].endswith(named), "\n".join(lines)
    assert "GATEWAYKIT_FULL_TRACEBACK=1" in "\n".join(lines)
    assert lines[-1].startswith("gatewaykit.errors.")


def test_an_async_clients_full_traceback_is_one_switch_away(tmp_path: Path, emulator: Any, keys: Any) -> None:
    lines = _run(tmp_path, emulator, keys, ASYNC_SCRIPT.replace("{call}", ASYNC_CREATE), GATEWAYKIT_FULL_TRACEBACK="1")
    frames = [line for line in lines if line.strip().startswith("File ")]
    assert len(_ours(frames)) > 3 and lines[-1].startswith("gatewaykit.errors.ModelNotFoundError")


def test_a_public_call_inside_another_keeps_every_frame_for_tb(emulator: Any, keys: Any) -> None:
    """chat.ask calls completions.create (both trimmed): %tb still shows ask's frame and create's inner ones."""
    import gatewaykit as gk
    from gatewaykit.error_text import full_traceback

    with gk.Client(base_url=emulator.base_url, api_key=keys.acme, ledger=gk.Ledger(path=None), display=False) as client:
        with pytest.raises(gk.ModelNotFoundError) as caught:
            client.chat.ask("hi", model="no-such-model")
    full = full_traceback(caught.value)
    assert "test_script_traceback.py" in full and "chat.py" in full and "request_pipeline.py" in full
    assert len([frame for frame in traceback.extract_tb(caught.value.__traceback__) if "gatewaykit" in frame.filename]) == 1


def test_a_trimmed_error_still_pickles_and_keeps_its_full_traceback_for_tb(emulator: Any, keys: Any) -> None:
    """The left-out frames are kept beside the error (for %tb), not on it: it still pickles (map on processes)."""
    import pickle

    import gatewaykit as gk
    from gatewaykit.error_text import full_traceback

    with gk.Client(base_url=emulator.base_url, api_key=keys.acme, ledger=gk.Ledger(path=None), display=False) as client:
        try:
            client.images.generate(model="image-pixels", prompt="a fox", width=999, height=256)
        except gk.BadRequestError as error:
            caught = error
    assert pickle.loads(pickle.dumps(caught)).param == "width"
    assert "validation.py" in full_traceback(caught) and "test_script_traceback.py" in full_traceback(caught)
