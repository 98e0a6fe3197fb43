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


# A stream the offline gateway drops halfway (its fault injection): the error rises inside the user's loop.
STREAM_SCRIPT = """
import gatewaykit as gk
client = gk.Client(base_url={base_url!r}, api_key={api_key!r}, ledger=gk.Ledger(path=None), display=False)

def read(stream):
    {read}

stream = client.chat.completions.create(model="chat-mini", messages=[{{"role": "user", "content": "Tell me a story"}}],
                                        stream=True, extra_headers={{"X-Emulator-Fault": "stream-drop"}})
read(stream)
"""
STREAM_READS = {
    "for": "for chunk in stream:\n        pass",
    "next": "while True:\n        next(stream)",
    "final": "return stream.final()",
    "iter_text": "for text in stream.iter_text():\n        pass",
}

ASYNC_STREAM_SCRIPT = """
import asyncio
import gatewaykit as gk

async def read(stream):
    {read}

async def main():
    async with gk.AsyncClient(base_url={base_url!r}, api_key={api_key!r}, ledger=gk.Ledger(path=None),
                              display=False) as client:
        stream = await client.chat.completions.create(
            model="chat-mini", messages=[{{"role": "user", "content": "Tell me a story"}}], stream=True,
            extra_headers={{"X-Emulator-Fault": "stream-drop"}})
        await read(stream)

asyncio.run(main())
"""
ASYNC_STREAM_READS = {
    "async for": "async for chunk in stream:\n        pass",
    "anext": "while True:\n        await anext(stream)",
    "final": "return await stream.final()",
    "iter_text": "async for text in stream.iter_text():\n        pass",
}


def _stream_script(template: str, read: str) -> str:
    return template.replace("{read}", read)


@pytest.mark.parametrize("read", list(STREAM_READS))
def test_a_stream_broken_off_mid_loop_shows_the_users_frames_and_one_of_ours(
    tmp_path: Path, emulator: Any, keys: Any, read: str
) -> None:
    """for/next/final()/iter_text() over a stream the gateway drops: homework.py's frames, one of ours, the message;
    no chained traceback of the dropped connection (the message says it)."""
    lines = _run(tmp_path, emulator, keys, _stream_script(STREAM_SCRIPT, STREAM_READS[read]))
    frames = [line.strip() for line in lines if line.strip().startswith("File ")]
    users = [frame for frame in frames if "homework.py" in frame]
    assert len(frames) == 3 and len(users) == 2 and users[-1].endswith("in read"), "\n".join(lines)
    assert "gatewaykit" in frames[-1] and "GATEWAYKIT_FULL_TRACEBACK=1" in "\n".join(lines), "\n".join(lines)
    assert "direct cause" not in "\n".join(lines) and "During handling" not in "\n".join(lines)
    assert lines[-1].startswith("gatewaykit.errors.StreamInterruptedError: The stream broke off before its end")


@pytest.mark.parametrize("read", list(ASYNC_STREAM_READS))
def test_an_async_stream_broken_off_mid_loop_is_trimmed_alike(tmp_path: Path, emulator: Any, keys: Any, read: str) -> None:
    """async for / anext / await final() / iter_text() in asyncio.run: the user's frames, then one of ours."""
    lines = _run(tmp_path, emulator, keys, _stream_script(ASYNC_STREAM_SCRIPT, ASYNC_STREAM_READS[read]))
    frames = [line.strip() for line in lines if line.strip().startswith("File ")]
    users = [frame for frame in frames if "homework.py" in frame]
    assert len(users) == 3 and users[-1].endswith("in read"), "\n".join(lines)
    assert len(_ours(frames)) == 1 and frames[-1] == _ours(frames)[0], "\n".join(lines)
    assert "direct cause" not in "\n".join(lines) and "During handling" not in "\n".join(lines)
    assert lines[-1].startswith("gatewaykit.errors.StreamInterruptedError: The stream broke off before its end")


def test_a_broken_streams_full_traceback_is_one_switch_away(tmp_path: Path, emulator: Any, keys: Any) -> None:
    """GATEWAYKIT_FULL_TRACEBACK=1: every frame, and the dropped connection as the cause."""
    lines = _run(tmp_path, emulator, keys, _stream_script(STREAM_SCRIPT, STREAM_READS["for"]), GATEWAYKIT_FULL_TRACEBACK="1")
    frames = [line for line in lines if line.strip().startswith("File ")]
    assert len(_ours(frames)) > 1 and "direct cause" in "\n".join(lines), "\n".join(lines)
    assert lines[-1].startswith("gatewaykit.errors.StreamInterruptedError")


def test_an_error_sent_mid_stream_is_raised_in_the_loop_with_one_of_our_frames() -> None:
    """An error event after some text (a provider failing mid-answer): the loop's frame, one of ours; %tb keeps all."""
    import gatewaykit as gk
    from gatewaykit.error_text import full_traceback

    from .chunks import chunk, sse

    body = sse(chunk({"role": "assistant", "content": "Once"}), done=False) + (
        b'data: {"error": {"message": "the provider went away", "type": "server_error", "code": "upstream_error"}}\n\n'
    )
    stream = gk.ChatStream(iter([body]), lambda: None)
    with pytest.raises(gk.GatewayError) as caught:
        for _ in stream:
            pass
    ours = [frame for frame in traceback.extract_tb(caught.value.__traceback__) if "gatewaykit" in frame.filename]
    assert [frame.name for frame in ours] == ["_chunks"], ours
    assert "the provider went away" in str(caught.value) and caught.value.partial.content == "Once"
    assert "_tolerant_chunk" in full_traceback(caught.value) and "test_script_traceback.py" in full_traceback(caught.value)
