"""AsyncClient conversations: ``await chat(...)``, async and sync tools, concurrency, limits, cost."""

from __future__ import annotations

import asyncio
import json
import threading
from typing import Any, Awaitable, Callable

import pytest

import gatewaykit as gk
from gatewaykit.client.conversation.tool_loop import LIMIT_PROMPT

from .spying import AsyncSpyTransport, async_spy_client


def run(emulator: Any, keys: Any, body: Callable[[gk.AsyncClient, AsyncSpyTransport, gk.Ledger], Awaitable[Any]]) -> Any:
    ledger = gk.Ledger()

    async def main() -> Any:
        client, spy = async_spy_client(emulator, keys.acme, ledger)
        async with client:
            return await body(client, spy, ledger)

    return asyncio.run(main())


def test_async_client_gives_an_async_session(emulator: Any, keys: Any) -> None:
    """aclient.chat.session() is an AsyncChatSession whose call is awaited for the turn's completion."""

    async def body(client: gk.AsyncClient, spy: AsyncSpyTransport, ledger: gk.Ledger) -> Any:
        chat = client.chat.session(model="chat-mini", system="Be brief.")
        assert isinstance(chat, gk.AsyncChatSession)
        reply = await chat("Hello there")
        assert isinstance(reply, gk.ChatCompletion) and reply.content
        assert chat.history[-1] == {"role": "assistant", "content": reply.content}

    run(emulator, keys, body)


def test_async_tools_are_awaited_with_the_models_arguments(emulator: Any, keys: Any) -> None:
    """An async def tool is awaited with the model's arguments; its result returns under the call's id."""
    seen: list[dict[str, Any]] = []

    async def get_weather(city: str) -> dict:
        """Get the current weather for a city."""
        await asyncio.sleep(0)
        seen.append({"city": city})
        return {"city": city, "sky": "clear"}

    async def body(client: gk.AsyncClient, spy: AsyncSpyTransport, ledger: gk.Ledger) -> Any:
        chat = client.chat.session(model="chat-mini", tools=[get_weather])
        reply = await chat("What is the weather in Paris?")
        history = chat.history
        call = history[1]["tool_calls"][0]
        assert seen == [json.loads(call["function"]["arguments"])]
        assert history[2] == {"role": "tool", "tool_call_id": call["id"], "content": json.dumps(
            {"city": seen[0]["city"], "sky": "clear"}, separators=(",", ":"))}
        assert spy.bodies[1]["messages"][-1] == history[2] and reply.content and len(spy.bodies) == 2

    run(emulator, keys, body)


def test_sync_tools_run_in_a_worker_thread(emulator: Any, keys: Any) -> None:
    """A plain def tool runs off the event loop's thread."""
    threads: list[int] = []

    def get_weather(city: str) -> str:
        """Get the current weather for a city."""
        threads.append(threading.get_ident())
        return "sunny"

    async def body(client: gk.AsyncClient, spy: AsyncSpyTransport, ledger: gk.Ledger) -> Any:
        chat = client.chat.session(model="chat-mini", tools=[get_weather])
        await chat("What is the weather in Paris?")
        assert len(threads) == 1 and threads[0] != threading.get_ident()
        assert chat.history[2]["content"] == "sunny"

    run(emulator, keys, body)


def test_a_turns_tool_calls_run_concurrently(emulator: Any, keys: Any) -> None:
    """Two async tools of one reply run at the same time (each waits for the other to start)."""
    events: dict[str, asyncio.Event] = {}

    async def get_weather(city: str) -> str:
        """Get the current weather for a city."""
        events["weather"].set()
        await asyncio.wait_for(events["time"].wait(), 5)
        return "sunny"

    async def local_time(city: str) -> str:
        """Get the local time in a city."""
        events["time"].set()
        await asyncio.wait_for(events["weather"].wait(), 5)
        return "noon"

    async def body(client: gk.AsyncClient, spy: AsyncSpyTransport, ledger: gk.Ledger) -> Any:
        events.update(weather=asyncio.Event(), time=asyncio.Event())
        chat = client.chat.session(model="chat-mini", tools=[get_weather, local_time])
        await chat("What is the weather and the local time in Lima?")
        assert sorted(m["content"] for m in chat.history if m["role"] == "tool") == ["noon", "sunny"]

    run(emulator, keys, body)


