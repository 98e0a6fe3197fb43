"""Record factories for the ledger's unit tests (the sink protocol, no network).

Not a conftest.py: the suite's root conftest is imported by name (``from conftest
import ...``), and a second conftest module here would shadow it. Test modules
import the ``records`` fixture from this module instead.
"""

from __future__ import annotations

import pytest

from gatewaykit.costs import CostRecord


def chat_usage(cost: float = 0.0012, prompt: int = 10, completion: int = 5, reasoning: int = 0, cached: int = 0):
    return {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
        "prompt_tokens_details": {"cached_tokens": cached},
        "completion_tokens_details": {"reasoning_tokens": reasoning},
        "cost": {"total_cost": cost, "input_tokens_cost": cost / 3, "output_tokens_cost": cost * 2 / 3},
    }


def chat_ok(cost: float = 0.0012, model: str = "chat-mini", **kwargs) -> CostRecord:
    return CostRecord(kind="chat", model=model, status="ok", id="chatcmpl-1", usage=chat_usage(cost), **kwargs)


def image_ok(cost: float = 0.04, kind: str = "image.generate", images: int = 1, **kwargs) -> CostRecord:
    usage = {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0, "cost": {"total_cost": cost}}
    return CostRecord(kind=kind, model="image-pixels", status="ok", usage=usage, images=images, **kwargs)


def video_created(job_id: str = "video_1", **kwargs) -> CostRecord:
    kwargs.setdefault("request", {"model": "video-tiers", "prompt": "a fox", "duration": 4})
    return CostRecord(kind="video", model="video-tiers", status="queued", id=job_id, **kwargs)


def music_created(job_id: str = "audio_1", **kwargs) -> CostRecord:
    return CostRecord(kind="music", model="music-song", status="in_progress", id=job_id, **kwargs)


def http_error(status: int = 429, code: str = "rate_limit_exceeded", **kwargs) -> CostRecord:
    return CostRecord(
        kind="chat", model="chat-mini", status="error", http_status=status, error_code=code, **kwargs
    )


@pytest.fixture
def records():
    """The record factories, as one namespace."""

    class Records:
        pass

    for name, factory in {
        "chat_ok": chat_ok,
        "image_ok": image_ok,
        "video_created": video_created,
        "music_created": music_created,
        "http_error": http_error,
        "chat_usage": chat_usage,
    }.items():
        setattr(Records, name, staticmethod(factory))
    return Records
