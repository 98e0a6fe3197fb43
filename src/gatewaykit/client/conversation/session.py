"""Conversations: ``client.chat.session(...)`` gives a :class:`ChatSession` (``AsyncChatSession`` for ``AsyncClient``).

A session owns its history, sends it with each new prompt, runs the model's tool calls until the
model answers or ``max_steps`` runs out, and records every request in the client's ledger under its
tag, so ``chat.cost`` is what the conversation cost. Details: ``docs/internals.md``.
"""

from __future__ import annotations

import inspect
import json
from typing import Any, Optional, cast

from gatewaykit.client.conversation.state import SessionState
from gatewaykit.client.core import observation
from gatewaykit.client.core.display import NullDisplay, TurnView, turn_view_of
from gatewaykit.client.conversation.tool_loop import RunTools, Turn, TurnEvent, turn_flow
from gatewaykit.client.resources.structured import Ask
from gatewaykit.client.conversation.tools import ToolCallOutcome, Toolbox, error_text, result_text
from gatewaykit.types import ChatCompletion

__all__ = ["AsyncChatSession", "ChatSession", "show_live", "show_live_async"]


# -- the live view: the client's display (``Client(display=...)``), the same one ``client.chat.ask`` uses --
def live_view_available(client: Any) -> bool:
    """Whether requests should stream to a live view (the client has a display that shows something)."""
    return not isinstance(client.display, NullDisplay)


def show_live(client: Any, stream: Any) -> ChatCompletion:
    """Read a ``ChatStream`` to its end through the client's display; the completion."""
    return cast(ChatCompletion, client.display.chat_stream(stream))


async def show_live_async(client: Any, stream: Any) -> ChatCompletion:
    return cast(ChatCompletion, await client.display.async_chat_stream(stream))


def _announcer(view: TurnView, on_event: Any) -> Any:
    """The turn's ``on_event``: the view hears each step first, then the user's callback."""

    def announce(event: TurnEvent) -> None:
        view.event(event)
        if on_event is not None:
            on_event(event)

    return announce


def _raw_arguments(call: Any) -> dict[str, Any]:
    try:
        value = json.loads(call.function.arguments or "{}")
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def _ok(call: Any, value: Any) -> ToolCallOutcome:
    return ToolCallOutcome(call.id or "", call.function.name or "", call.function.arguments or "", result_text(value), "ok")


def _failed(call: Any, exc: BaseException) -> ToolCallOutcome:
    return ToolCallOutcome(call.id or "", call.function.name or "", call.function.arguments or "", error_text(exc), "error")


def _run_coroutine(coroutine: Any) -> Any:
    """Run an ``async def`` tool from the sync session (in a fresh loop on a worker thread: a notebook's loop runs)."""
    import asyncio
    import concurrent.futures

    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


class ChatSession(SessionState):
    """A conversation with one model: ``reply = chat("...")``; see ``client.chat.session``."""

    def __call__(self, prompt: Any, *, images: Any = None, **overrides: Any) -> ChatCompletion:
        """Send the history plus this prompt; run tool calls until the model answers; the turn's last completion."""
        message, fields = self._prepare_turn(prompt, images, overrides)
        view = turn_view_of(self._client.display)
        flow = turn_flow(self._history(), message, fields, tools=self._toolbox.definitions(),
                         max_steps=self.max_steps, on_event=_announcer(view, self.on_event))  # fmt: skip
        try:
            turn = self._drive(flow, view=view)
        except BaseException as error:
            view.close(error)
            raise
        view.close()
        self._commit(turn)
        return turn.reply  # type: ignore[return-value]

    def parse(self, prompt: Any, response_format: Any, *, images: Any = None, retries: int = 0, **overrides: Any) -> Any:
        """Ask for a reply matching ``response_format`` (a pydantic model); the validated instance.

        The prompt and the valid reply stay in the history; a reply that does not
        validate (after ``retries`` re-asks) raises :class:`gatewaykit.StructuredOutputError`.
        """
        message, fields, flow = self._prepare_parse(prompt, response_format, images, retries, overrides)
        turn = Turn(messages=[message])
        completion = self._drive(flow, turn)
        return self._commit_parsed(turn, completion)

    # -- the driver -------------------------------------------------------------------
    def _drive(self, flow: Any, turn: Optional[Turn] = None, view: Optional[TurnView] = None) -> Any:
        with self._tagged(), observation.operation("chat_session", model=self.model):
            try:
                command = next(flow)
                while True:
                    if isinstance(command, Ask):
                        answer: Any = self._ask(command, view)
                        if turn is not None:
                            turn.completions.append(answer)
                    elif isinstance(command, RunTools):
                        answer = []
                        for call in command.calls:
                            answer.append(self._run_tool(call))
                            command.finished(answer[-1])
                    else:  # pragma: no cover - the flows yield only these
                        raise TypeError(f"unexpected command {command!r}")
                    command = flow.send(answer)
            except StopIteration as stop:
                return stop.value

    def _ask(self, command: Ask, view: Optional[TurnView]) -> ChatCompletion:
        fields = dict(command.fields)
        stream = fields.pop("stream", None)
        if stream is None:
            stream = live_view_available(self._client)
        result = self._client.chat.completions.create(
            model=self.model, messages=command.messages, stream=stream, **fields
        )
        if not stream:
            completion = result
        elif view is not None:
            completion = view.chat_stream(result)
        else:
            completion = show_live(self._client, result)
        self._spent(completion)
        return completion

    def _run_tool(self, call: Any) -> ToolCallOutcome:
        tool, prepared = self._toolbox.prepare(call)
        if tool is None:
            return prepared
        if self._approve is not None:
            try:
                allowed = self._approve(tool.name, _raw_arguments(call))
            except Exception as exc:  # noqa: BLE001 - a failing approval refuses, it never loses the turn
                return _failed(call, exc)
            if not allowed:
                return Toolbox.refused(call)
        try:
            with observation.tool_call(tool.name, _call_id(call)):
                value = tool.function(**prepared)
                if inspect.isawaitable(value):
                    value = _run_coroutine(value)
        except Exception as exc:  # noqa: BLE001 - the model reads the error as the tool message
            return _failed(call, exc)
        return _ok(call, value)


