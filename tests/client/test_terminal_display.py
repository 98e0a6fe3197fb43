"""Outside a kernel: answers stream as plain text to stdout, progress is one stderr line on a terminal only.

Each test runs a real script in a subprocess against the shared offline
gateway, with pipes or with a pseudo-terminal (``pty``) as its streams.
"""

from __future__ import annotations

import os
import pty
import select
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import gatewaykit as gk
from gatewaykit.client.terminal_display import TerminalDisplay, plain_text

SRC = str(Path(gk.__file__).resolve().parents[1])

PRELUDE = """
import sys, gatewaykit as gk
client = gk.Client(api_key=sys.argv[1], base_url=sys.argv[2], display={display})
"""


def script(body: str, display: str = "None") -> str:
    return PRELUDE.format(display=display) + textwrap.dedent(body)


def environment(**extra: str) -> dict[str, str]:
    env = {**os.environ, "PYTHONPATH": SRC, "TERM": "xterm-256color", **extra}
    env.pop("PYTEST_CURRENT_TEST", None)
    return env


def run_piped(code: str, emulator: Any, keys: Any, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", code, keys.acme, emulator.base_url],
        capture_output=True, text=True, timeout=120, env=environment(**env), check=False,
    )  # fmt: skip


def run_on_pty(code: str, emulator: Any, keys: Any, **env: str) -> tuple[int, str]:
    """Run ``code`` with stdout and stderr on one pseudo-terminal; its exit code and everything it wrote."""
    controller, terminal = pty.openpty()
    process = subprocess.Popen(
        [sys.executable, "-c", code, keys.acme, emulator.base_url],
        stdin=subprocess.DEVNULL, stdout=terminal, stderr=terminal, env=environment(**env),
    )  # fmt: skip
    os.close(terminal)
    chunks: list[bytes] = []
    while True:
        ready, _, _ = select.select([controller], [], [], 120)
        if not ready:
            process.kill()
            break
        try:
            chunk = os.read(controller, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(controller)
    return process.wait(timeout=60), b"".join(chunks).decode("utf-8", "replace")


ASK = """
answer = client.chat.ask("Say hello to the terminal", model="chat-mini")
sys.stderr.write("RETURNED " + type(answer).__name__ + "\\n")
"""

WAIT = """
job = client.videos.create(model="video-tiers", prompt="waves", duration=4)
done = job.wait()
print("STATUS", done.status)
"""


def test_ask_streams_the_answer_to_stdout(emulator: Any, keys: Any) -> None:
    """ask() in a script writes the answer's text to stdout once and still returns the ChatCompletion."""
    done = run_piped(script(ASK), emulator, keys)
    answer = gk.Client(api_key=keys.acme, base_url=emulator.base_url, display=False).chat.ask(
        "Say hello to the terminal", model="chat-mini"
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == answer.content + "\n"
    assert done.stderr == "RETURNED ChatCompletion\n"


def test_display_false_prints_nothing(emulator: Any, keys: Any) -> None:
    """display=False keeps ask() silent."""
    done = run_piped(script(ASK, display="False"), emulator, keys)
    assert done.returncode == 0 and done.stdout == ""


def test_a_piped_wait_shows_no_progress(emulator: Any, keys: Any) -> None:
    """job.wait() with stderr on a pipe writes nothing there."""
    done = run_piped(script(WAIT), emulator, keys)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "STATUS completed\n" and done.stderr == ""


def test_a_wait_on_a_terminal_shows_one_progress_line(emulator: Any, keys: Any) -> None:
    """On a terminal, job.wait() redraws one stderr line and leaves the finished job's line."""
    code, output = run_on_pty(script(WAIT), emulator, keys)
    assert code == 0, output
    assert "\r\x1b[K" in output and "in_progress" in output
    final = output.split("STATUS")[0].rsplit("\r\x1b[K", 1)[-1]
    assert final.startswith("video_") and " completed" in final and final.endswith(" s\r\n")


def test_a_dumb_terminal_gets_no_progress_line(emulator: Any, keys: Any) -> None:
    """TERM=dumb: no line redrawing, only the script's own output."""
    code, output = run_on_pty(script(WAIT), emulator, keys, TERM="dumb")
    assert code == 0 and output == "STATUS completed\r\n"


def test_a_batch_on_a_terminal_counts_its_items(emulator: Any, keys: Any) -> None:
    """client.map on a terminal ends with the line 'requests 3/3 · $…'."""
    body = """
    results = client.map(lambda p: client.chat.completions.create(model="chat-mini", messages=[{"role": "user", "content": p}]), ["a", "b", "c"])
    print("RESULTS", len(results))
    """
    code, output = run_on_pty(script(body), emulator, keys)
    assert code == 0, output
    assert "requests 3/3 · $" in output and "RESULTS 3" in output


def test_a_closed_stdout_never_raises(emulator: Any, keys: Any) -> None:
    """With stdout closed, ask() still returns its answer and the script ends normally."""
    body = """
    sys.stdout.close()
    answer = client.chat.ask("Say hi", model="chat-mini")
    sys.stderr.write("GOT " + str(bool(answer.content)) + "\\n")
    """
    done = run_piped(script(body), emulator, keys)
    assert done.returncode == 0 and done.stderr == "GOT True\n"


def test_a_tool_loop_prints_one_line_per_step(emulator: Any, keys: Any) -> None:
    """A session turn with a tool prints the call and its result as one line each, then the answer."""
    body = '''
    def get_weather(city: str) -> dict:
        """The weather in a city."""
        return {"city": city, "temperature_c": 21}
    chat = client.chat.session(model="chat-mini", tools=[get_weather])
    reply = chat("What is the weather in Paris?")
    '''
    done = run_piped(script(body), emulator, keys)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("→ get_weather({") and lines[1].startswith('← get_weather: {"city"')
    assert len(lines) >= 3 and all(len(line) <= 100 for line in lines[:2])


def test_model_text_loses_terminal_control_characters() -> None:
    """An escape sequence in model output cannot drive the terminal (removed whole); tabs and newlines stay."""
    assert plain_text("a\x1b[2Jb\tc\nd\x07\x9b") == "ab\tc\nd"


def test_outside_a_kernel_the_default_is_the_terminal_display(emulator: Any, keys: Any) -> None:
    """Without an IPython kernel or marimo, display=None chooses the terminal display."""
    with gk.Client(api_key=keys.acme, base_url=emulator.base_url) as client:
        assert isinstance(client.display, TerminalDisplay)


def test_an_async_ask_streams_the_answer_to_stdout(emulator: Any, keys: Any) -> None:
    """await AsyncClient.chat.ask() in a script writes the answer's text to stdout, like the sync one."""
    body = """
    import asyncio
    async def main():
        async with gk.AsyncClient(api_key=sys.argv[1], base_url=sys.argv[2]) as aclient:
            answer = await aclient.chat.ask("Say hello to the terminal", model="chat-mini")
        sys.stderr.write("RETURNED " + type(answer).__name__ + "\\n")
    asyncio.run(main())
    """
    done = run_piped(script(body, display="False"), emulator, keys)
    answer = gk.Client(api_key=keys.acme, base_url=emulator.base_url, display=False).chat.ask(
        "Say hello to the terminal", model="chat-mini"
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == answer.content + "\n" and done.stderr == "RETURNED ChatCompletion\n"


def test_the_progress_line_gives_a_percentage_only_while_the_job_runs() -> None:
    """As the notebook's bar: no percentage while queued (the gateway's 10 % of a job not started) nor once ended;
    99 % and up is "finishing" (the offline gateway holds a video there while it renders the file)."""
    import time
    from types import SimpleNamespace

    from gatewaykit.client.terminal_display import _job_line

    def line(status: str, progress: Any) -> str:
        return _job_line(SimpleNamespace(id="video_1", status=status, progress=progress), time.monotonic())

    assert line("queued", 10).startswith("video_1 queued · ")
    assert line("in_progress", 41).startswith("video_1 in_progress 41% · ")
    assert line("in_progress", 99).startswith("video_1 in_progress finishing · ")
    assert line("completed", 100).startswith("video_1 completed · ")
    assert line("in_progress", None).startswith("video_1 in_progress · ")
