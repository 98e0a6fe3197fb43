"""Assembling streamed chunks into the :class:`ChatCompletion` they add up to.

Pure data work, no I/O: content, ``reasoning`` and refusals are concatenated,
``reasoning_details`` merged by ``index`` (their text concatenated), tool calls
merged by ``index`` (the first fragment brings ``id`` and ``function.name``,
later ones append ``function.arguments``; fields gatewaykit does not model, such as
Gemini's ``extra_content``, are kept), one state per choice index (``n``),
the last non-null ``finish_reason``, and the ``usage`` of the final chunk.
"""

from __future__ import annotations

from typing import Any, Optional

from gatewaykit.types import ChatCompletion, ChatCompletionChunk

__all__ = ["ChatAssembler"]

_TEXT_ONLY = {"content"}  # the fields a delta of plain text was given


class _ChoiceState:
    __slots__ = ("content", "reasoning", "refusal", "role", "finish_reason", "tool_calls", "details", "logprobs")

    def __init__(self) -> None:
        self.content: list[str] = []
        self.reasoning: list[str] = []
        self.refusal: list[str] = []
        self.role: Optional[str] = None
        self.finish_reason: Optional[str] = None
        self.tool_calls: dict[int, dict[str, Any]] = {}
        self.details: list[dict[str, Any]] = []
        self.logprobs: list[dict[str, Any]] = []

    def message(self) -> dict[str, Any]:
        message: dict[str, Any] = {"role": self.role or "assistant"}
        message["content"] = "".join(self.content) if self.content else (None if self.tool_calls else "")
        if self.reasoning:
            message["reasoning"] = "".join(self.reasoning)
        if self.details:
            message["reasoning_details"] = self.details
        if self.refusal:
            message["refusal"] = "".join(self.refusal)
        if self.tool_calls:
            message["tool_calls"] = [self.tool_calls[i] for i in sorted(self.tool_calls)]
        return message


class ChatAssembler:
    """Feed chunks with :meth:`add`; :meth:`result` gives the completion so far."""

    __slots__ = ("id", "created", "model", "usage", "extra", "_choices", "count")

    def __init__(self) -> None:
        self.id: Optional[str] = None
        self.created = 0
        self.model: Optional[str] = None
        self.usage: Any = None
        self.extra: dict[str, Any] = {}
        self._choices: dict[int, _ChoiceState] = {}
        self.count = 0

    def add(self, chunk: ChatCompletionChunk) -> None:
        self.count += 1
        if not self.id:  # Azure's first chunk (prompt filter results) has an empty id and no choices
            self.id = chunk.id or None
        if not self.created:
            self.created = chunk.created
        if not self.model:
            self.model = chunk.model or None
        for choice in chunk.choices:
            state = self._choices.get(choice.index)
            if state is None:
                state = self._choices[choice.index] = _ChoiceState()
            delta = choice.delta
            if delta.__pydantic_fields_set__ == _TEXT_ONLY and choice.finish_reason is None and choice.logprobs is None:
                if delta.content:  # nearly every chunk: a piece of text, nothing else to look at
                    state.content.append(delta.content)
                continue
            if delta.content:
                state.content.append(delta.content)
            if delta.reasoning:
                state.reasoning.append(delta.reasoning)
            if delta.role:
                state.role = delta.role
            if delta.tool_calls:
                _merge_tool_calls(state.tool_calls, delta.tool_calls)
            if delta.reasoning_details:
                _merge_details(state.details, delta.reasoning_details)
            if delta.refusal:
                state.refusal.append(delta.refusal)
            if choice.finish_reason:
                state.finish_reason = choice.finish_reason
            if choice.logprobs is not None and choice.logprobs.content:
                state.logprobs.extend(choice.logprobs.content)
        if chunk.usage is not None:
            self.usage = chunk.usage
        extra = chunk.__pydantic_extra__
        if extra:
            self.extra.update(extra)

    def add_text(self, index: int, text: str) -> None:
        """Add a chunk of text alone to choice ``index``, after a chunk to that choice was added: what
        :meth:`add` does with a chunk that repeats an added one (same id, model, ...) but for its text."""
        self.count += 1
        self._choices[index].content.append(text)

    def finished(self) -> bool:
        """Every choice has its ``finish_reason`` (a server that ends the stream without ``[DONE]``)."""
        return bool(self._choices) and all(state.finish_reason for state in self._choices.values())

    def result(self) -> ChatCompletion:
        choices = []
        for index in sorted(self._choices):
            state = self._choices[index]
            choice: dict[str, Any] = {
                "index": index,
                "finish_reason": state.finish_reason,
                "message": state.message(),
            }
            if state.logprobs:
                choice["logprobs"] = {"content": state.logprobs}
            choices.append(choice)
        data: dict[str, Any] = dict(self.extra)
        data.update(
            id=self.id or "",
            object="chat.completion",
            created=self.created,
            model=self.model,
            choices=choices,
            usage=self.usage,
        )
        return ChatCompletion.model_validate(data)


_CALL_KEYS = ("id", "type", "function")


def _merge_tool_calls(calls: dict[int, dict[str, Any]], fragments: list[Any]) -> None:
    for position, fragment in enumerate(fragments):
        index = fragment.index if fragment.index is not None else position
        call = calls.get(index)
        function = fragment.function
        if call is None:
            calls[index] = call = {
                "id": fragment.id,
                "type": fragment.type or "function",
                "function": {"name": function.name, "arguments": function.arguments or ""},
            }
            if fragment.__pydantic_extra__:  # Gemini's extra_content (a thought signature): kept, to be sent back
                call.update({k: v for k, v in fragment.__pydantic_extra__.items() if v is not None and k not in call})
            continue
        if fragment.__pydantic_extra__:
            call.update({k: v for k, v in fragment.__pydantic_extra__.items() if v is not None and k not in _CALL_KEYS})
        if fragment.id and not call["id"]:
            call["id"] = fragment.id
        if function.name and not call["function"]["name"]:
            call["function"]["name"] = function.name
        if function.arguments:
            call["function"]["arguments"] += function.arguments


_CONCATENATED = ("text", "summary")


def _merge_details(details: list[dict[str, Any]], fragments: list[Any]) -> None:
    for fragment in fragments:
        item = fragment.model_dump(exclude_none=True)
        index = item.get("index")
        target = None
        if index is not None:
            for existing in details:
                if existing.get("index") == index and existing.get("type") == item.get("type", existing.get("type")):
                    target = existing
                    break
        if target is None:
            details.append(item)
            continue
        for key, value in item.items():
            if key in _CONCATENATED and isinstance(value, str) and isinstance(target.get(key), str):
                target[key] += value
            elif value is not None:
                target[key] = value
