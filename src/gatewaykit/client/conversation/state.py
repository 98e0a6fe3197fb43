"""What a conversation keeps, shared by the sync and async sessions: history, turns, cost, transcripts.

No I/O here: the sessions in :mod:`gatewaykit.client.conversation.session` send; this
class checks the options, builds each turn's first message and request fields,
commits finished turns, and answers ``history``, ``cost``, ``usage``,
``reset()``, ``undo()``, the transcripts and the rich display.
"""

from __future__ import annotations

import contextlib
import copy
import math
import os
from pathlib import Path
from typing import Any, Callable, Iterator, Optional, Union

from gatewaykit.client.resources.media_inputs import image_part
from gatewaykit.client.resources.structured import OutputSchema, check_retries, parse_flow, supports_strict
from gatewaykit.client.conversation.tool_loop import LIMIT_PROMPT, Turn, TurnEvent, assistant_message
from gatewaykit.client.conversation.tools import Toolbox, approval_of
from gatewaykit.presentation import rich_bundle
from gatewaykit.types import ChatCompletion, Cost, Usage
from gatewaykit.types.replayed import not_charged
from gatewaykit.money import format_usd

__all__ = ["SessionState"]


def _check_max_steps(max_steps: Any) -> int:
    if isinstance(max_steps, bool) or not isinstance(max_steps, int):
        raise TypeError(f"max_steps= must be a whole number >= 1, not {max_steps!r}")
    if max_steps < 1:
        raise ValueError(f"max_steps= must be at least 1 (one request to the model per step), not {max_steps}")
    return max_steps


def prompt_message(prompt: Any, images: Any) -> dict[str, Any]:
    """The user message of a turn: text, or text parts followed by one image part per image."""
    if isinstance(prompt, str):
        parts: list[Any] = [{"type": "text", "text": prompt}]
    elif isinstance(prompt, list):
        parts = list(prompt)
    else:
        raise TypeError(f"The prompt must be a string (or a list of content parts), not {type(prompt).__name__}")
    if images is None:
        return {"role": "user", "content": prompt if isinstance(prompt, str) else parts}
    if not isinstance(images, (list, tuple)):
        images = [images]
    return {"role": "user", "content": parts + [image_part(image) for image in images]}


