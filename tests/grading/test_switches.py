"""GATEWAYKIT_OFFLINE / GATEWAYKIT_SEED / GATEWAYKIT_CASSETTE(_MODE): a student's unmodified code, run in a
fresh process (the switches are process-wide) with the course key and URL pointing at a counting server."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from grading.counting_server import CountingServer

pytestmark = pytest.mark.slow

HERE = Path(__file__).parent
SRC = HERE.parents[1] / "src"


def run(code_or_script: Any, env: dict[str, str], *args: str, check: bool = True) -> subprocess.CompletedProcess:
    """``python script args`` (or ``-c code``) with gatewaykit from this tree and only ``env``'s switches."""
    environ = {k: v for k, v in os.environ.items() if not k.startswith(("SVC_", "GATEWAYKIT_"))}
    environ.update(PYTHONPATH=str(SRC), GATEWAYKIT_LEDGER_PATH="memory", **env)
    command = [sys.executable, str(code_or_script)] if isinstance(code_or_script, Path) else [
        sys.executable, "-c", code_or_script]
    done = subprocess.run([*command, *args], env=environ, capture_output=True, text=True, timeout=240)
    if check and done.returncode != 0:
        raise AssertionError(f"exit {done.returncode}\n{done.stderr[-3000:]}")
    return done


def student(server: CountingServer, **switches: str) -> subprocess.CompletedProcess:
    env = {"SVC_API_KEY": "sk-course-key", "SVC_BASE_URL": server.url, **switches}
    return run(HERE / "student_calls.py", env, server.url)


def test_offline_switch_sends_nothing_to_the_configured_gateway_nor_to_the_url_the_code_passes() -> None:
    """GATEWAYKIT_OFFLINE=1: chat, JSON, tools, image, video, song, map, compare, AsyncClient all offline; 0 requests."""
    with CountingServer() as server:
        done = student(server, GATEWAYKIT_OFFLINE="1")
        assert server.total == 0, server.requests
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen["offline"] is True and seen["async"].startswith("True ")
    assert seen["tool_calls"] == [["weather", '{"city": "Paris"}']]
    assert len(seen["compare"]) == 2 and len(seen["map"]) == 3
    assert "GATEWAYKIT_OFFLINE=1 is set" in done.stderr  # the terminal notice says why


def test_without_the_switch_the_same_code_reaches_the_configured_gateway() -> None:
    """The control: the counting server does count a client built with its URL (zero above means something)."""
    with CountingServer() as server:
        done = run("import gatewaykit as gk, sys\ntry:\n    gk.Client(api_key='k', base_url=sys.argv[1]).models.list()\n"
                   "except gk.GatewayError as exc:\n    print(type(exc).__name__)", {}, server.url)
        assert server.requests and server.requests[0] == "GET /v1/models"
    assert "Error" in done.stdout


def test_the_same_seed_gives_the_same_everything_and_another_seed_other_media() -> None:
    """GATEWAYKIT_SEED=N: two runs print identical text, JSON, tool calls, ids, timestamps, media digests, costs."""
    with CountingServer() as server:
        first = student(server, GATEWAYKIT_OFFLINE="1", GATEWAYKIT_SEED="7").stdout.splitlines()[-1]
        second = student(server, GATEWAYKIT_OFFLINE="1", GATEWAYKIT_SEED="7").stdout.splitlines()[-1]
        other = json.loads(student(server, GATEWAYKIT_OFFLINE="1", GATEWAYKIT_SEED="8").stdout.splitlines()[-1])
        assert server.total == 0
    assert first == second
    seen = json.loads(first)
    assert seen["video"][1] == seen["song"][1] == seen["chat"][1]  # the fixed epoch, not the clock
    assert other["image"][1] != seen["image"][1] and other["video"][0] != seen["video"][0]


def test_removing_the_switch_after_import_does_not_turn_it_off() -> None:
    """A notebook that pops GATEWAYKIT_OFFLINE after ``import gatewaykit``, then makes its first client: still
    offline, nothing sent to the course URL."""
    code = ("import os\nimport gatewaykit as gk\nos.environ.pop('GATEWAYKIT_OFFLINE')\nclient = gk.Client()\n"
            "try:\n    client.models.list()\nexcept gk.GatewayError as exc:\n    print(type(exc).__name__)\n"
            "print('offline:', client.offline)")
    with CountingServer() as server:
        done = run(code, {"GATEWAYKIT_OFFLINE": "1", "SVC_API_KEY": "sk-course-key", "SVC_BASE_URL": server.url})
        assert server.total == 0, server.requests
    assert "offline: True" in done.stdout


