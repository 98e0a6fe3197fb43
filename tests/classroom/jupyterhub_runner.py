"""A real JupyterHub for the classroom test: docs/jupyterhub_config.py loaded by a small test configuration
(loopback ports, a temporary folder, DummyAuthenticator, SimpleLocalProcessSpawner, the npm
configurable-http-proxy), users logged in through the login form, their servers started through the REST
API, and code run in a user's kernel over the single-user server's kernel websocket, all through the hub's proxy."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Optional

import httpx

REPO = Path(__file__).resolve().parents[2]
DOCS_CONFIG = REPO / "docs" / "jupyterhub_config.py"
LOCAL_PROXY = REPO / ".ci" / "node" / "node_modules" / ".bin" / "configurable-http-proxy"
PASSWORD = "the-class-password"

TEST_CONFIG = """\
# The test's hub: the teacher's file as it is, then what only a test sets.
c = get_config()
load_subconfig({docs!r})
c.JupyterHub.bind_url = "http://127.0.0.1:{public_port}"
c.JupyterHub.hub_ip = "127.0.0.1"
c.JupyterHub.hub_port = {hub_port}
c.ConfigurableHTTPProxy.api_url = "http://127.0.0.1:{proxy_api_port}"
c.ConfigurableHTTPProxy.command = [{proxy!r}]
c.ConfigurableHTTPProxy.pid_file = {folder!r} + "/proxy.pid"
c.JupyterHub.db_url = "sqlite:///" + {folder!r} + "/jupyterhub.sqlite"
c.JupyterHub.cookie_secret_file = {folder!r} + "/cookie_secret"
c.JupyterHub.authenticator_class = "dummy"
c.DummyAuthenticator.password = {password!r}
c.Authenticator.allow_all = True
c.JupyterHub.spawner_class = "simple"
c.SimpleLocalProcessSpawner.home_dir_template = {folder!r} + "/home/{{username}}"
c.Spawner.cmd = [{python!r}, "-m", "jupyterhub.singleuser"]
c.Spawner.ip = "127.0.0.1"
c.Spawner.args = {server_args!r}
c.JupyterHub.tornado_settings = {{"slow_spawn_timeout": 0}}  # POST .../server answers at once; the test polls
c.Spawner.start_timeout = 180
c.Spawner.http_timeout = 180
"""


def proxy_command() -> Optional[str]:
    """configurable-http-proxy as .ci/run installs it (npm, into .ci/node), else one on PATH."""
    if os.access(LOCAL_PROXY, os.X_OK):
        return str(LOCAL_PROXY)
    return shutil.which("configurable-http-proxy")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def wait_for(condition: Callable[[], Any], seconds: float, what: str, also: Callable[[], None] = lambda: None) -> Any:
    """``condition()``'s first truthy value, polled until a deadline; ``also()`` may fail early."""
    deadline = time.monotonic() + seconds
    while True:
        value = condition()
        if value:
            return value
        also()
        assert time.monotonic() < deadline, f"waited {seconds:g} s for {what}"
        time.sleep(0.1)


@dataclass
class RunningHub:
    process: subprocess.Popen
    url: str
    folder: Path
    classroom_url: str
    log: Path
    stop_seconds: dict[str, float] = field(default_factory=dict)  # stop_hub(): how long each of its steps took
    stop_lingering: list[tuple[int, str]] = field(default_factory=list)  # what outlived the hub, at first


    @property
    def admin_token(self) -> str:
        return (self.folder / "classroom" / "admin_token").read_text().strip()

    def log_tail(self, chars: int = 6000) -> str:
        return self.log.read_text(errors="replace")[-chars:]

    def check_alive(self) -> None:
        assert self.process.poll() is None, f"the hub exited ({self.process.returncode}):\n{self.log_tail()}"

    def classroom_report(self) -> dict[str, dict[str, Any]]:
        answer = httpx.get(f"{self.classroom_url}/_classroom/report", trust_env=False, timeout=30,
                           headers={"Authorization": f"Bearer {self.admin_token}"})
        answer.raise_for_status()
        return {row["student"]: row for row in answer.json()["rows"]}


