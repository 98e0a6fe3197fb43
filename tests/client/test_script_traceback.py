"""An uncaught gateway error in a script: the user's frames, one of ours, the message (issue 31, item 14)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

SCRIPT = """
import gatewaykit as gk
client = gk.Client(base_url={base_url!r}, api_key={api_key!r}, ledger=gk.Ledger(path=None))

def ask(model):
    return client.chat.completions.create(model=model, messages=[{{"role": "user", "content": "hi"}}])

ask("no-such-model")
"""


def _run(tmp_path: Path, emulator: Any, keys: Any, **env: str) -> list[str]:
    script = tmp_path / "homework.py"
    script.write_text(SCRIPT.format(base_url=emulator.base_url, api_key=keys.acme))
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