def test_async_failing_tool_and_refusal_reach_the_model(emulator: Any, keys: Any) -> None:
    """A raising tool and a refused call both become tool messages; the turn ends with an answer."""

    async def get_weather(city: str) -> str:
        """Get the current weather for a city."""
        raise ValueError("no such city")

    def local_time(city: str) -> str:
        """Get the local time in a city."""
        raise AssertionError("refused calls never run")

    async def approve(name: str, arguments: dict[str, Any]) -> bool:
        return name != "local_time"

    async def body(client: gk.AsyncClient, spy: AsyncSpyTransport, ledger: gk.Ledger) -> Any:
        chat = client.chat.session(model="chat-mini", tools=[get_weather, local_time], approve=approve)
        reply = await chat("What is the weather and the local time in Lima?")
        by_name = {c["id"]: c["function"]["name"] for c in chat.history[1]["tool_calls"]}
        results = {by_name[m["tool_call_id"]]: m["content"] for m in chat.history if m["role"] == "tool"}
        assert results["get_weather"] == "Error: ValueError: no such city"
        assert "did not approve" in results["local_time"] and reply.content

    run(emulator, keys, body)


def test_async_max_steps_asks_for_a_summary(emulator: Any, keys: Any) -> None:
    """At max_steps the async loop also sends one last request with tool_choice='none'."""

    def get_weather(city: str) -> str:
        """Get the current weather for a city."""
        return "sunny"

    async def body(client: gk.AsyncClient, spy: AsyncSpyTransport, ledger: gk.Ledger) -> Any:
        chat = client.chat.session(model="chat-mini", tools=[get_weather], max_steps=1)
        await chat("What is the weather in Paris?")
        assert spy.bodies[-1]["tool_choice"] == "none"
        assert spy.bodies[-1]["messages"][-1] == {"role": "user", "content": LIMIT_PROMPT}
        assert chat.turns[-1].note

    run(emulator, keys, body)


def test_async_cost_equals_the_tagged_ledger_rows(emulator: Any, keys: Any) -> None:
    """The async session's cost and tokens equal its tagged ledger rows."""

    def get_weather(city: str) -> str:
        """Get the current weather for a city."""
        return "sunny"

    async def body(client: gk.AsyncClient, spy: AsyncSpyTransport, ledger: gk.Ledger) -> Any:
        chat = client.chat.session(model="chat-mini", tools=[get_weather])
        await chat("What is the weather in Paris?")
        await chat("Hello there")
        rows = [row for row in ledger.rows if chat.tag in row["tags"]]
        assert len(rows) == chat.requests == 3
        assert chat.cost == pytest.approx(sum(r["total_cost"] for r in rows), abs=1e-12) and chat.cost > 0
        assert chat.usage.total_tokens == sum(r["total_tokens"] for r in rows)

    run(emulator, keys, body)


def test_async_undo_and_images(emulator: Any, keys: Any) -> None:
    """undo() drops the last turn; images= become image parts in the async session too."""
    import io

    from PIL import Image

    buffer = io.BytesIO()
    Image.new("RGB", (16, 16), (20, 120, 220)).save(buffer, format="PNG")
    png = buffer.getvalue()

    async def body(client: gk.AsyncClient, spy: AsyncSpyTransport, ledger: gk.Ledger) -> Any:
        chat = client.chat.session(model="chat-vision")
        await chat("Hello there")
        await chat("What is in this picture?", images=png)
        assert spy.bodies[-1]["messages"][-1]["content"][1]["type"] == "image_url"
        chat.undo()
        assert [m["role"] for m in chat.history] == ["user", "assistant"]

    run(emulator, keys, body)


def test_each_tool_result_is_announced_when_it_finishes(emulator: Any, keys: Any) -> None:
    """A quick tool's result event arrives while a slower tool of the same reply is still running."""
    order: list[str] = []

    async def get_weather(city: str) -> str:
        """Get the current weather for a city."""
        order.append("weather done")
        return "sunny"

    async def local_time(city: str) -> str:
        """Get the local time in a city."""
        for _ in range(20):
            await asyncio.sleep(0)
        order.append("time done")
        return "noon"

    def on_event(event: gk.TurnEvent) -> None:
        if event.kind == "tool_result":
            order.append(f"event {event.name}")

    async def body(client: gk.AsyncClient, spy: AsyncSpyTransport, ledger: gk.Ledger) -> Any:
        chat = client.chat.session(model="chat-mini", tools=[get_weather, local_time], on_event=on_event)
        await chat("What is the weather and the local time in Lima?")
        assert order == ["weather done", "event get_weather", "time done", "event local_time"]

    run(emulator, keys, body)
