"""The command line and the Python API for running the gateway."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import httpx
import pytest

from gatewaykit.emulator import DEMO_KEY, start
from gatewaykit.emulator.server import make_settings
from gatewaykit.serving.uvicorn_server import is_loopback


def test_cli_prints_its_real_port_demo_key_and_serves(tmp_path):
    """`python -m gatewaykit.emulator --port 0` prints the real URL and the demo key, and serves."""
    process = subprocess.Popen([sys.executable, "-m", "gatewaykit.emulator", "--port", "0", "--time-scale", "0",
                                "--admin-token", "adm"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        lines = [process.stdout.readline() for _ in range(4)]
        url = lines[0].split(": ", 1)[1].strip()
        assert url.startswith("http://127.0.0.1:") and not url.endswith(":0")
        assert DEMO_KEY in lines[2] and "adm" in lines[3]
        answer = httpx.get(f"{url}/v1/models", headers={"Authorization": f"Bearer {DEMO_KEY}"})
        assert answer.status_code == 200
    finally:
        process.terminate()
        process.communicate(timeout=60)


def test_cli_with_accounts_file_never_prints_keys(tmp_path):
    """With an accounts file the banner shows no key."""
    key = "sk-bf-secret-never-printed-000001"
    path = tmp_path / "accounts.json"
    path.write_text(json.dumps({"accounts": [{"id": "a", "balance_usd": 1, "keys": [{"key": key}]}]}))
    process = subprocess.Popen([sys.executable, "-m", "gatewaykit.emulator", "--port", "0", "--accounts", str(path)],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        banner = "".join(process.stdout.readline() for _ in range(4))
        assert "offline gateway" in banner and key not in banner
    finally:
        process.terminate()
        out, err = process.communicate(timeout=60)
    assert key not in out + err


def test_importing_the_emulator_is_cheap():
    """Importing gatewaykit.emulator loads neither starlette, uvicorn nor the media stack."""
    code = ("import sys, gatewaykit.emulator; "
            "print([m for m in ('starlette', 'uvicorn', 'av', 'PIL', 'numpy') if m in sys.modules])")
    output = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                            env={**os.environ}).stdout
    assert output.strip() == "[]"


def test_start_gives_base_url_key_and_stops():
    """start() serves on a free loopback port; stop() ends it."""
    gateway = start(time_scale=0, admin_token="t")
    assert gateway.api_key == DEMO_KEY and gateway.admin_token == "t"
    assert httpx.get(f"{gateway.base_url}/v1/models", headers={"Authorization": f"Bearer {DEMO_KEY}"}).status_code == 200
    gateway.stop()
    with pytest.raises(httpx.ConnectError):
        httpx.get(f"{gateway.base_url}/v1/models")


@pytest.mark.parametrize("host,loopback", [("127.0.0.1", True), ("::1", True), ("localhost", True),
                                           ("0.0.0.0", False), ("192.168.1.4", False)])
def test_loopback_detection(host, loopback):
    """Only loopback hosts count as loopback (others trigger the warning)."""
    assert is_loopback(host) is loopback


def test_settings_repr_shows_no_keys_or_admin_token():
    """The gateway's Settings repr (tracebacks, logs) leaves out the accounts' keys and the admin token."""
    key = "sk-bf-settings-repr-0000000001"
    accounts = {"accounts": [{"id": "a", "balance_usd": 1.0, "keys": [{"key": key, "status": "active"}]}]}
    shown = repr(make_settings(accounts, admin_token="adm-secret-token"))
    assert "time_scale=" in shown
    assert key not in shown
    assert "adm-secret-token" not in shown
