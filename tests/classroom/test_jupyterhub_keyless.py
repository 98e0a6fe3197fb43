"""A keyless hub for real (docs/jupyterhub_config.py with GATEWAYKIT_CLASSROOM_KEYLESS=1): each user's server
carries its own hub token as SVC_API_KEY and no classroom key exists anywhere a user can read; two users'
kernels chat through the classroom with nothing but their server's environment, their spend is under their
hub names, and stopping a user's server makes their old token fail within 5 s."""

from __future__ import annotations

import importlib.util
import json
import time
from functools import partial
from typing import Any

import httpx
import pytest
from classroom_fixtures import TEACHER_KEY, chat, start_upstream
from jupyterhub_runner import (
    hub_processes, log_in, proxy_command, run_in_kernel, server_ready, start_hub, start_server, stop_hub,
    stop_server, wait_for,
)

pytestmark = pytest.mark.slow

USERS = ("ana", "bo")
CLASSROOM_KEY = "sk-bf-class-"

KERNEL_CHAT = """
import json, os
import gatewaykit as gk
with gk.Client(max_retries=0, ledger=gk.Ledger(path=None)) as client:
    answer = client.chat.completions.create(model="chat-mini", messages=[{"role": "user", "content": "Hi"}])
print(json.dumps({"cost": answer.usage.cost.total_cost, "environ": dict(os.environ)}))
"""


def _user_processes(running: Any) -> list[Any]:
    """The users' servers and their kernels (what runs as a user)."""
    found = []
    for process in hub_processes(running)[1:]:
        try:
            if "JUPYTERHUB_USER" in process.environ():
                found.append(process)
        except Exception:  # noqa: BLE001 - a process that ended meanwhile
            continue
    return found


def test_a_keyless_hub_serves_users_by_their_hub_tokens_alone(tmp_path: Any) -> None:
    """Hub tokens as keys: chats under the users' names, no classroom key in any user's reach, a stopped server's
    token refused within 5 s."""
    if importlib.util.find_spec("jupyterhub") is None:
        pytest.skip("JupyterHub is not installed: pip install -e '.[test]' installs it (.ci/run does)")
    proxy = proxy_command()
    if proxy is None:
        pytest.skip("configurable-http-proxy is not installed (.ci/run installs it)")
    with start_upstream() as upstream:
        running = start_hub(tmp_path, upstream.base_url, TEACHER_KEY, proxy, {"GATEWAYKIT_CLASSROOM_KEYLESS": "1"})
        try:
            tokens = {user: log_in(running, user) for user in USERS}
            for user in USERS:
                start_server(running, user, tokens[user])
            for user in USERS:
                wait_for(partial(server_ready, running, user, tokens[user]), 150, f"{user}'s server",
                         also=running.check_alive)
            made = {user: json.loads(run_in_kernel(running, user, tokens[user], KERNEL_CHAT)) for user in USERS}
            report = running.classroom_report()
            for user in USERS:
                environ = made[user]["environ"]
                assert environ["SVC_API_KEY"] == environ["JUPYTERHUB_API_TOKEN"]  # the server's own hub token
                assert report[user]["requests"] == 1
                assert made[user]["cost"] > 0
                assert report[user]["spent_usd"] == pytest.approx(made[user]["cost"], abs=1e-9)
                assert not any(CLASSROOM_KEY in value or TEACHER_KEY in value for value in environ.values())
            for process in _user_processes(running):
                assert not any(CLASSROOM_KEY in value for value in process.environ().values()), process.cmdline()
            for path in (tmp_path / "home").rglob("*"):
                if path.is_file():
                    assert CLASSROOM_KEY.encode() not in path.read_bytes(), path

            old_token = made["ana"]["environ"]["SVC_API_KEY"]
            direct = f"{running.classroom_url}/v1/chat/completions"
            stop_server(running, "ana", tokens["ana"])
            stopped = time.monotonic()
            while httpx.post(direct, json=chat(max_tokens=5), headers={"Authorization": f"Bearer {old_token}"},
                             trust_env=False, timeout=30).status_code != 401:
                assert time.monotonic() - stopped < 5, "the stopped server's token still worked after 5 s"
                time.sleep(0.1)
            bo_token = made["bo"]["environ"]["SVC_API_KEY"]  # bo's server still runs: his token still works
            assert httpx.post(direct, json=chat(max_tokens=5), headers={"Authorization": f"Bearer {bo_token}"},
                              trust_env=False, timeout=30).status_code == 200
        except BaseException:
            print(running.log_tail())
            raise
        finally:
            killed = stop_hub(running)
    assert not killed, f"the hub left processes running (killed them): {killed}"
