"""The OpenAPI 3.1 document of the gateway (``info.version`` 1.0.0), built from the catalog.

Request schemas carry the spec's fields and limits, so schema-driven fuzzers
(schemathesis) generate meaningful cases; every error answer is the envelope.
"""

from __future__ import annotations

from typing import Any

from gatewaykit.emulator.catalog import CATALOG

REF = "#/components/schemas/"


def ref(name: str) -> dict[str, str]:
    return {"$ref": REF + name}


def _ids(kind: str) -> list[str]:
    return [spec.id for spec in CATALOG.values() if spec.kind == kind]


def _json(schema: dict[str, Any]) -> dict[str, Any]:
    return {"content": {"application/json": {"schema": schema}}}


NUMBER = {"type": "number"}
STRING = {"type": "string"}
#: One Server-Sent Event (before OpenAPI 3.2, a text/event-stream ``schema`` describes each event).
SSE_EVENT = {"type": "object", "required": ["data"],
             "properties": {"event": STRING, "data": STRING, "id": STRING, "retry": {"type": "integer"}}}
INTEGER = {"type": "integer"}
BOOLEAN = {"type": "boolean"}

SCHEMAS: dict[str, Any] = {
    "ErrorEnvelope": {"type": "object", "required": ["error"], "properties": {"error": {
        "type": "object", "required": ["message", "type", "code", "param"],
        "properties": {"message": STRING, "type": STRING, "code": {"type": ["string", "null"]},
                       "param": {"type": ["string", "null"]}}}}},
    "Cost": {"type": "object", "required": ["total_cost"], "properties": {name: NUMBER for name in (
        "total_cost", "input_tokens_cost", "output_tokens_cost", "reasoning_tokens_cost", "citation_tokens_cost",
        "search_queries_cost", "request_cost")}},
    "Usage": {"type": "object", "properties": {
        "prompt_tokens": INTEGER, "completion_tokens": INTEGER, "total_tokens": INTEGER,
        "prompt_tokens_details": {"type": "object"}, "completion_tokens_details": {"type": "object"},
        "cost": ref("Cost")}},
    "ContentPart": {"type": "object", "required": ["type"], "properties": {
        "type": {"enum": ["text", "image_url"]}, "text": STRING,
        "image_url": {"type": "object", "required": ["url"],
                      "properties": {"url": STRING, "detail": {"enum": ["low", "high", "auto"]}}}}},
    "ToolCall": {"type": "object", "properties": {
        "id": STRING, "type": {"enum": ["function"]}, "index": INTEGER,
        "function": {"type": "object", "properties": {"name": STRING, "arguments": STRING}}}},
    "Message": {"type": "object", "required": ["role"], "properties": {
        "role": {"enum": ["system", "user", "assistant", "tool"]},
        "content": {"anyOf": [STRING, {"type": "array", "items": ref("ContentPart")}, {"type": "null"}]},
        "name": STRING, "tool_call_id": STRING, "tool_calls": {"type": "array", "items": ref("ToolCall")},
        "refusal": STRING, "reasoning": STRING, "reasoning_details": {"type": "array"}}},
    "Tool": {"type": "object", "required": ["type", "function"], "properties": {
        "type": {"enum": ["function"]},
        "function": {"type": "object", "required": ["name"], "properties": {
            "name": STRING, "description": STRING, "parameters": {"type": "object"}, "strict": BOOLEAN}}}},
    "ChatCompletionRequest": {"type": "object", "required": ["model", "messages"], "properties": {
        "model": {"type": "string", "enum": _ids("chat")},
        "messages": {"type": "array", "minItems": 1, "items": ref("Message")},
        "temperature": {"type": "number", "minimum": 0, "maximum": 2},
        "top_p": {"type": "number", "minimum": 0, "maximum": 1},
        "max_tokens": {"type": "integer", "minimum": 1}, "max_completion_tokens": {"type": "integer", "minimum": 1},
        "reasoning_effort": {"enum": ["none", "low", "medium", "high"]},
        "stop": {"anyOf": [STRING, {"type": "array", "items": STRING, "maxItems": 4}]},
        "stream": BOOLEAN, "stream_options": {"type": "object", "properties": {"include_usage": BOOLEAN}},
        "seed": INTEGER, "n": {"type": "integer", "minimum": 1, "maximum": 8},
        "frequency_penalty": {"type": "number", "minimum": -2, "maximum": 2},
        "presence_penalty": {"type": "number", "minimum": -2, "maximum": 2},
        "logit_bias": {"type": "object", "additionalProperties": {"type": "number", "minimum": -100,
                                                                   "maximum": 100}},
        "logprobs": BOOLEAN, "top_logprobs": {"type": "integer", "minimum": 0, "maximum": 20},
        "prompt_cache_key": {"type": "string", "maxLength": 1024},
        "prompt_cache_retention": {"enum": ["in-memory", "24h"]},
        "response_format": {"type": "object", "required": ["type"], "properties": {
            "type": {"enum": ["text", "json_object", "json_schema"]}, "json_schema": {"type": "object"}}},
        "tools": {"type": "array", "items": ref("Tool")},
        "tool_choice": {"anyOf": [{"enum": ["none", "auto", "required"]}, {"type": "object"}]},
        "parallel_tool_calls": BOOLEAN, "user": STRING, "include_svc_system_prompt": BOOLEAN}},
    "ChatCompletion": {"type": "object", "required": ["id", "object", "created", "model", "choices"],
                       "properties": {"id": STRING, "object": {"const": "chat.completion"}, "created": INTEGER,
                                      "model": STRING, "choices": {"type": "array"}, "usage": ref("Usage")}},
    "ImageGenerationRequest": {"type": "object", "required": ["model", "prompt"], "properties": {
        "model": {"type": "string", "enum": _ids("image")}, "prompt": {"type": "string", "minLength": 1, "maxLength": 50000, "pattern": "\\S"},
        "n": {"type": "integer", "minimum": 1, "maximum": 4},
        "response_format": {"enum": ["b64_json", "url"]}, "output_format": {"enum": ["png", "jpeg", "webp"]},
        "quality": {"enum": ["low", "medium", "high"]}, "stream": BOOLEAN, "seed": INTEGER,
        "width": {"type": "integer", "minimum": 256, "maximum": 2048, "multipleOf": 16},
        "height": {"type": "integer", "minimum": 256, "maximum": 2048, "multipleOf": 16},
        "aspect_ratio": STRING, "resolution": {"enum": ["1K", "2K", "4K"]}, "image_size": STRING,
        # An offline extension (emulator/image_sampling.py): sampled pictures for evaluations with repeats.
        "temperature": {"type": "number", "minimum": 0, "maximum": 2}}},
    "ImageResponse": {"type": "object", "required": ["created", "model", "size", "data"], "properties": {
        "created": INTEGER, "model": STRING, "size": STRING, "usage": ref("Usage"),
        "data": {"type": "array", "items": {"type": "object", "properties": {
            "index": INTEGER, "b64_json": STRING, "url": STRING, "revised_prompt": STRING}}}}},
    "VideoCreateRequest": {"type": "object", "required": ["model", "prompt"], "properties": {
        "model": {"type": "string", "enum": _ids("video")}, "prompt": {"type": "string", "minLength": 1, "maxLength": 4000, "pattern": "\\S"},
        "input_reference": STRING, "resolution": {"enum": ["480p", "720p", "1080p"]},
        "duration": {"type": "integer", "minimum": 2, "maximum": 12},
        "aspect_ratio": {"enum": ["16:9", "9:16", "1:1", "auto"]}, "generate_audio": BOOLEAN, "seed": INTEGER}},
    "MediaLink": {"type": "object", "properties": {"type": {"const": "url"}, "url": STRING, "content_type": STRING}},
    "VideoJob": {"type": "object", "required": ["id", "object", "model", "status"], "properties": {
        "id": STRING, "object": {"const": "video"}, "model": STRING,
        "status": {"enum": ["queued", "in_progress", "completed", "failed", "cancelled", "deleted"]},
        "size": STRING, "seconds": STRING, "created_at": INTEGER, "completed_at": INTEGER, "progress": INTEGER,
        "videos": {"type": "array", "items": ref("MediaLink")},
        "error": {"type": "object", "required": ["message"], "properties": {"message": STRING}}}},
    "MusicCreateRequest": {"type": "object", "required": ["model", "prompt", "lyrics_prompt"], "properties": {
        "model": {"type": "string", "enum": _ids("music")}, "prompt": {"type": "string", "minLength": 1, "maxLength": 300, "pattern": "\\S"},
        "lyrics_prompt": {"type": "string", "minLength": 10, "maxLength": 3000,
                          "pattern": "(^|\\n)\\s*\\[[A-Za-z][A-Za-z0-9 _\\-]*\\]\\s*(\\n|$)"},
        "sample_rate": INTEGER, "bitrate": INTEGER, "format": {"enum": ["mp3"]}, "seed": INTEGER}},
    "MusicJob": {"type": "object", "required": ["id", "object", "model", "status"], "properties": {
        "id": STRING, "object": {"const": "audio"}, "model": STRING,
        "status": {"enum": ["in_progress", "completed", "failed"]}, "seconds": STRING,
        "created_at": INTEGER, "completed_at": INTEGER, "audio": {"type": "array", "items": ref("MediaLink")},
        "error": {"type": "object", "required": ["message"], "properties": {"message": STRING}}}},
    "ModelList": {"type": "object", "required": ["object", "data"], "properties": {
        "object": {"const": "list"}, "data": {"type": "array", "items": {"type": "object", "required": ["id"],
                                                                         "properties": {"id": STRING}}}}},
}
SCHEMAS["ImageEditRequest"] = {
    "type": "object", "required": ["model", "prompt", "image[]"],
    "properties": {**{k: v for k, v in SCHEMAS["ImageGenerationRequest"]["properties"].items()},
                   "image[]": {"type": "array", "items": {"type": "string", "format": "binary"}, "minItems": 1,
                               "maxItems": 14},
                   "image": {"type": "array", "items": {"type": "string", "format": "binary"}}}}