@pytest.mark.parametrize(
    ("variable", "value", "accepts"),
    [
        ("GATEWAYKIT_SEED", "seven", "whole number"),
        ("GATEWAYKIT_OFFLINE", "maybe", "set it to 1"),
        ("GATEWAYKIT_CASSETTE_MODE", "replay-ish", "replay (never the network), record"),
        ("GATEWAYKIT_OFFLINE_TIME_SCALE", "-1", "a number >= 0"),
    ],
)
def test_a_bad_value_is_a_configuration_error_at_the_first_client(variable: str, value: str, accepts: str) -> None:
    """A bad switch: ConfigurationError naming the variable and what it accepts, from gk.Client(), not a request."""
    env = {variable: value}
    if variable == "GATEWAYKIT_CASSETTE_MODE":
        env["GATEWAYKIT_CASSETTE"] = "grading.jsonl"
    code = ("import gatewaykit as gk\ntry:\n    gk.Client(offline=True)\nexcept gk.ConfigurationError as exc:\n"
            "    print('raised:', exc)\n    gk.Client(offline=True)")
    done = run(code, env, check=False)
    assert done.returncode != 0 and "raised:" in done.stdout  # raised again by the next client, until fixed
    assert variable in done.stdout and repr(value) in done.stdout and accepts in done.stdout


def test_replaying_a_missing_cassette_is_a_configuration_error(tmp_path: Path) -> None:
    """GATEWAYKIT_CASSETTE_MODE=replay with no file there: ConfigurationError naming GATEWAYKIT_CASSETTE."""
    code = "import gatewaykit as gk\ntry:\n    gk.Client()\nexcept gk.ConfigurationError as exc:\n    print(exc)"
    done = run(code, {"GATEWAYKIT_CASSETTE": str(tmp_path / "none.jsonl"), "GATEWAYKIT_CASSETTE_MODE": "replay"})
    assert "GATEWAYKIT_CASSETTE=" in done.stdout and "record" in done.stdout


def test_a_cassette_recorded_once_replays_for_every_client_with_nothing_sent(tmp_path: Path) -> None:
    """Record the notebook once (offline here), replay it with the course key set: same output, 0 requests;
    an unrecorded request raises CassetteMissError naming it and how to record it."""
    cassette = str(tmp_path / "solution.jsonl")
    with CountingServer() as server:
        recorded = student(server, GATEWAYKIT_OFFLINE="1", GATEWAYKIT_CASSETTE=cassette,
                           GATEWAYKIT_CASSETTE_MODE="record").stdout.splitlines()[-1]
        replayed = student(server, GATEWAYKIT_CASSETTE=cassette, GATEWAYKIT_CASSETTE_MODE="replay")
        code = ("import gatewaykit as gk, sys\nclient = gk.Client(api_key='k', base_url=sys.argv[1])\n"
                "try:\n    client.chat.ask('never recorded', model='chat-mini')\n"
                "except gk.CassetteMissError as exc:\n    print('miss:', exc)")
        miss = run(code, {"GATEWAYKIT_CASSETTE": cassette, "GATEWAYKIT_CASSETTE_MODE": "replay",
                          "SVC_API_KEY": "sk-course-key", "SVC_BASE_URL": server.url}, server.url)
        assert server.total == 0, server.requests
    recorded_seen, replayed_seen = json.loads(recorded), json.loads(replayed.stdout.splitlines()[-1])
    replayed_seen.pop("offline"), recorded_seen.pop("offline")
    assert replayed_seen["chat"] == recorded_seen["chat"] and replayed_seen["video"] == recorded_seen["video"]
    assert replayed_seen["song"] == recorded_seen["song"] and replayed_seen["json"] == recorded_seen["json"]
    assert "miss: client.chat.completions.create(...) is not recorded" in miss.stdout
    assert "never recorded" in miss.stdout and "GATEWAYKIT_CASSETTE_MODE=auto" in miss.stdout


def test_in_a_kernel_the_banner_says_the_switch_is_on_and_the_magic_chat_box_and_playground_stay_offline() -> None:
    """A notebook run by a grader: one banner naming GATEWAYKIT_OFFLINE=1 (no port), %%chat, gk.chat_ui() and
    gk.playground() all on the offline gateway, nothing sent to the course URL."""
    import nbformat
    from nbclient import NotebookClient

    cells = [
        "import gatewaykit as gk\n%load_ext gatewaykit",
        "%%chat\nName a colour.",
        "import gatewaykit.notebook.magics as magics\nbox = gk.chat_ui()\npanel = gk.playground()\n"
        "print('offline:', magics._default_client.offline, box.client.offline, panel.client.offline)",
    ]
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(source) for source in cells])
    with CountingServer() as server:
        switches = {"GATEWAYKIT_OFFLINE": "1", "GATEWAYKIT_SEED": "0", "GATEWAYKIT_LEDGER_PATH": "memory",
                    "SVC_API_KEY": "sk-course-key", "SVC_BASE_URL": server.url, "PYTHONPATH": str(SRC)}
        saved = {name: os.environ.get(name) for name in switches}
        os.environ.update(switches)  # the kernel inherits this process's environment
        try:
            NotebookClient(notebook, timeout=180, kernel_name="python3").execute()
        finally:
            for name, value in saved.items():
                os.environ.pop(name, None) if value is None else os.environ.__setitem__(name, value)
        assert server.total == 0, server.requests
    texts = [output.get("text", "") + str(output.get("data", {}).get("text/plain", ""))
             for cell in notebook.cells for output in cell.outputs]
    banners = [text for text in texts if "OFFLINE gateway" in text]
    assert len(banners) == 1 and "GATEWAYKIT_OFFLINE=1" in banners[0] and "127.0.0.1:" not in banners[0]
    assert "offline: True True True" in "".join(texts)
