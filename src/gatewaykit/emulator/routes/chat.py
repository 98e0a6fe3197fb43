"""``POST /v1/chat/completions``: plain and streamed (SSE) answers.

Checks first, work after: the request's limits (body, schema sizes) are 400s, then the least the
answer can cost is held on the account (:class:`.holds.Hold`; 402 when the balance cannot cover it),
and only then are images decoded and the answer written, in the request pool at most
``ACCOUNT_WORKERS`` requests of one account at a time. The hold then becomes the real price (402 if
the balance cannot cover that) and is charged when the answer is delivered.
"""

from __future__ import annotations

import asyncio
from typing import Any, AsyncIterator

from starlette.requests import Request
from starlette.responses import Response

from gatewaykit.emulator.admission import Caller, admit, resolve_model
from gatewaykit.emulator.catalog import ModelSpec
from gatewaykit.emulator.chat.answers import chunk_deltas, completion_body, extra_fields, usage_body
from gatewaykit.emulator.chat.engine import ChatResult, SchemaTooBig, complete, script_input
from gatewaykit.emulator.chat.request import ChatRequest, parse_chat_request
from gatewaykit.emulator.chat.schema_size import least_answer_size
from gatewaykit.emulator.chat.script import ScriptedAnswer, ScriptMatchTimeout
from gatewaykit.emulator.chat.vision import MIN_IMAGE_TOKENS, check_image_count, describe_images, image_parts
from gatewaykit.emulator.faults import DropConnection
from gatewaykit.emulator.gateway import Gateway
from gatewaykit.emulator.pricing import chat_cost
from gatewaykit.serving.bodies import read_json
from gatewaykit.serving.errors import bad_request
from gatewaykit.serving.holds import Hold
from gatewaykit.serving.responses import SSE_DONE, SSE_HEADERS, HeldStreamingResponse, JSONResponse, sse_data


#: Says where a chat answer came from: ``synthetic`` (the offline model) or ``scripted`` (a --script entry).
#: ``X-Gateway-Offline: 1`` stays on every answer; ``extra_fields.offline_content`` carries the same word.
CONTENT_HEADER = "X-Gateway-Offline-Content"
#: Prompt tokens every message costs however short it is (the framing of :func:`.engine.prompt_units`),
#: and the priming tokens of the answer.
_MESSAGE_FRAMING_TOKENS = 4
_PRIMING_TOKENS = 3


async def chat_completions(request: Request) -> Response:
    gateway: Gateway = request.app.state.gateway
    caller = await admit(request, gateway, streamable=True)
    body = await read_json(request, gateway)
    spec = resolve_model(body, gateway, caller, "chat")
    chat = parse_chat_request(body, spec.id)  # schemas past the size limits are 400s here, before any work
    if chat.temperature and chat.seed is None:  # a sampled answer: the n-th identical request's draw
        chat.sample = gateway.ids.sample_seed({k: v for k, v in body.items() if k not in ("stream", "stream_options")})
    features = spec.entry["features"]
    images = 0
    if image_parts(chat.messages):
        if not features["vision"]:
            raise bad_request(f"{spec.id!r} does not accept image input; use a model with 'image' in its "
                              "input_modalities (chat-vision).", param="messages")
        images = check_image_count(chat.messages)
    if chat.response_format and not features["json_mode"]:
        raise bad_request(f"{spec.id!r} does not support response_format.", param="response_format")
    least = least_chat_price(spec, chat, images, scripted=gateway.settings.script is not None)
    hold = Hold.take(caller.account, least)  # 402 before any work
    try:
        return await _answer(gateway, caller, spec, chat, hold, images, body)
    except BaseException:
        hold.release()  # nothing happens when the answer charged it
        raise


