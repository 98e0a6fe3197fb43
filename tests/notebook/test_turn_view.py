"""The live view of a conversation turn (notebook/chat_views/turn_view.py), on the offline gateway, with recorded outputs."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

import gatewaykit as gk
from gatewaykit.client.core.display import NullDisplay, NullTurnView, StreamOnlyTurnView, turn_view_of
from gatewaykit.notebook.displays.kernel_display import KernelDisplay
from gatewaykit.notebook.cell_output.sinks import CapturingSink
from gatewaykit.notebook.chat_views.turn_view import LiveTurnView

HOSTILE_RESULT = "<script>window.__pwned = 1</script> sunny in "


def get_weather(city: str) -> str:
    """Get the current weather for a city."""
    return HOSTILE_RESULT + city


def broken_weather(city: str) -> str:
    """Get the weather for a city."""
    raise RuntimeError(f"weather service down for {city}")


async def async_weather(city: str) -> dict:
    """Get the current weather for a city."""
    await asyncio.sleep(0)
    return {"city": city, "sky": "sunny", "report": "x" * 9000}


class RecordingDisplay:
    """A display whose turn views record every output (one CapturingSink per output) in ``outputs``."""

    def __init__(self) -> None:
        self.outputs: list[CapturingSink] = []
        self.streams = 0

    def _new_sink(self) -> CapturingSink:
        self.outputs.append(CapturingSink())
        return self.outputs[-1]

    def turn_view(self) -> LiveTurnView:
        return LiveTurnView(self._new_sink)

    def chat_stream(self, stream: Any) -> Any:
        self.streams += 1
        return stream.final()

    async def async_chat_stream(self, stream: Any) -> Any:
        self.streams += 1
        return await stream.final()

    def job_wait(self, job: Any, wait: Any) -> Any:
        return wait(None)

    def batch_progress(self, total: int) -> Any:
        return NullDisplay().batch_progress(total)

    def offline_notice(self, base_url: str, *, implicit: bool) -> None:
        pass


def client_with(emulator: Any, keys: Any, display: Any) -> gk.Client:
    return gk.Client(base_url=emulator.base_url, api_key=keys.acme, display=display)


def last_html(sink: CapturingSink) -> str:
    return str(sink.last["text/html"])


def test_tool_turn_leaves_a_step_then_the_answer(emulator: Any, keys: Any) -> None:
    """A tool-calling turn ends as two outputs: the step (call, arguments, result) and the static answer."""
    display = RecordingDisplay()
    with client_with(emulator, keys, display) as client:
        chat = client.chat.session(model="chat-mini", tools=[get_weather])
        reply = chat("What is the weather in Paris?")
    step, answer = display.outputs
    html = last_html(step)
    assert 'class="gk-tool-step" data-status="ok"' in html and "<details" in html and "<summary" in html
    assert "get_weather(city=&quot;Paris&quot;)" in html and "&quot;city&quot;: &quot;Paris&quot;" in html
    assert "sunny in Paris" in html
    assert "gk-live" not in last_html(answer) and "gk-chat" in last_html(answer)
    assert answer.last["text/plain"].startswith(reply.choices[0].message.content)


def test_the_step_shows_the_call_running_before_its_result(emulator: Any, keys: Any) -> None:
    """The tool block appears marked running while the tool runs, and is filled in when it returns."""
    display = RecordingDisplay()
    seen: list[str] = []

    def watched_weather(city: str) -> str:
        """Get the current weather for a city."""
        seen.append(last_html(display.outputs[0]))
        return f"sunny in {city}"

    with client_with(emulator, keys, display) as client:
        client.chat.session(model="chat-mini", tools=[watched_weather])("What is the weather in Paris?")
    assert "running…" in seen[0] and "sunny in Paris" not in seen[0]
    assert "sunny in Paris" in last_html(display.outputs[0]) and "running…" not in last_html(display.outputs[0])


def test_each_request_streams_live_first(emulator: Any, keys: Any) -> None:
    """Both requests of the turn go through the live renderer (a live view first, then their final state)."""
    display = RecordingDisplay()
    with client_with(emulator, keys, display) as client:
        client.chat.session(model="chat-mini", tools=[get_weather])("What is the weather in Paris?")
    for output in display.outputs:
        kind, first = output.messages[0]
        assert kind == "show" and "gk-live" in first["text/html"]


def test_tool_results_are_escaped_never_markup(emulator: Any, keys: Any) -> None:
    """A tool result carrying a script tag is shown escaped in the step."""
    display = RecordingDisplay()
    with client_with(emulator, keys, display) as client:
        client.chat.session(model="chat-mini", tools=[get_weather])("What is the weather in Paris?")
    html = "".join(last_html(output) for output in display.outputs)
    assert "&lt;script&gt;window.__pwned" in html and "<script" not in html


def test_a_failing_tool_shows_as_an_error_step(emulator: Any, keys: Any) -> None:
    """A tool that raises shows its block with status error and the error text."""
    display = RecordingDisplay()
    with client_with(emulator, keys, display) as client:
        client.chat.session(model="chat-mini", tools=[broken_weather])("What is the weather in Paris?")
    html = last_html(display.outputs[0])
    assert 'data-status="error"' in html and "weather service down for Paris" in html


def test_async_session_renders_the_same_steps(emulator: Any, keys: Any) -> None:
    """An AsyncClient turn with an async tool leaves the step (result truncated) and the answer."""
    display = RecordingDisplay()

    async def main() -> Any:
        async with gk.AsyncClient(base_url=emulator.base_url, api_key=keys.acme, display=display) as client:
            return await client.chat.session(model="chat-mini", tools=[async_weather])("What is the weather in Lisbon?")

    reply = asyncio.run(main())
    step, answer = display.outputs
    html = last_html(step)
    assert "async_weather(city=&quot;Lisbon&quot;)" in html and 'data-status="ok"' in html
    assert "more characters" in html and "x" * 9000 not in html
    assert '\n  &quot;sky&quot;: &quot;sunny&quot;,' in html  # a JSON result is pretty-printed
    assert "gk-chat" in last_html(answer) and answer.last["text/plain"].startswith(reply.choices[0].message.content)


def test_a_turn_without_tools_is_one_output(emulator: Any, keys: Any) -> None:
    """A plain turn shows just its streamed answer."""
    display = RecordingDisplay()
    with client_with(emulator, keys, display) as client:
        client.chat.session(model="chat-mini")("Say hello.")
    (answer,) = display.outputs
    assert "gk-chat" in last_html(answer) and "gk-tool-step" not in last_html(answer)


def test_a_display_without_turn_view_streams_each_request() -> None:
    """A custom display that lacks turn_view() gets a stream-only view that uses its chat_stream."""

    class Plain:
        def chat_stream(self, stream: Any) -> Any:
            return stream

    view = turn_view_of(Plain())
    assert isinstance(view, StreamOnlyTurnView) and view.chat_stream("s") == "s"  # type: ignore[arg-type]
    assert isinstance(NullDisplay().turn_view(), NullTurnView)


def test_outside_a_kernel_the_kernel_display_prints_nothing(emulator: Any, keys: Any, capsys: pytest.CaptureFixture[str]) -> None:
    """Without a kernel, a tool turn through KernelDisplay writes nothing to stdout or stderr."""
    with client_with(emulator, keys, KernelDisplay()) as client:
        reply = client.chat.session(model="chat-mini", tools=[get_weather])("What is the weather in Paris?")
    assert reply.choices[0].finish_reason == "stop"
    assert capsys.readouterr() == ("", "")


def test_the_step_limit_shows_a_note_before_the_last_answer(emulator: Any, keys: Any) -> None:
    """With max_steps=1 the view shows the step, a note that the limit was reached, then the answer."""
    display = RecordingDisplay()
    with client_with(emulator, keys, display) as client:
        client.chat.session(model="chat-mini", tools=[get_weather], max_steps=1)("What is the weather in Paris?")
    step, note, answer = display.outputs
    assert "gk-tool-step" in last_html(step) and "max_steps=1" in last_html(note) and "gk-chat" in last_html(answer)


def test_a_failing_step_display_never_breaks_the_turn(emulator: Any, keys: Any) -> None:
    """A sink that fails on the step update is ignored: the turn still returns its answer."""

    class FailingSteps(CapturingSink):
        def update(self, bundle: Any) -> None:
            if "gk-turn-step" in bundle.get("text/html", ""):
                raise RuntimeError("front end went away")
            super().update(bundle)

    class Display(RecordingDisplay):
        def turn_view(self) -> LiveTurnView:
            return LiveTurnView(FailingSteps)

    with client_with(emulator, keys, Display()) as client:
        reply = client.chat.session(model="chat-mini", tools=[get_weather])("What is the weather in Paris?")
    assert reply.choices[0].finish_reason == "stop" and "sunny in Paris" in reply.choices[0].message.content
