"""client.chat.session on the offline gateway: the tool loop, history, cost, undo/reset, images, bad input."""

from __future__ import annotations

import io
import json
from typing import Any, Iterator

import httpx
import pytest

import gatewaykit as gk
from gatewaykit.client.conversation.tool_loop import LIMIT_PROMPT

from .spying import SpyTransport, spy_client

calls: list[tuple[str, dict[str, Any]]] = []


def get_weather(city: str) -> dict:
    """Get the current weather for a city."""
    calls.append(("get_weather", {"city": city}))
    return {"city": city, "temperature_c": 21}


def local_time(city: str) -> str:
    """Get the local time in a city."""
    calls.append(("local_time", {"city": city}))
    return f"It is 12:00 in {city}"


def broken_weather(city: str) -> str:
    """Get the weather for a city."""
    raise RuntimeError(f"weather service down for {city}")


@pytest.fixture(autouse=True)
def _forget_calls() -> Iterator[None]:
    calls.clear()
    yield
    calls.clear()


@pytest.fixture
def ledger() -> gk.Ledger:
    return gk.Ledger()


@pytest.fixture
def spied(emulator: Any, keys: Any, ledger: gk.Ledger) -> Iterator[tuple[gk.Client, SpyTransport]]:
    client, spy = spy_client(emulator, keys.acme, ledger, display=False)  # plain requests (some tests script answers)
    with client:
        yield client, spy


