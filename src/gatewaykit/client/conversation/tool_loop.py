"""One conversation turn as a sans-I/O flow: ask the model, run its tool calls, ask again, until it answers.

:func:`turn_flow` is a generator written once and driven by the sync and the
async session (like the client's retry flows). It yields two kinds of command:

:class:`Ask`        send these messages (with these fields); the driver sends back the ``ChatCompletion``;
:class:`RunTools`   run these tool calls, calling ``finished(outcome)`` as each one ends (so its
                    result is announced at once); the driver sends back the outcomes in call order.

It returns the finished :class:`Turn`. Each step is announced as a
:class:`TurnEvent` (``on_event`` callback and ``turn.events``), so a display can
show tool calls and results as they happen without the loop knowing about it.
A turn that runs out of ``max_steps`` while the model still calls tools gets
one last request with ``tool_choice="none"`` asking for a summary, and a note.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Generator, Optional

from gatewaykit.client.conversation.tools import ToolCallOutcome
from gatewaykit.client.resources.structured import Ask
from gatewaykit.types import ChatCompletion

__all__ = ["LIMIT_PROMPT", "Ask", "RunTools", "Turn", "TurnEvent", "assistant_message", "turn_flow"]

LIMIT_PROMPT = (
    "You have reached the limit of tool calls for this turn. Do not call any more tools: "
    "answer now with what you have, and say what is still missing."
)

NOT_RUN = "Not run: this turn reached its limit of tool steps."


@dataclass
class TurnEvent:
    """One step of a turn, for displays: ``kind`` is ``completion``, ``tool_call``, ``tool_result`` or ``limit``."""

    kind: str
    step: int
    completion: Optional[ChatCompletion] = None
    call_id: Optional[str] = None
    name: Optional[str] = None
    arguments: Optional[str] = None
    content: Optional[str] = None
    status: Optional[str] = None  # tool results: ok | error | refused | unknown


@dataclass
class Turn:
    """One user turn: its messages (the prompt, assistant replies, tool messages), completions and events."""

    messages: list[dict[str, Any]]
    completions: list[ChatCompletion] = field(default_factory=list)
    events: list[TurnEvent] = field(default_factory=list)
    note: str = ""

    @property
    def reply(self) -> Optional[ChatCompletion]:
        """The turn's last completion (the answer)."""
        return self.completions[-1] if self.completions else None


@dataclass
class RunTools:
    calls: list[Any]
    finished: Callable[[ToolCallOutcome], None]


def _unknown_fields(model: Any) -> dict[str, Any]:
    """The fields of a provider's object that gatewaykit does not model (None values left out)."""
    extra = getattr(model, "model_extra", None) or {}
    return {name: value for name, value in extra.items() if value is not None}


def _tool_call_entry(call: Any) -> dict[str, Any]:
    function = {**_unknown_fields(call.function), "name": call.function.name, "arguments": call.function.arguments}
    return {**_unknown_fields(call), "id": call.id, "type": call.type or "function", "function": function}


def assistant_message(completion: ChatCompletion) -> dict[str, Any]:
    """The first choice's message as a history entry: role, content, tool calls (with their reasoning details).

    Fields gatewaykit does not know go back as they came, on the message and on each tool call: Gemini's
    ``extra_content.google.thought_signature`` must return with its tool call, or the next request fails.
    """
    message = completion.choices[0].message if completion.choices else None
    entry: dict[str, Any] = _unknown_fields(message)
    entry.update(role="assistant", content=message.content if message is not None else "")
    if message is not None and message.tool_calls and message.reasoning_details:
        # Some providers need the reasoning of a tool-calling reply back with the tool results.
        entry["reasoning_details"] = [detail.model_dump(exclude_none=True) for detail in message.reasoning_details]
    if message is not None and message.tool_calls:
        entry["tool_calls"] = [_tool_call_entry(call) for call in message.tool_calls]
    return entry


TurnFlow = Generator[Any, Any, Turn]


def turn_flow(
    history: list[dict[str, Any]],
    prompt_message: dict[str, Any],
    fields: dict[str, Any],
    *,
    tools: list[dict[str, Any]],
    max_steps: int,
    on_event: Optional[Callable[[TurnEvent], Any]] = None,
) -> TurnFlow:
    """Drive with the session's driver; ``history`` is not changed (the session commits the turn)."""
    turn = Turn(messages=[prompt_message])

    def announce(event: TurnEvent) -> None:
        turn.events.append(event)
        if on_event is not None:
            on_event(event)

    request_fields = dict(fields)
    if tools:
        request_fields["tools"] = tools
    for step in range(1, max_steps + 1):
        completion = yield Ask(history + turn.messages, request_fields)
        turn.completions.append(completion)
        announce(TurnEvent("completion", step, completion=completion))
        message = assistant_message(completion)
        turn.messages.append(message)
        calls = _calls_of(completion)
        if not calls:
            return turn
        for call in calls:
            announce(TurnEvent("tool_call", step, call_id=call.id, name=call.function.name,
                               arguments=call.function.arguments))  # fmt: skip

        def finished(outcome: ToolCallOutcome, step: int = step) -> None:
            announce(TurnEvent("tool_result", step, call_id=outcome.call_id, name=outcome.name,
                               arguments=outcome.arguments, content=outcome.content, status=outcome.status))

        outcomes: list[ToolCallOutcome] = yield RunTools(calls, finished)
        turn.messages.extend(outcome.message() for outcome in outcomes)
    turn.note = f"stopped after max_steps={max_steps}: the model was still calling tools; it was asked to answer"
    announce(TurnEvent("limit", max_steps, content=turn.note))
    turn.messages.append({"role": "user", "content": LIMIT_PROMPT})
    completion = yield Ask(history + turn.messages, {**request_fields, "tool_choice": "none"})
    turn.completions.append(completion)
    announce(TurnEvent("completion", max_steps + 1, completion=completion))
    turn.messages.append(assistant_message(completion))
    for call in _calls_of(completion):  # a model that ignores tool_choice="none": answer its calls, run none
        turn.messages.append(ToolCallOutcome(call.id or "", call.function.name or "", call.function.arguments or "",
                                             NOT_RUN, "refused").message())  # fmt: skip
    return turn


def _calls_of(completion: ChatCompletion) -> list[Any]:
    return list(completion.choices[0].message.tool_calls or []) if completion.choices else []
