"""The synthetic chat models: a :class:`ChatRequest` in, finished choices and usage out.

Deterministic: the RNG of each choice is seeded from the request's ``seed`` (or,
when omitted, from the request content), the model and the messages, so the same
request always gives the same answer (at ``temperature`` > 0 without a seed, the
gateway's draw is part of the request: :mod:`.sampling`). Everything is computed up front; streaming
only slices the finished tokens into deltas.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
from dataclasses import dataclass, field
from typing import Any

from gatewaykit.emulator.catalog import MAX_OUTPUT_TOKENS
from gatewaykit.emulator.chat.request import ChatRequest
from gatewaykit.emulator.chat.sampling import drifted_answer, drifts
from gatewaykit.emulator.chat.prompt_reading import read_prompt
from gatewaykit.emulator.chat.prompt_schema import asks_for_json_block, schema_in_messages
from gatewaykit.emulator.chat.schema_checks import SchemaProblem
from gatewaykit.emulator.chat.schema_values import instance_of
from gatewaykit.emulator.chat.script import ScriptedAnswer
from gatewaykit.emulator.chat.tokens import count_tokens, tokenize
from gatewaykit.emulator.chat.tool_results import text_of, tool_reply
from gatewaykit.emulator.chat.vision import ImageNote, image_parts
from gatewaykit.emulator.chat.writing import answer, image_answer, reasoning_trace


class SchemaTooBig(ValueError):
    """A schema check or limit failed while writing a value; ``param`` names the request field."""

    def __init__(self, param: str, problem: SchemaProblem) -> None:
        super().__init__(f"{param}: {problem}")
        self.param = param


@dataclass
class ChoiceResult:
    index: int
    content_tokens: list[str]
    reasoning_tokens: list[str]
    tool_calls: list[dict[str, Any]]
    finish_reason: str
    logprobs: list[dict[str, Any]] | None = None

    @property
    def content(self) -> str | None:
        if self.tool_calls and not self.content_tokens:
            return None
        return "".join(self.content_tokens)

    @property
    def reasoning(self) -> str | None:
        return "".join(self.reasoning_tokens) if self.reasoning_tokens else None

    def tool_call_tokens(self) -> int:
        return sum(count_tokens(c["function"]["name"]) + count_tokens(c["function"]["arguments"]) + 3
                   for c in self.tool_calls)


@dataclass
class ChatResult:
    choices: list[ChoiceResult]
    prompt_tokens: int
    image_tokens: int
    reasoning_tokens: int = 0
    text_tokens: int = 0
    extra: dict[str, Any] = field(default_factory=dict)
    #: Where the answer came from: ``synthetic`` (the offline model) or ``scripted`` (a --script entry).
    source: str = "synthetic"
    #: The prompt, one string per token (:func:`prompt_units`); prompt caching hashes its prefixes.
    prompt_units: list[str] = field(default_factory=list, repr=False)

    @property
    def completion_tokens(self) -> int:
        return self.reasoning_tokens + self.text_tokens


def prompt_units(request: ChatRequest, notes: list[ImageNote]) -> list[str]:
    """The prompt as the model reads it, one string per token: tool schemas, then per message 4 framing
    tokens around its text, name, images and tool calls, then 3 priming tokens. Prompt caching hashes
    prefixes of this stream, and its length is the prompt token count."""
    units: list[str] = []
    if request.tools:
        units += ["<tools>" + piece for piece in tokenize(json.dumps(request.tools, sort_keys=True))]
    images = iter(zip(image_parts(request.messages), notes))
    for message in request.messages:
        units += ["<|start|>", f"<|{message.get('role')}|>"]
        units += tokenize(text_of(message.get("content")))
        units += ["<name>" + piece for piece in tokenize(str(message.get("name") or ""))]
        if isinstance(message.get("content"), list):
            for part in message["content"]:
                if part.get("type") == "image_url":
                    (_, image), note = next(images)
                    seen = f"{image.get('detail')}|{image['url']}".encode("utf-8", "surrogatepass")
                    digest = hashlib.sha256(seen).hexdigest()[:24]
                    units += [f"<image {digest} {k}>" for k in range(note.tokens)]
        for call in message.get("tool_calls") or []:
            units += ["<call>" + piece for piece in tokenize(json.dumps(call, sort_keys=True))]
        units += ["<|sep|>", "<|end|>"]
    return units + ["<|start|>", "<|assistant|>", "<|sep|>"]


def _rng_for(request: ChatRequest, index: int) -> random.Random:
    parts: list[Any] = [request.seed, request.model, request.messages, index]
    if request.sample is not None:  # a sampled answer (temperature > 0, no seed): the gateway's draw
        parts.append(request.sample)
    basis = json.dumps(parts, sort_keys=True, default=str)
    return random.Random(int.from_bytes(hashlib.sha256(basis.encode()).digest()[:8], "big"))


def _last_user_text(messages: list[dict[str, Any]]) -> str:
    for message in reversed(messages):
        if message.get("role") == "user":
            return text_of(message.get("content"))
    return text_of(messages[-1].get("content"))


def _tools_to_call(request: ChatRequest, prompt: str) -> list[dict[str, Any]]:
    if not request.tools or request.tool_choice == "none" or request.messages[-1].get("role") == "tool":
        return []
    if isinstance(request.tool_choice, dict):
        wanted = request.tool_choice["function"]["name"]
        return [t for t in request.tools if t["function"]["name"] == wanted][:1]
    words = {w.lower() for w in re.findall(r"[A-Za-z]{3,}", prompt)}
    scored = []
    for tool in request.tools:
        function = tool["function"]
        vocabulary = set(re.findall(r"[a-z]{3,}", (function["name"].replace("_", " ") + " "
                                                  + str(function.get("description") or "")).lower()))
        scored.append((len(words & vocabulary), tool))
    matching = [tool for score, tool in sorted(scored, key=lambda s: -s[0]) if score > 0]
    if request.tool_choice == "required" and not matching:
        matching = [request.tools[0]]
    return matching if request.parallel_tool_calls else matching[:1]


def _json_content(request: ChatRequest, prompt: str, rng: random.Random) -> str:
    fmt = request.response_format or {}
    prompted = schema_in_messages(request.messages) if fmt.get("type") == "json_object" else None
    if fmt.get("type") == "json_schema":
        schema = (fmt.get("json_schema") or {}).get("schema") or {"type": "object"}
        subject = str((fmt.get("json_schema") or {}).get("name") or "")
        value = instance_of(schema, rng, prompt, all_properties=True, prompt_numbers=True, subject=subject)
    elif prompted is not None:  # json_object with the schema written in the prompt: an instance of it
        value = instance_of(prompted, rng, prompt, all_properties=True, prompt_numbers=True)
    else:
        value = {"question": read_prompt(prompt).quoted, "answer": answer(prompt + " (in one sentence)", rng),
                 "synthetic": True, "source": "offline gateway"}
    return json.dumps(value, indent=2, ensure_ascii=False)


def _logprobs(tokens: list[str], top: int, rng: random.Random) -> list[dict[str, Any]]:
    entries = []
    for token in tokens:
        logprob = -round(rng.random() ** 3 * 2.5, 6)
        alternatives = [{"token": token, "logprob": logprob, "bytes": list(token.encode())}]
        for k in range(1, top):
            alt = token.strip()[:-1] or "the"
            alt = (" " if token.startswith(" ") else "") + alt + "s" * k
            alternatives.append({"token": alt, "logprob": round(logprob - 1.5 * k - rng.random(), 6),
                                 "bytes": list(alt.encode())})
        entries.append({"token": token, "logprob": logprob, "bytes": list(token.encode()),
                        "top_logprobs": alternatives[:top]})
    return entries


def _apply_stop(text: str, stops: list[str]) -> tuple[str, bool]:
    cut = min((i for i in (text.find(s) for s in stops) if i >= 0), default=-1)
    return (text[:cut], True) if cut >= 0 else (text, False)


_VISION_LIMIT = ("That is all the offline model can tell about an image (its size and colours); it cannot see "
                 "what the image shows.")


def script_input(request: ChatRequest) -> str | None:
    """The text a --script matches (the last message, when a user sent it), or None: no scripted answer."""
    if request.messages[-1].get("role") != "user":
        return None
    return text_of(request.messages[-1].get("content"))


def _forced(request: ChatRequest) -> bool:
    """``tool_choice`` names a tool or says ``required``: the caller wants that call complete."""
    return isinstance(request.tool_choice, dict) or request.tool_choice == "required"


def _fenced_json(request: ChatRequest, prompt: str, rng: random.Random) -> str | None:
    """No response_format, a schema in the prompt and a ```json block asked for (instructor's MD_JSON): that block."""
    if request.response_format or not asks_for_json_block(request.messages):
        return None
    schema = schema_in_messages(request.messages)
    if schema is None:
        return None
    try:
        value = instance_of(schema, rng, prompt, all_properties=True, prompt_numbers=True)
    except SchemaProblem:
        return None
    return "```json\n" + json.dumps(value, indent=2, ensure_ascii=False) + "\n```"


def _tool_arguments(request: ChatRequest, tool: dict[str, Any], rng: random.Random, prompt: str) -> str:
    try:
        fill_all = bool(tool["function"].get("strict")) or _forced(request)  # forced: optional fields filled too
        arguments = instance_of(tool["function"].get("parameters") or {"type": "object"}, rng, prompt,
                                all_properties=fill_all, prompt_numbers=True)
    except SchemaProblem as problem:
        index = next(i for i, t in enumerate(request.tools) if t is tool)
        raise SchemaTooBig(f"tools[{index}].function.parameters", problem) from None
    return json.dumps(arguments, ensure_ascii=False)


def _drifted(request: ChatRequest, prompt: str, index: int) -> bool:
    """A sampled answer (temperature > 0) that drifts off the prompt (:mod:`.sampling`)."""
    draw = request.seed if request.seed is not None else request.sample
    return bool(request.temperature) and draw is not None and drifts(request.model, prompt, request.temperature or 0.0,
                                                                     draw, index)


def _choice(request: ChatRequest, index: int, notes: list[ImageNote], reasoning_model: bool,
            scripted: ScriptedAnswer | None = None) -> ChoiceResult:
    rng = _rng_for(request, index)
    prompt = _last_user_text(request.messages)
    effort = request.reasoning_effort or "medium"
    trace = reasoning_trace(prompt, rng, effort) if reasoning_model and effort != "none" else ""
    calls = []
    if scripted is not None and scripted.tool_call is not None:
        calls.append({"id": f"call_{rng.getrandbits(96):024x}", "type": "function", "function": scripted.tool_call})
    for tool in _tools_to_call(request, prompt) if scripted is None else []:
        calls.append({"id": f"call_{rng.getrandbits(96):024x}", "type": "function",
                      "function": {"name": tool["function"]["name"],
                                   "arguments": _tool_arguments(request, tool, rng, prompt)}})
    if calls:
        content = ""
    elif scripted is not None:
        content = scripted.content or ""
    elif request.messages[-1].get("role") == "tool":
        content = tool_reply(request.messages)
    elif request.response_format:
        try:
            content = _json_content(request, prompt, rng)
        except SchemaProblem as problem:
            raise SchemaTooBig("response_format.json_schema.schema", problem) from None
    elif (fenced := _fenced_json(request, prompt, rng)) is not None:
        content = fenced
    elif _drifted(request, prompt, index):
        content = drifted_answer(request.temperature or 0.0, rng)
    else:
        room = None if request.max_tokens is None else request.max_tokens - count_tokens(trace)
        content = answer(prompt, rng, room)
        if notes and len(notes) == 1 and read_prompt(prompt).sentences == 1:  # one sentence, as asked
            content = notes[0].text.rstrip(".") + "; the offline model can tell only its size and colours."
        elif notes:
            content = "\n\n".join([*(note.text for note in notes), _VISION_LIMIT, image_answer(prompt, rng)])
    content, stopped = _apply_stop(content, request.stop)
    reasoning_tokens, content_tokens = tokenize(trace), tokenize(content)
    finish = "tool_calls" if calls else "stop"
    result = ChoiceResult(index, content_tokens, reasoning_tokens, calls, finish)
    budget = min(request.max_tokens or MAX_OUTPUT_TOKENS, MAX_OUTPUT_TOKENS)
    if len(reasoning_tokens) + len(content_tokens) + result.tool_call_tokens() > budget:
        result.reasoning_tokens = reasoning_tokens[:budget]
        result.content_tokens = content_tokens[: max(0, budget - len(reasoning_tokens))]
        result.tool_calls = []
        result.finish_reason = "length"
    elif stopped:
        result.finish_reason = "stop"
    if request.logprobs:
        result.logprobs = _logprobs(result.content_tokens, request.top_logprobs, rng)
    return result


def complete(request: ChatRequest, notes: list[ImageNote], *, reasoning_model: bool,
             scripted: ScriptedAnswer | None = None) -> ChatResult:
    """The finished answer (CPU work: routes call it off the event loop). Raises :class:`SchemaTooBig`.

    ``scripted``: the --script answer to the last user message (the route matches it, bounded in time)."""
    units = prompt_units(request, notes)
    result = ChatResult([_choice(request, i, notes, reasoning_model, scripted) for i in range(request.n)],
                        len(units), sum(note.tokens for note in notes), prompt_units=units,
                        source="scripted" if scripted is not None else "synthetic")
    result.reasoning_tokens = sum(len(c.reasoning_tokens) for c in result.choices)
    result.text_tokens = sum(len(c.content_tokens) + c.tool_call_tokens() for c in result.choices)
    return result