def tool_messages(history: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [m for m in history if m["role"] == "tool"]


def calls_in(history: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [call for m in history for call in (m.get("tool_calls") or [])]


def test_a_turn_runs_the_tool_with_the_models_arguments(spied: Any) -> None:
    """The tool runs with the arguments the model sent; its result goes back as a tool message with the call's id."""
    client, spy = spied
    chat = client.chat.session(model="chat-mini", tools=[get_weather])
    reply = chat("What is the weather in Paris?")
    (call,) = calls_in(chat.history)
    assert calls == [("get_weather", json.loads(call["function"]["arguments"]))]
    (tool_message,) = tool_messages(chat.history)
    assert tool_message["tool_call_id"] == call["id"]
    assert json.loads(tool_message["content"]) == {"city": calls[0][1]["city"], "temperature_c": 21}
    assert spy.bodies[1]["messages"][-1] == tool_message
    assert reply.choices[0].finish_reason == "stop" and reply.content
    assert chat.history[-1] == {"role": "assistant", "content": reply.content}


def test_the_loop_ends_when_the_model_answers(spied: Any) -> None:
    """One tool round and one answer: two requests, the second after the tool results."""
    client, spy = spied
    chat = client.chat.session(model="chat-mini", tools=[get_weather])
    chat("What is the weather in Oslo?")
    assert len(spy.bodies) == 2 and chat.requests == 2
    assert [m["role"] for m in chat.history] == ["user", "assistant", "tool", "assistant"]


def test_a_plain_question_takes_one_request(spied: Any) -> None:
    """When the model answers without calling tools, the turn is one request and no tool runs."""
    client, spy = spied
    chat = client.chat.session(model="chat-mini", tools=[get_weather])
    reply = chat("Tell me a story about dragons")
    assert len(spy.bodies) == 1 and calls == [] and reply.content
    assert spy.bodies[0]["tools"][0]["function"]["name"] == "get_weather"


def test_several_tool_calls_in_one_turn_all_run(spied: Any) -> None:
    """Two calls in one reply both run, each answered by a tool message carrying its own call id."""
    client, _ = spied
    chat = client.chat.session(model="chat-mini", tools=[get_weather, local_time])
    chat("What is the weather and the local time in Lima?")
    assert sorted(name for name, _ in calls) == ["get_weather", "local_time"]
    assert [m["tool_call_id"] for m in tool_messages(chat.history)] == [c["id"] for c in calls_in(chat.history)]


def test_a_failing_tool_sends_its_error_to_the_model(spied: Any) -> None:
    """An exception inside a tool becomes the tool message; the turn still ends with an answer."""
    client, spy = spied
    chat = client.chat.session(model="chat-mini", tools=[broken_weather])
    reply = chat("What is the weather in Quito?")
    (tool_message,) = tool_messages(chat.history)
    assert tool_message["content"].startswith("Error: RuntimeError: weather service down for")
    assert spy.bodies[-1]["messages"][-1] == tool_message and reply.content


def test_approve_can_refuse_a_call(spied: Any) -> None:
    """approve= sees the name and arguments; a refusal skips the tool and tells the model."""
    client, _ = spied
    asked: list[tuple[str, dict[str, Any]]] = []

    def approve(name: str, arguments: dict[str, Any]) -> bool:
        asked.append((name, arguments))
        return False

    chat = client.chat.session(model="chat-mini", tools=[get_weather], approve=approve)
    chat("What is the weather in Paris?")
    (call,) = calls_in(chat.history)
    assert asked == [("get_weather", json.loads(call["function"]["arguments"]))] and calls == []
    assert "did not approve" in tool_messages(chat.history)[0]["content"]


def test_approve_true_asks_on_the_console(spied: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """approve=True asks with input(); 'y' runs the tool."""
    client, _ = spied
    prompts: list[str] = []
    monkeypatch.setattr("builtins.input", lambda prompt: prompts.append(prompt) or "y")
    chat = client.chat.session(model="chat-mini", tools=[get_weather], approve=True)
    chat("What is the weather in Paris?")
    assert len(prompts) == 1 and prompts[0].startswith("Run tool get_weather(") and len(calls) == 1


def test_max_steps_ends_with_a_summary_request_and_a_note(spied: Any) -> None:
    """At max_steps the loop asks once more with tool_choice='none', and the turn says it stopped."""
    client, spy = spied
    events: list[gk.TurnEvent] = []
    chat = client.chat.session(model="chat-mini", tools=[get_weather], max_steps=1, on_event=events.append)
    reply = chat("What is the weather in Paris?")
    assert len(spy.bodies) == 2
    assert spy.bodies[1]["tool_choice"] == "none"
    assert spy.bodies[1]["messages"][-1] == {"role": "user", "content": LIMIT_PROMPT}
    assert "max_steps=1" in chat.turns[-1].note and reply.content
    assert [e.kind for e in events] == ["completion", "tool_call", "tool_result", "limit", "completion"]


def test_events_announce_each_step(spied: Any) -> None:
    """on_event receives the completion, each tool call, each result (with its status), then the answer."""
    client, _ = spied
    events: list[gk.TurnEvent] = []
    chat = client.chat.session(model="chat-mini", tools=[get_weather], on_event=events.append)
    chat("What is the weather in Paris?")
    assert [(e.kind, e.name, e.status) for e in events] == [
        ("completion", None, None), ("tool_call", "get_weather", None),
        ("tool_result", "get_weather", "ok"), ("completion", None, None),
    ]  # fmt: skip
    assert events[1].call_id == events[2].call_id and chat.turns[-1].events == events


def test_the_next_turn_sends_the_whole_history(spied: Any) -> None:
    """A second prompt is sent after the system message and every message of the first turn."""
    client, spy = spied
    chat = client.chat.session(model="chat-mini", system="Be brief.", tools=[get_weather])
    chat("What is the weather in Paris?")
    before = chat.history
    chat("Thanks, and tomorrow?")
    assert before[0] == {"role": "system", "content": "Be brief."}
    assert spy.bodies[-1]["messages"] == before + [{"role": "user", "content": "Thanks, and tomorrow?"}]


def test_history_is_a_copy_of_plain_dicts(spied: Any) -> None:
    """chat.history is plain JSON-ready dicts; changing it does not change the session."""
    client, _ = spied
    chat = client.chat.session(model="chat-mini")
    chat("Hello there")
    history = chat.history
    json.dumps(history)
    history.clear()
    assert len(chat.history) == 2


def test_cost_and_usage_equal_the_tagged_ledger_rows(spied: Any, ledger: gk.Ledger) -> None:
    """chat.cost and chat.usage sum exactly the ledger rows tagged with the conversation."""
    client, _ = spied
    chat = client.chat.session(model="chat-mini", tools=[get_weather])
    client.chat.completions.create(model="chat-mini", messages=[{"role": "user", "content": "untagged"}])
    chat("What is the weather in Paris?")
    chat("What is the weather in Rome?")
    rows = [row for row in ledger.rows if chat.tag in row["tags"]]
    assert len(rows) == chat.requests == 4 and len(ledger.rows) == 5
    assert chat.cost == pytest.approx(sum(row["total_cost"] for row in rows), abs=1e-12) and chat.cost > 0
    assert chat.usage.total_tokens == sum(row["total_tokens"] for row in rows)
    assert chat.usage.prompt_tokens == sum(row["prompt_tokens"] for row in rows)


def test_undo_drops_the_last_turn_with_its_tool_messages(spied: Any) -> None:
    """undo() removes the last prompt, its tool calls and results and the answer; the spend stays."""
    client, _ = spied
    chat = client.chat.session(model="chat-mini", tools=[get_weather])
    chat("Hello there")
    kept, cost = chat.history, None
    chat("What is the weather in Paris?")
    cost = chat.cost
    dropped = chat.undo()
    assert chat.history == kept and dropped is not None and len(dropped.messages) == 4
    assert chat.cost == cost
    assert chat.undo() is not None and chat.undo() is None and chat.history == []


def test_reset_starts_a_new_conversation(spied: Any) -> None:
    """reset() empties the history, zeroes the totals and takes a new ledger tag."""
    client, spy = spied
    chat = client.chat.session(model="chat-mini", system="Be brief.")
    chat("Hello there")
    tag = chat.tag
    chat.reset()
    assert chat.history == [{"role": "system", "content": "Be brief."}]
    assert chat.cost == 0 and chat.requests == 0 and chat.tag != tag
    chat("Hi again")
    assert spy.bodies[-1]["messages"] == [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hi again"}]


def test_images_join_the_prompt_as_parts(spied: Any) -> None:
    """images= adds one image_url part per image (bytes and PIL) after the text; a vision model answers."""
    from PIL import Image

    picture = Image.new("RGB", (32, 32), (200, 30, 30))
    buffer = io.BytesIO()
    picture.save(buffer, format="PNG")
    client, spy = spied
    chat = client.chat.session(model="chat-vision")
    reply = chat("What is in this picture?", images=[buffer.getvalue(), picture])
    content = spy.bodies[0]["messages"][-1]["content"]
    assert content[0] == {"type": "text", "text": "What is in this picture?"}
    assert [part["image_url"]["url"][:22] for part in content[1:]] == ["data:image/png;base64,"] * 2
    assert reply.content and chat.history[0]["content"] == content


def test_defaults_and_overrides_are_sent(spied: Any) -> None:
    """Session keywords go with every request; a turn's keywords override them for that turn only."""
    client, spy = spied
    chat = client.chat.session(model="chat-mini", temperature=0.2, max_tokens=50)
    chat("Hello there")
    chat("Hello again", temperature=0.9)
    chat("And again")
    assert [(b["temperature"], b["max_tokens"]) for b in spy.bodies] == [(0.2, 50), (0.9, 50), (0.2, 50)]


def test_without_a_display_requests_are_not_streamed(spied: Any, ledger: gk.Ledger) -> None:
    """With display=False there is nothing to stream to: plain requests; stream=True still streams."""
    client, spy = spied
    chat = client.chat.session(model="chat-mini")
    chat("Hello there")
    chat("Hello again", stream=True)
    assert ["stream" in body for body in spy.bodies] == [False, True]
    assert [row["kind"] for row in ledger.rows] == ["chat", "chat.stream"]


def test_in_a_terminal_turns_stream_to_the_terminal_display(emulator: Any, keys: Any, ledger: gk.Ledger) -> None:
    """Outside a kernel the default (terminal) display shows text as it arrives, so a turn's requests stream."""
    client, spy = spy_client(emulator, keys.acme, ledger)
    with client:
        client.chat.session(model="chat-mini")("Hello there")
    assert ["stream" in body for body in spy.bodies] == [True]


def test_display_shows_turns_tool_calls_and_cost_sanitised(spied: Any) -> None:
    """The rich display lists the messages, tool calls with results and the cost; model/tool text is escaped."""

    def get_snippet(city: str) -> str:
        """Get a weather snippet for a city."""
        return "<script>alert(1)</script> sunny"

    client, _ = spied
    chat = client.chat.session(model="chat-mini", tools=[get_snippet])
    chat("Get the weather snippet for Paris")
    bundle = chat._repr_mimebundle_()
    html = bundle["text/html"]
    assert "get_snippet" in html and "&lt;script&gt;" in html and "<script>" not in html
    assert "$" in html and "chat-mini" in html
    assert "get_snippet" in bundle["text/plain"] and "ChatSession chat-mini" in bundle["text/plain"]


@pytest.mark.parametrize(
    ("options", "error", "match"),
    [
        ({"max_steps": 0}, ValueError, "at least 1"),
        ({"max_steps": "3"}, TypeError, "whole number"),
        ({"tools": [42]}, TypeError, "Python function"),
        ({"tools": [get_weather, get_weather]}, ValueError, "unique"),
        ({"approve": "yes"}, TypeError, "approve="),
        ({"system": 3}, TypeError, "system="),
    ],
)
def test_bad_options_fail_before_sending(spied: Any, options: dict, error: type, match: str) -> None:
    """Bad session options raise a clear TypeError/ValueError and nothing is sent."""
    client, spy = spied
    with pytest.raises(error, match=match):
        client.chat.session(model="chat-mini", **options)
    assert spy.bodies == []


def test_a_prompt_that_is_not_text_fails_before_sending(spied: Any) -> None:
    """chat(42) is a TypeError; nothing is sent and the history stays empty."""
    client, spy = spied
    chat = client.chat.session(model="chat-mini")
    with pytest.raises(TypeError, match="prompt must be a string"):
        chat(42)
    assert spy.bodies == [] and chat.history == []


def test_a_failed_request_leaves_the_history_unchanged(spied: Any) -> None:
    """A gateway error during a turn raises it and commits nothing."""
    client, _ = spied
    chat = client.chat.session(model="chat-mini")
    with pytest.raises(gk.BadRequestError):
        chat("Hello", temperature=5)
    assert chat.history == [] and chat.turns == []


# -- a model that calls a tool the session does not have (canned answers through a MockTransport) --
def _answer(message: dict[str, Any], finish: str) -> dict[str, Any]:
    return {"id": "chatcmpl-x", "object": "chat.completion", "created": 1, "model": "m",
            "choices": [{"index": 0, "finish_reason": finish, "message": message}],
            "usage": {"prompt_tokens": 5, "completion_tokens": 5, "total_tokens": 10, "cost": {"total_cost": 0.001}}}  # fmt: skip


def test_an_unknown_tool_gets_an_error_message_not_a_crash() -> None:
    """A call of a tool the session lacks is answered with an error tool message; the loop goes on."""
    sent: list[dict[str, Any]] = []
    unknown = {"role": "assistant", "content": None, "tool_calls": [
        {"id": "call_9", "type": "function", "function": {"name": "launch_rocket", "arguments": "{}"}}]}

    def handler(request: httpx.Request) -> httpx.Response:
        sent.append(json.loads(request.content))
        reply = _answer(unknown, "tool_calls") if len(sent) == 1 else _answer({"role": "assistant", "content": "ok"}, "stop")
        return httpx.Response(200, json=reply)

    with gk.Client(api_key="sk-test-0000", base_url="http://gateway.test", validate=False, display=False, ledger=gk.Ledger(),
                   http_transport=httpx.MockTransport(handler)) as client:  # fmt: skip
        chat = client.chat.session(model="m", tools=[get_weather])
        reply = chat("Launch it")
    assert reply.content == "ok" and calls == []
    tool_message = sent[1]["messages"][-1]
    assert tool_message["tool_call_id"] == "call_9" and "no tool named 'launch_rocket'" in tool_message["content"]


def test_a_model_calling_tools_without_any_offered_gets_an_error_message() -> None:
    """A session without tools answers a stray tool call with an error tool message, then takes the answer."""
    sent: list[dict[str, Any]] = []
    stray = {"role": "assistant", "content": None, "tool_calls": [
        {"id": "call_3", "type": "function", "function": {"name": "search", "arguments": "{}"}}]}

    def handler(request: httpx.Request) -> httpx.Response:
        sent.append(json.loads(request.content))
        reply = _answer(stray, "tool_calls") if len(sent) == 1 else _answer({"role": "assistant", "content": "ok"}, "stop")
        return httpx.Response(200, json=reply)

    with gk.Client(api_key="sk-test-0000", base_url="http://gateway.test", validate=False, display=False, ledger=gk.Ledger(),
                   http_transport=httpx.MockTransport(handler)) as client:  # fmt: skip
        chat = client.chat.session(model="m")
        chat("Find it")
    assert "tools" not in sent[0] and len(sent) == 2
    assert sent[1]["messages"][-1]["tool_call_id"] == "call_3" and "no tool named 'search'" in sent[1]["messages"][-1]["content"]


def test_calls_after_the_limit_are_answered_but_not_run() -> None:
    """A model that still calls tools in the summary request: its calls get 'not run' messages, none runs."""
    sent: list[dict[str, Any]] = []
    call = {"role": "assistant", "content": None, "tool_calls": [
        {"id": "call_7", "type": "function", "function": {"name": "get_weather", "arguments": '{"city": "Oslo"}'}}]}

    def handler(request: httpx.Request) -> httpx.Response:
        sent.append(json.loads(request.content))
        return httpx.Response(200, json=_answer(call, "tool_calls"))

    with gk.Client(api_key="sk-test-0000", base_url="http://gateway.test", validate=False, display=False, ledger=gk.Ledger(),
                   http_transport=httpx.MockTransport(handler)) as client:  # fmt: skip
        chat = client.chat.session(model="m", tools=[get_weather], max_steps=2)
        chat("Weather?")
    assert len(sent) == 3 and sent[-1]["tool_choice"] == "none" and len(calls) == 2
    history = chat.history
    assert history[-1]["role"] == "tool" and history[-1]["content"].startswith("Not run")
    answered = {m["tool_call_id"] for m in history if m["role"] == "tool"}
    assert len([m for m in history if m["role"] == "tool"]) == len(calls_in(history)) == 3 and answered == {"call_7"}


def test_a_sync_session_runs_async_tools(spied: Any) -> None:
    """An async def tool works in the blocking session too (run on a worker thread's loop)."""

    async def get_weather_async(city: str) -> str:
        """Get the current weather for a city."""
        return f"sunny in {city}"

    client, _ = spied
    chat = client.chat.session(model="chat-mini", tools=[get_weather_async])
    chat("What is the weather in Paris?")
    assert tool_messages(chat.history)[0]["content"].startswith("sunny in ")
