"""The Display seam: what the client hands to its display, and how one is chosen."""

from __future__ import annotations

import asyncio
from typing import Any, Callable, Optional

import pytest

import gatewaykit as gk
from gatewaykit.client.core.display import Display, NullDisplay

from .conftest import FAST_RETRIES, RecordingLedger, user


class TallyProgress:
    def __init__(self, total: int, log: list[Any]) -> None:
        self.total, self.log, self.results = total, log, []
        self.closed = False

    def item_done(self, result: Any) -> None:
        self.results.append(result)

    def close(self) -> None:
        self.closed = True


class RecordingDisplay:
    """A Display that keeps every call the client makes to it."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, Any]] = []
        self.updates: list[str] = []
        self.progress: list[TallyProgress] = []

    def chat_stream(self, stream: gk.ChatStream) -> gk.ChatCompletion:
        self.calls.append(("chat_stream", stream))
        for _chunk in stream:
            pass
        return stream.assembly.result()

    async def async_chat_stream(self, stream: gk.AsyncChatStream) -> gk.ChatCompletion:
        self.calls.append(("async_chat_stream", stream))
        return await stream.final()

    def job_wait(self, job: Any, wait: Callable[[Optional[Callable[[Any], Any]]], Any]) -> Any:
        self.calls.append(("job_wait", job))
        return wait(lambda seen: self.updates.append(seen.status))

    def batch_progress(self, total: int) -> TallyProgress:
        progress = TallyProgress(total, self.calls)
        self.progress.append(progress)
        return progress

    def offline_notice(self, base_url: str, *, implicit: bool) -> None:
        self.calls.append(("offline_notice", (base_url, implicit)))


@pytest.fixture
def shown(emulator: Any, keys: Any, sink: RecordingLedger) -> Any:
    display = RecordingDisplay()
    with gk.Client(
        api_key=keys.acme, base_url=emulator.base_url, ledger=sink, retry_policy=FAST_RETRIES, display=display
    ) as client:
        yield client, display


def test_ask_hands_the_stream_to_the_display(shown: Any) -> None:
    """ask() gives the display the ChatStream and returns what the display returns."""
    client, display = shown
    answer = client.chat.ask("Say hello", model="chat-mini")
    (name, stream), = display.calls
    assert name == "chat_stream" and isinstance(stream, gk.ChatStream)
    assert answer.content and answer.content == stream.completion.content


def test_async_ask_hands_the_stream_to_the_display(emulator: Any, keys: Any, sink: RecordingLedger) -> None:
    """AsyncClient's ask() awaits the display's async_chat_stream with the AsyncChatStream."""
    display = RecordingDisplay()

    async def main() -> gk.ChatCompletion:
        async with gk.AsyncClient(api_key=keys.acme, base_url=emulator.base_url, ledger=sink, display=display) as client:
            return await client.chat.ask("Say hello", model="chat-mini")

    answer = asyncio.run(main())
    assert display.calls[0][0] == "async_chat_stream" and isinstance(display.calls[0][1], gk.AsyncChatStream)
    assert answer.content


def test_job_wait_is_driven_by_the_display(shown: Any) -> None:
    """A plain job.wait() goes through display.job_wait, whose on_update sees every poll."""
    client, display = shown
    job = client.music.create(model="music-song", prompt="a short jingle", lyrics_prompt="[Verse]\nla la")
    finished = job.wait(poll_interval=0.01)
    assert finished.status == "completed" and display.calls[-1] == ("job_wait", job)
    assert display.updates and display.updates[-1] == "completed"


def test_wait_with_on_update_bypasses_the_display(shown: Any) -> None:
    """job.wait(on_update=...) is the display's own way in, so it never calls the display again."""
    client, display = shown
    job = client.music.create(model="music-song", prompt="another jingle", lyrics_prompt="[Verse]\nla la")
    seen: list[str] = []
    job.wait(on_update=lambda fresh: seen.append(fresh.status), poll_interval=0.01)
    assert seen[-1] == "completed" and not any(name == "job_wait" for name, _ in display.calls)


def test_map_reports_every_item_to_the_batch_progress(shown: Any) -> None:
    """map() opens one batch progress for all items, reports each result or error, then closes it."""
    client, display = shown

    def call(word: str) -> Any:
        if word == "bad":
            raise ValueError("no")
        return word.upper()

    result = client.map(call, ["a", "bad", "c"], concurrency=2)
    (progress,) = display.progress
    assert progress.total == 3 and progress.closed
    assert sorted(str(item) for item in progress.results) == sorted(str(item) for item in result)
    assert len(result.errors) == 1


def test_offline_client_gives_one_notice(emulator: Any) -> None:
    """An offline client tells its display once, at construction, whether it was asked for."""
    display = RecordingDisplay()
    with gk.Client(offline=True, display=display):
        pass
    assert [name for name, _ in display.calls] == ["offline_notice"] and display.calls[0][1][1] is False


def test_display_false_is_the_null_display(emulator: Any, keys: Any) -> None:
    """display=False turns every live view off."""
    with gk.Client(api_key=keys.acme, base_url=emulator.base_url, display=False) as client:
        assert isinstance(client.display, NullDisplay)
        assert client.chat.ask("Say hi", model="chat-mini").content


def test_a_display_without_the_protocol_methods_is_refused(emulator: Any, keys: Any) -> None:
    """An object that is not a Display is a TypeError naming what it lacks."""
    with pytest.raises(TypeError, match="chat_stream"):
        gk.Client(api_key=keys.acme, base_url=emulator.base_url, display=object())


def test_batch_tally_counts_done_failures_and_cost(client: gk.Client) -> None:
    """BatchTally turns map results into done/total, failures and the reported cost."""
    from gatewaykit.client.core.display import BatchTally

    answers = client.map(lambda text: client.chat.completions.create(model="chat-mini", messages=user(text)), ["a", "b"])
    tally = BatchTally(3)
    for item in [*answers, ValueError("lost")]:
        tally.add(item)
    expected = sum(answer.usage.total_cost for answer in answers)
    assert (tally.done, tally.total, tally.failures) == (3, 3, 1) and tally.cost == pytest.approx(expected) and expected > 0