def start_hub(folder: Path, upstream_url: str, teacher_key: str, proxy: str,
              settings: Optional[dict[str, str]] = None) -> RunningHub:
    """A hub on loopback ports, its files in ``folder``, the classroom forwarding to ``upstream_url``
    (``settings``: more of the docs configuration's GATEWAYKIT_CLASSROOM_* variables)."""
    public_port, hub_port, proxy_api_port, classroom_port = (free_port() for _ in range(4))
    config = folder / "jupyterhub_config.py"
    config.write_text(TEST_CONFIG.format(docs=str(DOCS_CONFIG), public_port=public_port, hub_port=hub_port,
                                         proxy_api_port=proxy_api_port, proxy=proxy, folder=str(folder),
                                         password=PASSWORD, python=sys.executable,
                                         server_args=["--allow-root"] if os.geteuid() == 0 else []))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SVC_", "GATEWAYKIT_", "JUPYTER"))}
    env.update(SVC_API_KEY=teacher_key, GATEWAYKIT_CLASSROOM_UPSTREAM=upstream_url,
               GATEWAYKIT_CLASSROOM_PORT=str(classroom_port), GATEWAYKIT_CLASSROOM_DIR=str(folder / "classroom"),
               PATH=os.pathsep.join([os.path.dirname(sys.executable), env.get("PATH", "")]),
               PYTHONPATH=os.pathsep.join([str(REPO / "src"), env.get("PYTHONPATH", "")]).rstrip(os.pathsep),
               HOME=str(folder), NO_PROXY="127.0.0.1,localhost", no_proxy="127.0.0.1,localhost")
    env.update(settings or {})
    log = folder / "jupyterhub.log"
    with open(log, "wb") as out:
        process = subprocess.Popen([sys.executable, "-m", "jupyterhub", "-f", str(config)], cwd=folder, env=env,
                                   stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                   start_new_session=True, preexec_fn=_stop_with_parent)
    hub = RunningHub(process, f"http://127.0.0.1:{public_port}", folder, f"http://127.0.0.1:{classroom_port}", log)
    try:
        wait_for(lambda: _answers(f"{hub.url}/hub/api/"), 120, "the hub's REST API", also=hub.check_alive)
    except BaseException:
        stop_hub(hub)
        raise
    return hub


