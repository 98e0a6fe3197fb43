"""Checks of a chat completion request against the spec's table, into :class:`ChatRequest`."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from gatewaykit.emulator.chat.schema_checks import MAX_JSON_DEPTH, SchemaProblem, check_schema, json_depth
from gatewaykit.emulator.chat.schema_size import check_answer_size
from gatewaykit.emulator.fields import opt_bool, opt_enum, opt_int, opt_number, opt_seed, opt_str
from gatewaykit.emulator.prompt_cache import RETENTIONS
from gatewaykit.serving.errors import bad_request

ROLES = ("system", "user", "assistant", "tool", "developer")
EFFORTS = ("none", "low", "medium", "high")
MAX_CHOICES = 8
#: Caps on a conversation: messages per request, and characters of text per message.
MAX_MESSAGES = 2048
MAX_MESSAGE_CHARS = 1_000_000
MAX_CACHE_KEY_CHARS = 1024


@dataclass
class ChatRequest:
    model: str
    messages: list[dict[str, Any]]
    stream: bool = False
    include_usage: bool = False
    max_tokens: int | None = None
    stop: list[str] = field(default_factory=list)
    n: int = 1
    seed: int | None = None
    temperature: float | None = None
    #: The draw of a sampled answer (temperature > 0 without a seed), set by the route (:mod:`.sampling`).
    sample: int | None = None
    reasoning_effort: str | None = None
    logprobs: bool = False
    top_logprobs: int = 0
    response_format: dict[str, Any] | None = None
    tools: list[dict[str, Any]] = field(default_factory=list)
    tool_choice: Any = None
    parallel_tool_calls: bool = True
    prompt_cache_key: str | None = None
    prompt_cache_retention: str = "in-memory"


def _check_part(part: Any, where: str) -> None:
    if not isinstance(part, dict) or part.get("type") not in ("text", "image_url"):
        raise bad_request(f"{where} must be an object with type 'text' or 'image_url'.", param=where)
    if part["type"] == "text" and not isinstance(part.get("text"), str):
        raise bad_request(f"{where}.text must be a string.", param=f"{where}.text")
    if part["type"] == "image_url":
        image = part.get("image_url")
        if isinstance(image, str):
            image = {"url": image}
            part["image_url"] = image
        if not isinstance(image, dict) or not isinstance(image.get("url"), str) or not image["url"]:
            raise bad_request(f"{where}.image_url.url must be an image URL or data: URI.",
                              param=f"{where}.image_url.url")
        if image.get("detail") not in (None, "low", "high", "auto"):
            raise bad_request(f"{where}.image_url.detail must be low, high or auto.",
                              param=f"{where}.image_url.detail")


def _check_messages(messages: Any) -> list[dict[str, Any]]:
    if messages is None:
        raise bad_request("Missing required field 'messages'.", param="messages")
    if not isinstance(messages, list) or not messages:
        raise bad_request("'messages' must be a non-empty array of messages.", param="messages")
    if len(messages) > MAX_MESSAGES:
        raise bad_request(f"'messages' has {len(messages):,} messages; at most {MAX_MESSAGES:,} are accepted. "
                          "Drop or summarise older turns.", param="messages")
    for i, message in enumerate(messages):
        where = f"messages[{i}]"
        if not isinstance(message, dict):
            raise bad_request(f"{where} must be an object with 'role' and 'content'.", param=where)
        if message.get("role") not in ROLES:
            raise bad_request(f"{where}.role must be one of system, user, assistant, tool.", param=f"{where}.role")
        content = message.get("content")
        if isinstance(content, list):
            for j, part in enumerate(content):
                _check_part(part, f"{where}.content[{j}]")
        elif isinstance(content, str) and len(content) > MAX_MESSAGE_CHARS:
            raise bad_request(f"{where}.content is {len(content):,} characters; at most {MAX_MESSAGE_CHARS:,} are "
                              "accepted per message. Shorten it or split it.", param=f"{where}.content")
        elif content is not None and not isinstance(content, str):
            raise bad_request(f"{where}.content must be a string or an array of content parts.",
                              param=f"{where}.content")
        elif content is None and message["role"] != "assistant":
            raise bad_request(f"{where}.content is required for role {message['role']!r}.",
                              param=f"{where}.content")
        if message["role"] == "tool" and not isinstance(message.get("tool_call_id"), str):
            raise bad_request(f"{where}.tool_call_id must name the tool call this message answers.",
                              param=f"{where}.tool_call_id")
        calls = message.get("tool_calls")
        if calls is not None and not isinstance(calls, list):
            raise bad_request(f"{where}.tool_calls must be an array.", param=f"{where}.tool_calls")
        for j, call in enumerate(calls or []):
            function = call.get("function") if isinstance(call, dict) else None
            if not isinstance(call, dict) or not isinstance(call.get("id"), str) or not isinstance(function, dict) \
                    or not isinstance(function.get("name"), str) or not isinstance(function.get("arguments", ""), str):
                raise bad_request(f"{where}.tool_calls[{j}] must be {{id: string, type: 'function', function: "
                                  "{name: string, arguments: JSON string}}.", param=f"{where}.tool_calls[{j}]")
    return messages


def _check_tools(body: dict) -> tuple[list[dict], Any]:
    tools = body.get("tools")
    if tools is None:
        tools = []
    if not isinstance(tools, list):
        raise bad_request("'tools' must be an array of tool definitions.", param="tools")
    for i, tool in enumerate(tools):
        function = tool.get("function") if isinstance(tool, dict) else None
        if not isinstance(function, dict) or not isinstance(function.get("name"), str) or not function["name"]:
            raise bad_request(f"tools[{i}] must be {{type: 'function', function: {{name, parameters}}}}.",
                              param=f"tools[{i}]")
        if tool.get("type", "function") != "function":
            raise bad_request(f"tools[{i}].type must be 'function'.", param=f"tools[{i}].type")
        if function.get("parameters") is not None and not isinstance(function["parameters"], dict):
            raise bad_request(f"tools[{i}].function.parameters must be a JSON Schema object.",
                              param=f"tools[{i}].function.parameters")
        _check_schema(function.get("parameters") or {}, f"tools[{i}].function.parameters")
    choice = body.get("tool_choice")
    names = {tool["function"]["name"] for tool in tools}
    if choice is None or choice in ("none", "auto", "required"):
        pass
    elif isinstance(choice, dict):
        name = (choice.get("function") or {}).get("name") if isinstance(choice.get("function"), dict) else None
        name = name or choice.get("name")
        if not isinstance(name, str) or name not in names:
            raise bad_request("tool_choice must name one of the tools: {\"type\": \"function\", "
                              "\"function\": {\"name\": ...}}.", param="tool_choice")
        choice = {"type": "function", "function": {"name": name}}
    else:
        raise bad_request("tool_choice must be 'none', 'auto', 'required' or a tool object.", param="tool_choice")
    if choice == "required" and not tools:
        raise bad_request("tool_choice 'required' needs at least one tool in 'tools'.", param="tool_choice")
    return tools, choice


def _check_response_format(value: Any) -> dict[str, Any] | None:
    if value is None:
        return None
    if not isinstance(value, dict) or value.get("type") not in ("text", "json_object", "json_schema"):
        raise bad_request("response_format must be {type: 'text' | 'json_object' | 'json_schema'}.",
                          param="response_format")
    if value["type"] == "json_schema":
        spec = value.get("json_schema")
        if not isinstance(spec, dict) or not isinstance(spec.get("schema", {}), dict):
            raise bad_request("response_format.json_schema must be {name, schema: {...}}.",
                              param="response_format.json_schema")
        _check_schema(spec.get("schema") or {}, "response_format.json_schema.schema")
    return None if value["type"] == "text" else value


def _check_schema(schema: dict[str, Any], param: str) -> None:
    """A malformed schema, or one no answer could fit within the size limits, is a 400 before any work."""
    try:
        check_schema(schema)
        check_answer_size(schema)
    except SchemaProblem as problem:
        raise bad_request(f"{param}: {problem}.", param=param) from None


def _check_depth(body: dict[str, Any]) -> None:
    for key, value in body.items():
        if json_depth(value) > MAX_JSON_DEPTH:
            raise bad_request(f"'{key}' is nested more than {MAX_JSON_DEPTH} levels deep; flatten it.", param=key)


def _check_stop(value: Any) -> list[str]:
    if value is None:
        return []
    stops = [value] if isinstance(value, str) else value
    if not isinstance(stops, list) or not all(isinstance(s, str) and s for s in stops):
        raise bad_request("'stop' must be a non-empty string or an array of up to 4 of them.", param="stop")
    if len(stops) > 4:
        raise bad_request(f"'stop' has {len(stops)} sequences; at most 4 are allowed.", param="stop")
    return stops


def parse_chat_request(body: dict[str, Any], model: str) -> ChatRequest:
    _check_depth(body)
    messages = _check_messages(body.get("messages"))
    temperature = opt_number(body, "temperature", 0, 2)
    opt_number(body, "top_p", 0, 1)
    opt_number(body, "frequency_penalty", -2, 2)
    opt_number(body, "presence_penalty", -2, 2)
    max_tokens = opt_int(body, "max_tokens", 1, 1_000_000)
    max_completion = opt_int(body, "max_completion_tokens", 1, 1_000_000)
    options = body.get("stream_options")
    if options is not None and not isinstance(options, dict):
        raise bad_request("stream_options must be an object {include_usage: boolean}.", param="stream_options")
    include_usage = opt_bool(options or {}, "include_usage", False)
    bias = body.get("logit_bias")
    if bias is not None and (not isinstance(bias, dict) or not all(
            isinstance(v, (int, float)) and not isinstance(v, bool) and -100 <= v <= 100 for v in bias.values())):
        raise bad_request("logit_bias must map token keys to numbers from -100 to 100.", param="logit_bias")
    tools, tool_choice = _check_tools(body)
    opt_bool(body, "include_svc_system_prompt")
    return ChatRequest(
        model=model,
        messages=messages,
        stream=bool(opt_bool(body, "stream", False)),
        include_usage=bool(include_usage),
        max_tokens=max_completion if max_completion is not None else max_tokens,
        stop=_check_stop(body.get("stop")),
        n=opt_int(body, "n", 1, MAX_CHOICES, default=1) or 1,
        seed=opt_seed(body),
        temperature=temperature,
        reasoning_effort=opt_enum(body, "reasoning_effort", EFFORTS),
        logprobs=bool(opt_bool(body, "logprobs", False)),
        top_logprobs=opt_int(body, "top_logprobs", 0, 20, default=0) or 0,
        response_format=_check_response_format(body.get("response_format")),
        tools=tools,
        tool_choice=tool_choice,
        parallel_tool_calls=opt_bool(body, "parallel_tool_calls", True) is not False,
        prompt_cache_key=opt_str(body, "prompt_cache_key", max_length=MAX_CACHE_KEY_CHARS),
        prompt_cache_retention=opt_enum(body, "prompt_cache_retention", RETENTIONS, default="in-memory"),
    )