def _errors(*statuses: int) -> dict[str, Any]:
    text = {400: "Malformed request or unsupported value", 401: "Missing, malformed or unknown key",
            402: "Out of credits", 403: "Key revoked, or model not permitted", 404: "Not found",
            413: "Request body too large", 429: "Rate limit exceeded", 500: "Temporary server error"}
    return {str(s): {"description": text[s], **_json(ref("ErrorEnvelope"))} for s in statuses}


def _op(summary: str, ok: dict[str, Any], *errors: int, body: dict[str, Any] | None = None,
        job_param: str | None = None) -> dict[str, Any]:
    op: dict[str, Any] = {"summary": summary, "responses": {**ok, **_errors(*errors)}}
    if body is not None:
        op["requestBody"] = {"required": True, **body}
    if job_param:
        op["parameters"] = [{"name": job_param, "in": "path", "required": True, "schema": STRING}]
    return op


def _ok(schema: str, streams: bool = False) -> dict[str, Any]:
    content: dict[str, dict[str, Any]] = {"application/json": {"schema": ref(schema)}}
    if streams:
        content["text/event-stream"] = {"schema": SSE_EVENT}
    return {"200": {"description": "Success", "content": content}}


REDIRECT = {"302": {"description": "Redirect to the finished media (an unguessable, expiring link)",
                    "headers": {"Location": {"schema": STRING}}}}