def _stop_with_parent() -> None:
    """In the hub's process before it runs: SIGTERM it (it then stops what it started) if pytest dies; and SIGINT
    back to its default. A background job of a non-interactive shell (``bash .ci/run &``) ignores SIGINT and its
    children inherit that: the users' servers then ignored the SIGINT the hub stops them with, and the hub waited
    for each one's interrupt timeout before SIGTERM (32 s to stop instead of 3)."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    libc.signal(signal.SIGINT, 0)  # SIG_DFL (the Python interpreter exec'd next installs its handler over it)


def listening_addresses(hub: RunningHub) -> set[str]:
    """The addresses the hub and everything it started listen on."""
    import psutil

    found = set()
    for process in hub_processes(hub):
        try:
            found |= {c.laddr.ip for c in process.net_connections(kind="inet") if c.status == psutil.CONN_LISTEN}
        except psutil.NoSuchProcess:
            continue
    return found


def _answers(url: str) -> bool:
    try:
        return httpx.get(url, trust_env=False, timeout=5).status_code == 200
    except httpx.TransportError:
        return False


def hub_processes(hub: RunningHub) -> list[Any]:
    import psutil

    try:
        return [psutil.Process(hub.process.pid), *psutil.Process(hub.process.pid).children(recursive=True)]
    except psutil.NoSuchProcess:
        return []


def _name(process: Any) -> str:
    try:
        return " ".join(process.cmdline()[:4])[:160]
    except Exception:  # noqa: BLE001 - gone meanwhile
        return "?"


def stop_hub(hub: RunningHub) -> list[int]:
    """Stop the hub (it stops the proxy, the classroom and the users' servers); kill whatever it left.
    Returns the pids that had to be killed."""
    import psutil

    started = hub_processes(hub)
    began = time.monotonic()
    hub.process.send_signal(signal.SIGTERM)
    try:
        hub.process.wait(timeout=60)
    except subprocess.TimeoutExpired:
        hub.process.kill()
        hub.process.wait(timeout=10)
    hub.stop_seconds["hub"] = time.monotonic() - began
    lingering = [(p.pid, _name(p)) for p in started[1:] if p.is_running()]
    gone, alive = psutil.wait_procs(started[1:], timeout=30)
    hub.stop_seconds["children"] = time.monotonic() - began - hub.stop_seconds["hub"]
    hub.stop_lingering = lingering
    for leftover in alive:
        try:
            leftover.kill()
        except psutil.NoSuchProcess:
            pass
    psutil.wait_procs(alive, timeout=10)
    return [p.pid for p in alive]


def log_in(hub: RunningHub, user: str) -> str:
    """Log ``user`` in through the hub's login form (DummyAuthenticator) and return a new API token of theirs."""
    with httpx.Client(base_url=hub.url, trust_env=False, timeout=60) as browser:
        browser.get("/hub/login").raise_for_status()
        answer = browser.post("/hub/login", data={"username": user, "password": PASSWORD,
                                                  "_xsrf": browser.cookies["_xsrf"]})
        assert answer.status_code == 302, f"login of {user}: {answer.status_code} {answer.text[:300]}"
        xsrf = browser.cookies["_xsrf"]  # a new one, tied to the login
        answer = browser.post(f"/hub/api/users/{user}/tokens", json={"note": "classroom test", "expires_in": 3600},
                              headers={"X-XSRFToken": xsrf})
        assert answer.status_code == 201, f"token for {user}: {answer.status_code} {answer.text[:300]}"
        return str(answer.json()["token"])


def start_server(hub: RunningHub, user: str, token: str) -> None:
    answer = httpx.post(f"{hub.url}/hub/api/users/{user}/server", headers={"Authorization": f"token {token}"},
                        trust_env=False, timeout=60)
    assert answer.status_code in (201, 202), f"starting {user}'s server: {answer.status_code} {answer.text[:300]}"


def stop_server(hub: RunningHub, user: str, token: str) -> None:
    """Stop ``user``'s server and wait until the hub says it is gone."""
    answer = httpx.delete(f"{hub.url}/hub/api/users/{user}/server", headers={"Authorization": f"token {token}"},
                          trust_env=False, timeout=60)
    assert answer.status_code in (202, 204), f"stopping {user}'s server: {answer.status_code} {answer.text[:300]}"

    def gone() -> bool:
        model = httpx.get(f"{hub.url}/hub/api/users/{user}", headers={"Authorization": f"token {token}"},
                          trust_env=False, timeout=30).json()
        return "" not in model.get("servers", {})

    wait_for(gone, 60, f"{user}'s server to stop", also=hub.check_alive)


def server_ready(hub: RunningHub, user: str, token: str) -> bool:
    answer = httpx.get(f"{hub.url}/hub/api/users/{user}", headers={"Authorization": f"token {token}"},
                       trust_env=False, timeout=30)
    answer.raise_for_status()
    server = answer.json().get("servers", {}).get("")
    assert server is not None, f"{user}'s server failed to start:\n{hub.log_tail()}"
    return bool(server.get("ready"))


def run_in_kernel(hub: RunningHub, user: str, token: str, code: str, seconds: float = 120) -> str:
    """Start a kernel in ``user``'s server (through the hub's proxy), run ``code``, return its stdout."""
    base = f"{hub.url}/user/{user}/api/kernels"
    headers = {"Authorization": f"token {token}"}
    answer = httpx.post(base, json={"name": "python3"}, headers=headers, trust_env=False, timeout=60)
    assert answer.status_code == 201, f"a kernel for {user}: {answer.status_code} {answer.text[:300]}"
    kernel_id = answer.json()["id"]
    try:
        channels = f"{base.replace('http://', 'ws://', 1)}/{kernel_id}/channels"
        return asyncio.run(asyncio.wait_for(_execute(channels, headers, user, code), seconds))
    finally:
        httpx.delete(f"{base}/{kernel_id}", headers=headers, trust_env=False, timeout=60)


async def _execute(url: str, headers: dict[str, str], user: str, code: str) -> str:
    from tornado.httpclient import HTTPRequest
    from tornado.websocket import websocket_connect

    connection = await websocket_connect(HTTPRequest(url, headers=headers))
    try:
        msg_id = uuid.uuid4().hex
        connection.write_message(json.dumps({
            "header": {"msg_id": msg_id, "username": user, "session": uuid.uuid4().hex, "msg_type": "execute_request",
                       "version": "5.3", "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())},
            "parent_header": {}, "metadata": {}, "channel": "shell", "buffers": [],
            "content": {"code": code, "silent": False, "store_history": False, "user_expressions": {},
                        "allow_stdin": False, "stop_on_error": True},
        }))
        out: list[str] = []
        while True:
            raw = await connection.read_message()
            assert raw is not None, "the kernel's websocket closed before the cell finished"
            message = json.loads(raw)
            if message.get("parent_header", {}).get("msg_id") != msg_id:
                continue
            kind, content = message["msg_type"], message["content"]
            if kind == "stream" and content.get("name") == "stdout":
                out.append(content["text"])
            elif kind == "error":
                raise AssertionError("the cell failed in the kernel:\n" + "\n".join(content.get("traceback", [])))
            elif kind == "status" and content.get("execution_state") == "idle":
                return "".join(out)
    finally:
        connection.close()
        while await connection.read_message() is not None:  # until the server's close frame closes the socket
            pass
