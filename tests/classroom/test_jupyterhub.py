"""The classroom in a real JupyterHub, configured by docs/jupyterhub_config.py (the file a teacher copies).

One hub for the module: the classroom is its managed service, forwarding to an offline gateway with the
teacher's key; ana and bo log in through the login form (DummyAuthenticator), their servers start
(SimpleLocalProcessSpawner) with SVC_BASE_URL = the classroom and a key the spawner hook got for each, and
gatewaykit chats made in their kernels show in the classroom's report under their own names.
"""

from __future__ import annotations

import importlib.util
import json
import time
from functools import partial
from pathlib import Path
from typing import Any, Iterator

import httpx
import pytest
from classroom_fixtures import TEACHER_KEY, start_upstream, upstream_spent
from jupyterhub_runner import (
    RunningHub, hub_processes, listening_addresses, log_in, proxy_command, run_in_kernel, server_ready, start_hub,
    start_server, stop_hub, wait_for,
)

pytestmark = pytest.mark.slow

USERS = ("ana", "bo")

KERNEL_CHATS = """
import json, os
import gatewaykit as gk
messages = [{{"role": "user", "content": "Hi from {user}"}}]
with gk.Client(max_retries=0, ledger=gk.Ledger(path=None)) as client:
    costs = [client.chat.completions.create(model="chat-mini", messages=messages).usage.cost.total_cost
             for _ in range({count})]
print(json.dumps({{"costs": costs, "environ": dict(os.environ)}}))
"""


ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "jupyterhub"


@pytest.fixture(scope="module")
def hub(tmp_path_factory: Any) -> Iterator[tuple[RunningHub, Any, dict[str, str]]]:
    if importlib.util.find_spec("jupyterhub") is None:
        pytest.skip("JupyterHub is not installed: pip install -e '.[test]' installs it (.ci/run does)")
    proxy = proxy_command()
    if proxy is None:
        pytest.skip("configurable-http-proxy is not installed: `npm ci --prefix .ci/node` installs it from the npm "
                    "registry (.ci/run does)")
    upstream_began = 0.0
    with start_upstream() as upstream:
        running = start_hub(tmp_path_factory.mktemp("hub"), upstream.base_url, TEACHER_KEY, proxy)
        try:
            tokens = {user: log_in(running, user) for user in USERS}
            for user in USERS:
                start_server(running, user, tokens[user])
            for user in USERS:
                wait_for(partial(server_ready, running, user, tokens[user]), 150, f"{user}'s server",
                         also=running.check_alive)
            yield running, upstream, tokens
        except BaseException:
            print(running.log_tail())
            raise
        finally:
            killed = stop_hub(running)
            upstream_began = time.monotonic()
    running.stop_seconds["upstream"] = time.monotonic() - upstream_began
    # Where the stop's time went (fresh-clone runs: ~36 s; alone: ~3 s), for whoever reads the run's artifacts.
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    (ARTIFACTS / "jupyterhub-stop.txt").write_text(
        f"{ {k: round(v, 1) for k, v in running.stop_seconds.items()} } s; outlived the hub at first: "
        f"{running.stop_lingering}\n")
    assert not killed, f"the hub left processes running (killed them): {killed}"


def _chats_in_kernel(hub: RunningHub, token: str, user: str, count: int) -> dict[str, Any]:
    return json.loads(run_in_kernel(hub, user, token, KERNEL_CHATS.format(user=user, count=count)))


def test_a_chat_from_a_users_kernel_is_in_the_report_under_that_users_name(hub: Any) -> None:
    running, upstream, tokens = hub
    before = running.classroom_report()
    assert set(USERS) <= set(before), "the spawner hook added each user to the class when their server started"
    assert all(before[user]["requests"] == 0 for user in USERS)

    ana = _chats_in_kernel(running, tokens["ana"], "ana", 1)
    after_ana = running.classroom_report()
    assert after_ana["ana"]["requests"] == 1 and after_ana["bo"]["requests"] == 0
    assert after_ana["ana"]["spent_usd"] == pytest.approx(ana["costs"][0], abs=1e-9) and ana["costs"][0] > 0
    assert after_ana["bo"]["spent_usd"] == 0

    bo = _chats_in_kernel(running, tokens["bo"], "bo", 2)
    after_bo = running.classroom_report()
    assert after_bo["ana"]["requests"] == 1 and after_bo["bo"]["requests"] == 2
    assert after_bo["bo"]["spent_usd"] == pytest.approx(sum(bo["costs"]), abs=1e-9)
    # the teacher's account paid for exactly what the classroom reports
    total = sum(row["spent_usd"] for row in after_bo.values())
    assert upstream_spent(upstream) == pytest.approx(total, abs=1e-9)


def test_each_users_server_has_the_classroom_and_their_own_key_never_the_teachers(hub: Any) -> None:
    running, _, tokens = hub
    environs = {user: _chats_in_kernel(running, tokens[user], user, 0)["environ"] for user in USERS}
    for user, environ in environs.items():
        assert environ["SVC_BASE_URL"] == f"{running.url}/services/classroom"  # through the hub's proxy
        assert environ["SVC_API_KEY"].startswith("sk-bf-class-")
        assert environ["JUPYTERHUB_USER"] == user
        for secret, name in ((TEACHER_KEY, "the teacher's key"), (running.admin_token, "the admin token")):
            assert not any(secret in value for value in environ.values()), f"{name} is in {user}'s environment"
    assert environs["ana"]["SVC_API_KEY"] != environs["bo"]["SVC_API_KEY"]

    # Of every process the hub started (the proxy, the users' servers, ...), only the classroom has the key.
    holders = []
    for process in hub_processes(running)[1:]:
        try:
            if TEACHER_KEY in process.environ().values():
                holders.append(" ".join(process.cmdline()))
        except Exception:  # a process that ended meanwhile
            continue
    assert len(holders) == 1 and "gatewaykit.classroom" in holders[0], holders


def test_the_hub_and_all_it_started_listen_on_loopback_only_and_its_proxy_guards_the_teachers_endpoints(
        hub: Any) -> None:
    running, _, _ = hub
    assert listening_addresses(running) == {"127.0.0.1"}
    # Through the hub's proxy the teacher's endpoints answer only with the admin token.
    report = f"{running.url}/services/classroom/_classroom/report"
    for headers in ({}, {"Authorization": "Bearer not-the-token"}):
        refused = httpx.get(report, trust_env=False, timeout=30, headers=headers)
        assert refused.status_code == 401 and "rows" not in refused.text
    answer = httpx.get(report, trust_env=False, timeout=30, headers={"Authorization": f"Bearer {running.admin_token}"})
    assert answer.status_code == 200 and "rows" in answer.json()


KERNEL_VIDEO = """
import json, os
import gatewaykit as gk
with gk.Client(max_retries=0, ledger=gk.Ledger(path=None)) as client:
    job = client.videos.create(model="video-range", prompt="snow", duration=2).wait(timeout=120)
    print(json.dumps({"url": job.videos[0].url, "bytes": len(job.content()), "base": os.environ["SVC_BASE_URL"]}))
"""


def test_a_video_from_a_users_kernel_links_and_downloads_through_the_hubs_proxy(hub: Any) -> None:
    running, upstream, tokens = hub
    made = json.loads(run_in_kernel(running, "bo", tokens["bo"], KERNEL_VIDEO))
    assert made["url"].startswith(f"{running.url}/services/classroom/v1/videos/") and made["bytes"] > 1000
    assert upstream.base_url not in made["url"]
