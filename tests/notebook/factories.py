"""Gateway objects built by hand, as the client would parse them."""

from __future__ import annotations

import base64
import io
from typing import Any

from gatewaykit.types import ChatCompletion, ChatCompletionChunk, ImageResult, Model, ModelList, MusicJob, VideoJob

HOSTILE = (
    "Hi <script>window.__pwned = 1</script> <img src=x onerror=\"window.__pwned=1\"> "
    "[click](javascript:window.__pwned=1) [ok](https://example.org/a?b=1)"
)


def usage(prompt: int = 12, completion: int = 30, cost: float = 0.000123, reasoning: int | None = None) -> dict:
    data: dict[str, Any] = {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
        "cost": {"total_cost": cost},
    }
    if reasoning is not None:
        data["completion_tokens_details"] = {"reasoning_tokens": reasoning}
    return data


def chat(content: str | None = "Hello **world**", *, model: str = "chat-mini", **message: Any) -> ChatCompletion:
    finish = message.pop("finish_reason", "stop")
    return ChatCompletion.model_validate(
        {
            "id": "chatcmpl-1",
            "created": 1,
            "model": model,
            "choices": [{"index": 0, "finish_reason": finish, "message": {"role": "assistant", "content": content, **message}}],
            "usage": usage(),
        }
    )


def chunks(pieces: list[str], *, model: str = "chat-mini", with_usage: bool = True) -> list[ChatCompletionChunk]:
    out = [
        ChatCompletionChunk.model_validate({"id": "c", "model": model, "choices": [{"index": 0, "delta": {"content": p}}]})
        for p in pieces
    ]
    last: dict[str, Any] = {"id": "c", "model": model, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}
    if with_usage:
        last["usage"] = usage(completion=len(pieces))
    out.append(ChatCompletionChunk.model_validate(last))
    return out


def png_bytes(size: tuple[int, int] = (4, 3)) -> bytes:
    from PIL import Image

    buffer = io.BytesIO()
    Image.new("RGB", size, (200, 30, 30)).save(buffer, format="PNG")
    return buffer.getvalue()


def image_result(count: int = 1, *, revised_prompt: str | None = None) -> ImageResult:
    b64 = base64.b64encode(png_bytes()).decode()
    return ImageResult.model_validate(
        {
            "created": 1,
            "model": "image-pixels",
            "size": "4x3",
            "data": [{"index": i, "b64_json": b64, "revised_prompt": revised_prompt} for i in range(count)],
            "usage": usage(cost=0.04),
        }
    )


def video_job(status: str = "queued", **fields: Any) -> VideoJob:
    return VideoJob.model_validate(
        {"id": "video_1", "model": "video-tiers", "status": status, "size": "720p", "seconds": "4", **fields}
    )


def music_job(status: str = "in_progress", **fields: Any) -> MusicJob:
    return MusicJob.model_validate({"id": "audio_1", "model": "music-song", "status": status, **fields})


def model_list() -> ModelList:
    return ModelList.model_validate(
        {
            "data": [
                {"id": "chat-mini", "input_modalities": ["text"], "output_modalities": ["text"]},
                {
                    "id": "image-tiers",
                    "input_modalities": ["text", "image"],
                    "output_modalities": ["image"],
                    "parameters": {"resolution": {"type": "enum", "values": ["1K", "2K"], "default": "1K"}},
                    "edit": {"supported": True, "max_reference_images": 14},
                    "prompt_max_length": 8000,
                },
            ]
        }
    )


def model() -> Model:
    return model_list()["image-tiers"]