class AsyncChatSession(SessionState):
    """The conversation for :class:`gatewaykit.AsyncClient`: ``reply = await chat("...")``."""

    _client_type = "AsyncClient"

    async def __call__(self, prompt: Any, *, images: Any = None, **overrides: Any) -> ChatCompletion:
        """Send the history plus this prompt; run tool calls (concurrently) until the model answers."""
        message, fields = self._prepare_turn(prompt, images, overrides)
        view = turn_view_of(self._client.display)
        flow = turn_flow(self._history(), message, fields, tools=self._toolbox.definitions(),
                         max_steps=self.max_steps, on_event=_announcer(view, self.on_event))  # fmt: skip
        try:
            turn = await self._drive(flow, view=view)
        except BaseException as error:
            view.close(error)
            raise
        view.close()
        self._commit(turn)
        return turn.reply  # type: ignore[return-value]

    async def parse(
        self, prompt: Any, response_format: Any, *, images: Any = None, retries: int = 0, **overrides: Any
    ) -> Any:
        """Ask for a reply matching ``response_format``; ``await`` the validated instance."""
        message, fields, flow = self._prepare_parse(prompt, response_format, images, retries, overrides)
        turn = Turn(messages=[message])
        completion = await self._drive(flow, turn)
        return self._commit_parsed(turn, completion)

    async def _drive(self, flow: Any, turn: Optional[Turn] = None, view: Optional[TurnView] = None) -> Any:
        import asyncio  # loaded with the first async turn, not with gatewaykit

        with self._tagged(), observation.operation("chat_session", model=self.model):
            try:
                command = next(flow)
                while True:
                    if isinstance(command, Ask):
                        answer: Any = await self._ask(command, view)
                        if turn is not None:
                            turn.completions.append(answer)
                    elif isinstance(command, RunTools):
                        answer = list(await asyncio.gather(*(self._run_and_report(call, command.finished)
                                                             for call in command.calls)))  # fmt: skip
                    else:  # pragma: no cover
                        raise TypeError(f"unexpected command {command!r}")
                    command = flow.send(answer)
            except StopIteration as stop:
                return stop.value

    async def _ask(self, command: Ask, view: Optional[TurnView]) -> ChatCompletion:
        fields = dict(command.fields)
        stream = fields.pop("stream", None)
        if stream is None:
            stream = live_view_available(self._client)
        result = await self._client.chat.completions.create(
            model=self.model, messages=command.messages, stream=stream, **fields
        )
        if not stream:
            completion = result
        elif view is not None:
            completion = await view.async_chat_stream(result)
        else:
            completion = await show_live_async(self._client, result)
        self._spent(completion)
        return completion

    async def _run_and_report(self, call: Any, finished: Any) -> ToolCallOutcome:
        outcome = await self._run_tool(call)
        finished(outcome)
        return outcome

    async def _run_tool(self, call: Any) -> ToolCallOutcome:
        import asyncio

        tool, prepared = self._toolbox.prepare(call)
        if tool is None:
            return prepared
        if self._approve is not None:
            try:
                if inspect.iscoroutinefunction(self._approve):
                    allowed = await self._approve(tool.name, _raw_arguments(call))
                else:  # a console prompt must not block the event loop
                    allowed = await asyncio.to_thread(self._approve, tool.name, _raw_arguments(call))
            except Exception as exc:  # noqa: BLE001
                return _failed(call, exc)
            if not allowed:
                return Toolbox.refused(call)
        try:
            with observation.tool_call(tool.name, _call_id(call)):
                if tool.is_async:
                    value = await tool.function(**prepared)
                else:
                    value = await asyncio.to_thread(tool.function, **prepared)
        except Exception as exc:  # noqa: BLE001
            return _failed(call, exc)
        return _ok(call, value)


def _call_id(call: Any) -> Any:
    """A tool call's id, whether the call is a dict (from the history) or a typed tool call."""
    return call.get("id") if isinstance(call, dict) else getattr(call, "id", None)
