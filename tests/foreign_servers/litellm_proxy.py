"""LiteLLM's proxy (``litellm[proxy]``), started as a real foreign server on 127.0.0.1.

Its models answer from ``mock_response`` / ``mock_tool_calls`` (``litellm_proxy.yaml``):
no upstream is called. The proxy is told not to phone home (telemetry off, the
local model-cost map, no admin UI) and has no database.

The proxy's own dependencies pin versions (``rich<14``) that conflict with the
test tools, so ``.ci/run`` installs it into its own virtualenv, ``.venv-litellm``;
:func:`proxy_executable` finds it there, or through ``GATEWAYKIT_LITELLM_PROXY``,
or next to the running Python.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator, Optional

import httpx

ROOT = Path(__file__).resolve().parents[2]
CONFIG = Path(__file__).with_name("litellm_proxy.yaml")
MASTER_KEY = "sk-litellm-master-test-key"
START_DEADLINE = float(os.environ.get("GATEWAYKIT_LITELLM_START_SECONDS", "300"))

# Everything that could make the proxy reach the network, switched off.
QUIET_ENV = {
    "LITELLM_TELEMETRY": "False",
    "LITELLM_LOCAL_MODEL_COST_MAP": "True",
    "DISABLE_ADMIN_UI": "True",
    "LITELLM_MODE": "PRODUCTION",  # no .env loading
    "LITELLM_LOG": "ERROR",
    "HF_HUB_OFFLINE": "1",
    "TOKENIZERS_PARALLELISM": "false",
    "NO_PROXY": "127.0.0.1,localhost",
}


def proxy_executable() -> Optional[str]:
    """The ``litellm`` command: ``$GATEWAYKIT_LITELLM_PROXY``, ``.venv-litellm/bin/litellm``, or beside this Python."""
    candidates = [
        os.environ.get("GATEWAYKIT_LITELLM_PROXY"),
        str(ROOT / ".venv-litellm" / "bin" / "litellm"),
        str(Path(sys.executable).parent / "litellm"),
        shutil.which("litellm"),
    ]
    for candidate in candidates:
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    return None


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@dataclass
class RunningProxy:
    base_url: str
    key: str
    log: Path


def start_proxy(executable: str, folder: Path) -> Iterator[RunningProxy]:
    """Run the proxy until the generator is closed; ready when ``/health/liveliness`` answers."""
    port = _free_port()
    log = folder / "litellm-proxy.log"
    env = {k: v for k, v in os.environ.items() if not k.upper().endswith(("_PROXY", "_API_KEY")) and k != "DATABASE_URL"}
    env.update(QUIET_ENV, LITELLM_MASTER_KEY=MASTER_KEY)
    with open(log, "wb") as out:
        process = subprocess.Popen(
            [executable, "--config", str(CONFIG), "--host", "127.0.0.1", "--port", str(port), "--num_workers", "1"],
            cwd=folder, env=env, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
        )
    base_url = f"http://127.0.0.1:{port}"
    try:
        _wait_ready(process, base_url, log)
        yield RunningProxy(base_url=base_url, key=MASTER_KEY, log=log)
    finally:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=30)


def _wait_ready(process: subprocess.Popen, base_url: str, log: Path) -> None:
    deadline = time.monotonic() + START_DEADLINE
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"LiteLLM's proxy exited ({process.returncode}) before it was ready:\n{_tail(log)}")
        try:
            if httpx.get(f"{base_url}/health/liveliness", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.25)
    raise RuntimeError(
        f"LiteLLM's proxy did not answer {base_url}/health/liveliness within {START_DEADLINE:.0f} s "
        f"(raise GATEWAYKIT_LITELLM_START_SECONDS on a slow machine). Its log:\n{_tail(log)}"
    )


def _tail(log: Path, lines: int = 30) -> str:
    try:
        return "\n".join(log.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return "(no log)"