COMMON = (400, 401, 402, 403, 413, 429, 500)


def build_document() -> dict[str, Any]:
    json_body = lambda name: _json(ref(name))  # noqa: E731
    paths = {
        "/v1/models": {"get": _op("List the models this key may call", _ok("ModelList"), 401, 429, 500)},
        "/v1/chat/completions": {"post": _op("Chat completion (SSE when stream is true)",
                                             _ok("ChatCompletion", True), *COMMON,
                                             body=json_body("ChatCompletionRequest"))},
        "/v1/images/generations": {"post": _op("Generate images", _ok("ImageResponse", True), *COMMON,
                                               body=json_body("ImageGenerationRequest"))},
        "/v1/images/edits": {"post": _op("Edit images (multipart)", _ok("ImageResponse", True), *COMMON, body={
            "content": {"multipart/form-data": {"schema": ref("ImageEditRequest")}}})},
        "/v1/videos": {"post": _op("Create a video job", _ok("VideoJob"), *COMMON,
                                   body=json_body("VideoCreateRequest"))},
        "/v1/videos/{video_id}": {
            "get": _op("Retrieve a video job", _ok("VideoJob"), 401, 404, 429, 500, job_param="video_id"),
            "delete": _op("Cancel an unfinished video job or delete a finished one", _ok("VideoJob"),
                          401, 404, 429, 500, job_param="video_id")},
        "/v1/videos/{video_id}/content": {"get": _op("Redirect to the MP4", REDIRECT, 401, 404, 429, 500,
                                                     job_param="video_id")},
        "/v1/audio/generations": {"post": _op("Create a music job", _ok("MusicJob"), *COMMON,
                                              body=json_body("MusicCreateRequest"))},
        "/v1/audio/generations/{audio_id}": {"get": _op("Retrieve a music job", _ok("MusicJob"), 401, 404, 429, 500,
                                                        job_param="audio_id")},
        "/v1/audio/generations/{audio_id}/content": {"get": _op("Redirect to the MP3", REDIRECT, 401, 404, 429,
                                                                500, job_param="audio_id")},
    }
    return {
        "openapi": "3.1.0",
        "info": {"title": "Multi-modal Generation Gateway (offline gateway)", "version": "1.0.0",
                 "description": "Synthetic models served locally by gatewaykit. Errors use the error envelope. "
                                "An integer field takes any JSON number with a zero fractional part (6.0 is "
                                "the integer 6, as JSON Schema's 'integer' type says); other numbers, booleans "
                                "and strings are 400."},
        "servers": [{"url": "/"}],
        "security": [{"bearer": []}],
        "paths": paths,
        "components": {"schemas": SCHEMAS,
                       "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}}},
    }
