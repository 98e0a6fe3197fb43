"""``client.chat.completions.parse``: the sync and async drivers of :func:`~gatewaykit.client.resources.structured.parse_flow`."""

from __future__ import annotations

from typing import Any, Optional

from gatewaykit.client.resources.structured import OutputSchema, check_retries, parse_flow, supports_strict
from gatewaykit.types import ChatCompletion

__all__ = ["parse_completion"]


def _checked_fields(fields: dict[str, Any]) -> dict[str, Any]:
    if fields.get("stream"):
        raise TypeError("parse() does not stream: drop stream=True (the reply is validated whole)")
    if "response_format" in fields:  # pragma: no cover - it is parse()'s own keyword
        raise TypeError("response_format= is given once")
    fields = dict(fields)
    fields.pop("stream", None)
    return fields


def parse_completion(
    completions: Any, model: Optional[str], messages: Any, response_format: Any, retries: int, fields: dict[str, Any]
) -> Any:
    """The parsed ``ChatCompletion`` of a sync client's ``completions.parse``."""
    output = OutputSchema(response_format)
    retries = check_retries(retries)
    fields = _checked_fields(fields)
    messages = list(messages)
    client = completions._client
    entry = client._run(client._catalog_entry(model)) if client._checks_on(fields.get("validate")) else None
    fields["response_format"] = output.response_format(strict=supports_strict(entry))
    flow = parse_flow(messages, output, fields, retries)
    try:
        command = next(flow)
        while True:
            completion = completions.create(model=model, messages=command.messages, **command.fields)
            command = flow.send(completion)
    except StopIteration as stop:
        return stop.value


def parse_completion_async(
    completions: Any, model: Optional[str], messages: Any, response_format: Any, retries: int, fields: dict[str, Any]
) -> Any:
    """An awaitable of the parsed ``ChatCompletion`` (an async client's ``completions.parse``); bad
    arguments raise here, at the call, as on a sync client."""
    output = OutputSchema(response_format)
    retries = check_retries(retries)
    return _parse_async(completions, model, list(messages), output, retries, _checked_fields(fields))


async def _parse_async(
    completions: Any, model: Optional[str], messages: list[Any], output: OutputSchema, retries: int,
    fields: dict[str, Any],
) -> ChatCompletion:
    client = completions._client
    entry = await client._run(client._catalog_entry(model)) if client._checks_on(fields.get("validate")) else None
    fields["response_format"] = output.response_format(strict=supports_strict(entry))
    flow = parse_flow(messages, output, fields, retries)
    try:
        command = next(flow)
        while True:
            completion = await completions.create(model=model, messages=command.messages, **command.fields)
            command = flow.send(completion)
    except StopIteration as stop:
        return stop.value