class SessionState:
    """History, turns and spend of one conversation (the sessions add sending)."""

    _client_type = "Client"  # what from_markdown() builds without client= (a name in gatewaykit.client)

    def __init__(
        self,
        client: Any,
        *,
        model: Optional[str] = None,
        system: Optional[str] = None,
        tools: Any = (),
        max_steps: int = 8,
        approve: Any = None,
        on_event: Optional[Callable[[TurnEvent], Any]] = None,
        **defaults: Any,
    ) -> None:
        if system is not None and not isinstance(system, str):
            raise TypeError(f"system= must be a string, not {type(system).__name__}")
        if on_event is not None and not callable(on_event):
            raise TypeError("on_event= takes a callable that receives each TurnEvent")
        for name in ("messages", "tools"):
            if name in defaults:
                raise TypeError(f"{name}= is managed by the session; pass the prompt to chat(...)")
        self._client = client
        self.model = model
        self.system = system
        self._toolbox = Toolbox(tools)
        self.max_steps = _check_max_steps(max_steps)
        self._approve = approval_of(approve)
        self.on_event = on_event
        self.defaults = defaults
        self.turns: list[Turn] = []
        self._usages: list[Usage] = []
        self.tag = f"conversation-{os.urandom(4).hex()}"

    # -- state --------------------------------------------------------------------------
    @property
    def tools(self) -> dict[str, Any]:
        """The session's tools by name (:class:`~gatewaykit.client.conversation.tools.ToolFunction`)."""
        return dict(self._toolbox.tools)

    def _history(self) -> list[dict[str, Any]]:
        messages: list[dict[str, Any]] = [{"role": "system", "content": self.system}] if self.system else []
        for turn in self.turns:
            messages.extend(turn.messages)
        return messages

    @property
    def history(self) -> list[dict[str, Any]]:
        """Every message of the conversation as plain dicts (a copy): system, then each turn's messages."""
        return copy.deepcopy(self._history())

    @property
    def cost(self) -> Optional[float]:
        """USD the gateway reported for this conversation's requests (equal to its tagged ledger rows).

        None (unknown, never a made-up 0.0) when a request's answer reported no cost:
        the server may have charged it, and the client cannot say how much. A request
        the client's cassette replayed or its response cache answered was not charged: $0, as its ledger row.
        """
        reported = [usage.total_cost if usage is not None else None for usage in self._usages]
        if any(cost is None for cost in reported):
            return None
        return math.fsum(cost for cost in reported if cost is not None)

    @property
    def usage(self) -> Usage:
        """Tokens (and cost) of this conversation's requests, summed."""
        done = [usage for usage in self._usages if usage is not None]
        return Usage(
            prompt_tokens=sum(u.prompt_tokens for u in done),
            completion_tokens=sum(u.completion_tokens for u in done),
            total_tokens=sum(u.total_tokens for u in done),
            cost=Cost(total_cost=self.cost) if self.cost is not None else None,
        )

    @property
    def requests(self) -> int:
        """How many requests this conversation has sent (answered ones)."""
        return len(self._usages)

    def reset(self) -> None:
        """Start over: no turns, no spend, a new ledger tag (the old rows keep the old one)."""
        self.turns = []
        self._usages = []
        self.tag = f"conversation-{os.urandom(4).hex()}"

    def undo(self) -> Optional[Turn]:
        """Drop the last turn (its prompt, replies and tool messages); the dropped turn, or None. Spend stays."""
        return self.turns.pop() if self.turns else None

    # -- building and committing turns ---------------------------------------------------
    def _prepare_turn(self, prompt: Any, images: Any, overrides: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
        for name in ("messages", "tools", "model"):
            if name in overrides:
                raise TypeError(f"{name}= cannot change per turn; set it on the session")
        return prompt_message(prompt, images), {**self.defaults, **overrides}

    def _prepare_parse(self, prompt: Any, response_format: Any, images: Any, retries: int, overrides: dict[str, Any]) -> Any:
        output = OutputSchema(response_format)
        retries = check_retries(retries)
        message, fields = self._prepare_turn(prompt, images, overrides)
        fields["response_format"] = output.response_format(strict=supports_strict(self._catalog_entry()))
        fields.setdefault("stream", False)
        return message, fields, parse_flow(self._history() + [message], output, fields, retries)

    def _catalog_entry(self) -> Any:
        """The model's catalog entry if the client has already read the catalog (no request is made for it)."""
        catalog = getattr(self._client, "_catalog", None)
        if catalog is None or self.model is None:
            return None
        return next((entry for entry in catalog.data if entry.id == self.model), None)

    def _spent(self, completion: ChatCompletion) -> None:
        usage = completion.usage
        if not_charged(completion):  # from the client's cassette or response cache: nothing charged (as its row)
            usage = (usage or Usage()).model_copy(update={"cost": Cost(total_cost=0.0)})
        self._usages.append(usage)  # type: ignore[arg-type]

    def _commit(self, turn: Turn) -> None:
        self.turns.append(turn)

    def _commit_parsed(self, turn: Turn, completion: ChatCompletion) -> Any:
        turn.messages.append(assistant_message(completion))
        self._commit(turn)
        return completion.choices[0].message.parsed if completion.choices else None

    @contextlib.contextmanager
    def _tagged(self) -> Iterator[None]:
        tag = getattr(self._client.ledger, "tag", None)
        if tag is None:
            yield
            return
        with tag(self.tag):
            yield

    # -- transcripts and display ----------------------------------------------------------
    def to_markdown(self) -> str:
        """The conversation as Markdown that :meth:`from_markdown` reads back (tool calls included).

        A turn the client's cassette replayed or its response cache answered says so on its reply's label, with
        what it cost when it was paid for, and lines under the cost line say how many turns were not charged.
        """
        from gatewaykit.client.conversation.transcript import to_markdown

        messages = self._history()
        return to_markdown(messages, model=self.model, cost=self.cost, notes=self._reply_notes(len(messages)),
                           not_charged=self._not_charged_lines())  # fmt: skip

    def _reply_notes(self, count: int) -> dict[int, str]:
        """By its index in the history (``count`` messages), each reply of a turn not charged now: its notes."""
        from gatewaykit.client.conversation.turn_costs import turn_not_charged_notes

        notes: dict[int, str] = {}
        start = count - sum(len(turn.messages) for turn in self.turns)  # the system message comes first
        for turn in self.turns:
            replies = [i for i, message in enumerate(turn.messages) if message.get("role") == "assistant"]
            said = turn_not_charged_notes(turn)
            if replies and said:
                notes[start + replies[-1]] = " · ".join(said)
            start += len(turn.messages)
        return notes

    def _not_charged_lines(self) -> list[str]:
        """How many turns were not charged, one line per source (``2 turns replayed from a cassette: ...``)."""
        from gatewaykit.client.conversation.turn_costs import turn_not_charged
        from gatewaykit.types.replayed import CACHED, REPLAYED, not_charged_total

        items = [item for turn in self.turns for item in turn_not_charged(turn)]
        by_source = ([item for item in items if item.source == source] for source in (REPLAYED, CACHED))
        return [not_charged_total("turn", mine) for mine in by_source if mine]

    @classmethod
    def from_markdown(cls, text: str, *, client: Any = None, **options: Any) -> Any:
        """A session continuing the conversation of a :meth:`to_markdown` transcript.

        ``client`` defaults to ``gatewaykit.Client()``; ``options`` are the session's
        (``tools=``, ``max_steps=``, ...). The system message becomes ``system``.
        """
        from gatewaykit.client.conversation.transcript_reading import from_markdown

        messages, meta = from_markdown(text)
        if client is None:
            from gatewaykit.client import clients

            client = getattr(clients, cls._client_type)()
        system = None
        if messages and messages[0].get("role") == "system" and isinstance(messages[0].get("content"), str):
            system = messages.pop(0)["content"]
        options.setdefault("model", meta.get("model"))
        session = cls(client, system=system, **options)
        session.turns = turns_of(messages)
        return session

    def export(self, path: Union[str, Path]) -> Path:
        """Write the conversation to ``path``: ``.md`` (Markdown), ``.html`` (sanitised, like the live view) or ``.json``."""
        from gatewaykit.client.conversation.transcript import export

        return export(self, Path(path))

    def __repr__(self) -> str:
        model = self.model or "default model"
        turns, requests = len(self.turns), self.requests
        return (
            f"<{type(self).__name__} {model}: {turns} turn{'' if turns == 1 else 's'}, "
            f"{requests} request{'' if requests == 1 else 's'}, {_usd(self.cost)}>"
        )

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        """The whole conversation: turns, tool calls and results, cost (HTML from the presentation layer,
        sanitised as in the live view; text only without it)."""
        from gatewaykit.client.conversation.transcript import to_text

        try:
            plain = to_text(self)
        except Exception:  # noqa: BLE001 - a display bug must never break the user's cell
            plain = repr(self)
        return rich_bundle(self, plain=plain)


def _usd(cost: Optional[float]) -> str:
    return "cost not reported" if cost is None else format_usd(cost)  # $0.00013, $0.00: as every other view


def turns_of(messages: list[dict[str, Any]]) -> list[Turn]:
    """Messages grouped into turns: each user message starts one (a leading non-user run forms its own)."""
    turns: list[Turn] = []
    for message in messages:
        if (message.get("role") == "user" and message.get("content") != LIMIT_PROMPT) or not turns:
            turns.append(Turn(messages=[message]))
        else:
            turns[-1].messages.append(message)
    return turns
