"""What ``client.compare`` tells its display while the models run (the ComparisonView seam), on the offline gateway."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest

import gatewaykit as gk
from gatewaykit.client.core.display import NullDisplay
from gatewaykit.client.terminal_display import TerminalDisplay

MODELS = ["chat-mini", "chat-vision"]


class RecordingView:
    """Keeps every call, from whichever thread it came."""

    def __init__(self, streams: bool) -> None:
        self.streams = streams
        self.calls: list[tuple[str, str]] = []
        self.finished_with: dict[str, Any] = {}
        self.closed: Any = None
        self._lock = threading.Lock()

    def started(self, entry: Any) -> None:
        with self._lock:
            self.calls.append(("started", entry.model))

    def chunk(self, entry: Any, chunk: Any) -> None:
        with self._lock:
            self.calls.append(("chunk", entry.model))

    def job_update(self, entry: Any, job: Any) -> None:
        with self._lock:
            self.calls.append(("job", entry.model))

    def finished(self, entry: Any) -> None:
        with self._lock:
            self.calls.append(("finished", entry.model))
            self.finished_with[entry.model] = (entry.latency_s, entry.tokens, entry.total_cost)

    def close(self, comparison: Any) -> None:
        self.closed = comparison


class ViewDisplay(NullDisplay):
    def __init__(self, view: Any) -> None:
        self.view = view

    def compare_view(self, prompt: str, kind: str, entries: list[Any]) -> Any:
        return self.view


def client_with(emulator: Any, keys: Any, display: Any, **options: Any) -> gk.Client:
    return gk.Client(api_key=keys.acme, base_url=emulator.base_url, ledger=gk.Ledger(path=None), display=display, **options)


def test_a_streaming_view_gets_each_chat_columns_chunks_then_its_end(emulator: Any, keys: Any) -> None:
    """streams=True: every column starts, gets chunks, and finishes with latency, tokens and cost filled in."""
    view = RecordingView(streams=True)
    with client_with(emulator, keys, ViewDisplay(view)) as client:
        result = client.compare("Explain server-sent events", models=MODELS)
    for model in MODELS:
        mine = [kind for kind, who in view.calls if who == model]
        assert mine[0] == "started" and mine[-1] == "finished" and mine.count("chunk") > 1, mine
        latency, tokens, cost = view.finished_with[model]
        assert latency is not None and tokens and cost
    assert view.closed is result and all(entry.ok for entry in result.entries)
    assert result.entries[0].result.choices[0].message.content


def test_a_streamed_column_costs_what_the_gateway_reported(emulator: Any, keys: Any) -> None:
    """A chat column read as a stream is recorded in the ledger like a whole answer: reported cost, its tokens."""
    with client_with(emulator, keys, ViewDisplay(RecordingView(streams=True))) as client:
        result = client.compare("Name three rivers", models=MODELS)
    for entry in result.entries:
        assert entry.cost_source == "reported"
        assert entry.total_cost == pytest.approx(entry.result.usage.cost.total_cost)
        assert entry.tokens == entry.result.usage.total_tokens


def test_a_view_that_raises_costs_the_view_not_the_answers(emulator: Any, keys: Any) -> None:
    """A display bug in the view: the comparison still returns every model's answer."""

    class Broken(RecordingView):
        def chunk(self, entry: Any, chunk: Any) -> None:
            raise RuntimeError("display bug")

    view = Broken(streams=True)
    with client_with(emulator, keys, ViewDisplay(view)) as client:
        result = client.compare("Say hello", models=MODELS)
    assert all(entry.ok for entry in result.entries)
    assert view.closed is result  # still told the end, so a live view stops painting


def test_a_display_without_compare_view_still_compares(emulator: Any, keys: Any) -> None:
    """An older custom display (no compare_view): the comparison runs as before, nothing shown live."""

    class OldDisplay:
        def chat_stream(self, stream: Any) -> Any:
            return stream.final()

        async def async_chat_stream(self, stream: Any) -> Any:
            return await stream.final()

        def job_wait(self, job: Any, wait: Any) -> Any:
            return wait(None)

        def batch_progress(self, total: int) -> Any:
            return NullDisplay().batch_progress(total)

        def offline_notice(self, base_url: str, *, implicit: bool) -> None:
            pass

    with client_with(emulator, keys, OldDisplay()) as client:
        assert all(entry.ok for entry in client.compare("Say hello", models=MODELS).entries)


def test_the_async_client_tells_the_view_too(emulator: Any, keys: Any) -> None:
    """AsyncClient.compare streams chat columns into the view as well."""
    view = RecordingView(streams=True)

    async def run() -> Any:
        async with gk.AsyncClient(api_key=keys.acme, base_url=emulator.base_url, ledger=gk.Ledger(path=None),
                                  display=ViewDisplay(view)) as client:  # fmt: skip
            return await client.compare("Say hello", models=MODELS)

    result = asyncio.run(run())
    assert view.closed is result and ("chunk", "chat-vision") in view.calls
    assert all(entry.ok and entry.tokens for entry in result.entries)


def test_a_music_column_reports_each_poll_of_its_job(emulator: Any, keys: Any) -> None:
    """Job columns are polled through the view (job_update), then finish."""
    view = RecordingView(streams=True)
    with client_with(emulator, keys, ViewDisplay(view)) as client:
        result = client.compare("upbeat synth pop", models=["music-song"], lyrics_prompt="[Verse]\nla la\n[Chorus]\noh")
    assert result.entries[0].ok and ("job", "music-song") in view.calls


def test_the_terminal_prints_one_line_per_column_as_it_finishes(emulator: Any, keys: Any, capsys: Any) -> None:
    """TerminalDisplay: each model's latency, cost and answer start on one stdout line."""
    with client_with(emulator, keys, TerminalDisplay()) as client:
        client.compare("Say hello", models=MODELS)
    lines = capsys.readouterr().out.splitlines()
    assert sorted(line.split(" · ")[0] for line in lines) == sorted(MODELS)
    assert all(" s · " in line and "$" in line for line in lines), lines


def test_stream_is_not_a_compare_parameter(emulator: Any, keys: Any) -> None:
    """compare(stream=True) says the columns stream by themselves, before anything is sent."""
    with client_with(emulator, keys, False) as client, pytest.raises(TypeError, match="stream"):
        client.compare("Say hello", models=MODELS, stream=True)
    assert client.ledger.rows == []


def test_a_declined_quote_opens_no_view(emulator: Any, keys: Any) -> None:
    """confirm_over and a No: nothing is sent and no grid was opened (the question comes first)."""
    view = RecordingView(streams=True)
    opened: list[str] = []

    class AskingDisplay(ViewDisplay):
        def compare_view(self, prompt: str, kind: str, entries: list[Any]) -> Any:
            opened.append(prompt)
            return self.view

        def confirm(self, quote: Any, threshold: float) -> bool:
            return False

    with client_with(emulator, keys, AskingDisplay(view), confirm_over=0.0) as client:
        with pytest.raises(gk.GatewayError):
            client.compare("Say hello", models=MODELS)
        assert client.ledger.rows == [] and opened == []
        done = client.compare("Say hello", models=MODELS, confirm=True)
    assert all(entry.ok for entry in done.entries) and ("chunk", "chat-mini") in view.calls