def least_chat_price(spec: ModelSpec, chat: ChatRequest, images: int, *, scripted: bool = False) -> int:
    """The least ``chat`` can cost, known without writing its answer (held before any work).

    Every message's framing tokens and each image's smallest token count, all at the cheapest (cached)
    input rate, and, for an answer that is sure to be the ``json_schema`` instance (no tools, no stop
    sequences, no tool result to report, no ``scripted`` answers loaded), one output token per value the
    schema requires (up to ``max_tokens``). Its answer's real price is never lower."""
    prompt = _MESSAGE_FRAMING_TOKENS * len(chat.messages) + _PRIMING_TOKENS + MIN_IMAGE_TOKENS * images
    output = 0
    schema = (chat.response_format or {}).get("json_schema")
    schema_answer = not (chat.tools or chat.stop or scripted or chat.messages[-1].get("role") == "tool")
    if isinstance(schema, dict) and schema_answer:
        output = chat.n * least_answer_size(schema.get("schema") or {"type": "object"})[0]
        if chat.max_tokens is not None:
            output = min(output, chat.max_tokens)
    return sum(chat_cost(spec, prompt, output, 0, cached_tokens=prompt).values())


async def _answer(gateway: Gateway, caller: Caller, spec: ModelSpec, chat: ChatRequest, hold: Hold,
                  images: int, body: Any) -> Response:
    """Write the answer (its least price held), hold its real price, then deliver it and charge the hold."""
    features = spec.entry["features"]
    notes = []
    if images:
        notes = await gateway.run_decoding(caller.account.id, describe_images, chat.messages, gateway.vision_cache)
    scripted = await _scripted_answer(gateway, caller, chat)
    try:  # CPU work (a big schema, a long conversation) stays off the event loop, and within the account's share
        result = await gateway.run_for_account(caller.account.id, complete, chat, notes,
                                               reasoning_model=features["reasoning"], scripted=scripted)
    except SchemaTooBig as exc:
        raise bad_request(str(exc), param=exc.param) from None
    headers = {CONTENT_HEADER: result.source}
    cache = gateway.prompt_cache.lookup(caller.account.id, spec.id, chat.prompt_cache_key, result.prompt_units,
                                        chat.prompt_cache_retention)
    components = chat_cost(spec, result.prompt_tokens, result.text_tokens, result.reasoning_tokens,
                           cached_tokens=cache.read_tokens)
    hold.resize_or_refuse(sum(components.values()))
    usage = usage_body(result, components, cache.read_tokens, cache.write_tokens)
    completion_id = "chatcmpl-" + gateway.ids.hex("chat", body, 12)
    created = gateway.ids.now()
    if chat.stream:
        gateway.prompt_cache.store(caller.account.id, cache)  # the prompt was read, even if the stream drops
        drop = caller.fault in ("disconnect", "stream-drop")
        events = _stream(gateway, chat, spec, result, usage, completion_id, created, hold, drop)
        return HeldStreamingResponse(events, hold, media_type="text/event-stream", headers={**SSE_HEADERS, **headers})
    if caller.fault == "disconnect":
        raise DropConnection()
    delay = gateway.scaled(0.2 + result.completion_tokens / (gateway.settings.tokens_per_second * 5))
    if delay > 0:
        await asyncio.sleep(delay)
    hold.charge()
    gateway.prompt_cache.store(caller.account.id, cache)
    return JSONResponse(completion_body(spec.id, result, usage, completion_id, created), headers=headers)


async def _scripted_answer(gateway: Gateway, caller: Caller, chat: ChatRequest) -> ScriptedAnswer | None:
    """The --script answer to the last user message, matched off the event loop within the time allowed
    (only once the request's least price is held: matching costs the gateway CPU time)."""
    script, text = gateway.settings.script, script_input(chat)
    if script is None or text is None:
        return None
    try:
        return await gateway.run_script_match(caller.account.id, script.answer_for, text,
                                              gateway.settings.script_match_seconds)
    except ScriptMatchTimeout as exc:
        raise bad_request(str(exc), param="messages", code="script_match_timeout") from None


async def _stream(gateway: Gateway, chat: ChatRequest, spec: ModelSpec, result: ChatResult, usage: dict[str, Any],
                  completion_id: str, created: int, hold: Hold, drop: bool) -> AsyncIterator[bytes]:
    """The SSE events; the held price is charged only once ``[DONE]`` has been handed to the socket."""
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
        hold.charge()
    finally:
        hold.release()  # nothing happens once charged
