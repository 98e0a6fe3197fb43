"""``POST /v1/chat/completions``: plain and streamed (SSE) answers."""

from __future__ import annotations

import asyncio
from typing import Any, AsyncIterator

from starlette.requests import Request
from starlette.responses import Response, StreamingResponse

from gatewaykit.emulator.admission import Caller, admit, insufficient_quota, read_json, resolve_model
from gatewaykit.emulator.catalog import ModelSpec
from gatewaykit.emulator.chat.answers import chunk_deltas, completion_body, extra_fields, usage_body
from gatewaykit.emulator.chat.engine import ChatResult, SchemaTooBig, complete, script_input
from gatewaykit.emulator.chat.request import ChatRequest, parse_chat_request
from gatewaykit.emulator.chat.script import ScriptedAnswer, ScriptMatchTimeout
from gatewaykit.emulator.chat.vision import MIN_IMAGE_TOKENS, check_image_count, describe_images, image_parts
from gatewaykit.emulator.errors import bad_request
from gatewaykit.emulator.faults import DropConnection
from gatewaykit.emulator.gateway import Gateway
from gatewaykit.emulator.pricing import chat_cost
from gatewaykit.emulator.routes.responses import SSE_DONE, SSE_HEADERS, JSONResponse, sse_data


#: Says where a chat answer came from: ``synthetic`` (the offline model) or ``scripted`` (a --script entry).
#: ``X-Gateway-Offline: 1`` stays on every answer; ``extra_fields.offline_content`` carries the same word.
CONTENT_HEADER = "X-Gateway-Offline-Content"


async def chat_completions(request: Request) -> Response:
    gateway: Gateway = request.app.state.gateway
    caller = await admit(request, gateway, streamable=True)
    body = await read_json(request, gateway)
    spec = resolve_model(body, gateway, caller, "chat")
    chat = parse_chat_request(body, spec.id)
    features = spec.entry["features"]
    notes = []
    if image_parts(chat.messages):
        if not features["vision"]:
            raise bad_request(f"{spec.id!r} does not accept image input; use a model with 'image' in its "
                              "input_modalities (chat-vision).", param="messages")
        images = check_image_count(chat.messages)
        lowest = chat_cost(spec, MIN_IMAGE_TOKENS * images, 1, 0, cached_tokens=MIN_IMAGE_TOKENS * images)
        if not caller.account.can_pay(sum(lowest.values())):  # before any image is decoded
            raise insufficient_quota()
        notes = await gateway.run_decoding(caller.account.id, describe_images, chat.messages, gateway.vision_cache)
    if chat.response_format and not features["json_mode"]:
        raise bad_request(f"{spec.id!r} does not support response_format.", param="response_format")
    scripted = await _scripted_answer(gateway, caller, chat, spec)
    try:  # CPU work (a big schema, a long conversation) stays off the event loop
        result = await gateway.run_in_worker(complete, chat, notes, reasoning_model=features["reasoning"],
                                             scripted=scripted)
    except SchemaTooBig as exc:
        raise bad_request(str(exc), param=exc.param) from None
    headers = {CONTENT_HEADER: result.source}
    cache = gateway.prompt_cache.lookup(caller.account.id, spec.id, chat.prompt_cache_key, result.prompt_units,
                                        chat.prompt_cache_retention)
    components = chat_cost(spec, result.prompt_tokens, result.text_tokens, result.reasoning_tokens,
                           cached_tokens=cache.read_tokens)
    price = sum(components.values())
    usage = usage_body(result, components, cache.read_tokens, cache.write_tokens)
    completion_id = "chatcmpl-" + gateway.ids.hex("chat", body, 12)
    created = gateway.ids.now()
    if chat.stream:
        if not caller.account.hold(price):
            raise insufficient_quota()
        gateway.prompt_cache.store(caller.account.id, cache)  # the prompt was read, even if the stream drops
        drop = caller.fault in ("disconnect", "stream-drop")
        events = _stream(gateway, chat, spec, result, usage, completion_id, created, caller, price, drop)
        return StreamingResponse(events, media_type="text/event-stream", headers={**SSE_HEADERS, **headers})
    if caller.fault == "disconnect":
        raise DropConnection()
    if not caller.account.can_pay(price):
        raise insufficient_quota()
    delay = gateway.scaled(0.2 + result.completion_tokens / (gateway.settings.tokens_per_second * 5))
    if delay > 0:
        await asyncio.sleep(delay)
    if not caller.account.charge(price):
        raise insufficient_quota()
    gateway.prompt_cache.store(caller.account.id, cache)
    return JSONResponse(completion_body(spec.id, result, usage, completion_id, created), headers=headers)


async def _scripted_answer(gateway: Gateway, caller: Caller, chat: ChatRequest,
                           spec: ModelSpec) -> ScriptedAnswer | None:
    """The --script answer to the last user message, matched off the event loop within the time allowed
    (only for a caller who can pay for the smallest answer: matching costs the gateway CPU time)."""
    script, text = gateway.settings.script, script_input(chat)
    if script is None or text is None:
        return None
    if not caller.account.can_pay(sum(chat_cost(spec, 1, 1, 0).values())):
        raise insufficient_quota()
    try:
        return await gateway.run_script_match(caller.account.id, script.answer_for, text,
                                              gateway.settings.script_match_seconds)
    except ScriptMatchTimeout as exc:
        raise bad_request(str(exc), param="messages", code="script_match_timeout") from None


async def _stream(gateway: Gateway, chat: ChatRequest, spec: ModelSpec, result: ChatResult, usage: dict[str, Any],
                  completion_id: str, created: int, caller: Caller, price: int, drop: bool) -> AsyncIterator[bytes]:
    """The SSE events; the held price is charged only once ``[DONE]`` has been handed to the socket."""
    paid = False
    base = {"id": completion_id, "object": "chat.completion.chunk", "created": created, "model": spec.id,
            "system_fingerprint": "fp_svc_offline", "extra_fields": extra_fields(result, spec.id)}
    per_token = gateway.scaled(1.0 / gateway.settings.tokens_per_second)
    deltas = list(chunk_deltas(result, completion_id))
    drop_at = len(deltas) // 2 if drop else None
    try:
        if per_token:
            await asyncio.sleep(gateway.scaled(0.25))
        for number, (_, choice, tokens) in enumerate(deltas):
            if number == drop_at:
                raise DropConnection()
            yield sse_data({**base, "choices": [choice]})
            if per_token and tokens:
                await asyncio.sleep(per_token * tokens)
        if chat.include_usage:
            yield sse_data({**base, "choices": [], "usage": usage})
        yield SSE_DONE
        paid = True
    finally:
        caller.account.settle(price, paid=paid)
