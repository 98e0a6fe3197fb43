"""The official openai SDK works against the offline gateway unchanged."""

from __future__ import annotations

import base64
import io
import time

import openai
import pytest
from gateway_accounts import ACME_KEY
from PIL import Image


@pytest.fixture
def sdk(emulator):
    with openai.OpenAI(api_key=ACME_KEY, base_url=emulator.base_url + "/v1", max_retries=0) as client:
        yield client


def test_models_list(sdk):
    """models.list returns the catalog ids."""
    assert "chat-mini" in [m.id for m in sdk.models.list()]


def test_chat_plain(sdk):
    """chat.completions.create returns content and usage."""
    answer = sdk.chat.completions.create(model="chat-mini", messages=[{"role": "user", "content": "hi"}])
    assert answer.choices[0].message.content and answer.usage.total_tokens > 0


def test_chat_streamed_with_usage(sdk):
    """A streamed chat with include_usage ends with a usage chunk carrying cost."""
    stream = sdk.chat.completions.create(model="chat-reasoner", messages=[{"role": "user", "content": "Why?"}],
                                         stream=True, stream_options={"include_usage": True})
    chunks = list(stream)
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert text and chunks[-1].usage.completion_tokens > 0
    assert chunks[-1].usage.model_extra["cost"]["total_cost"] > 0


def test_images_generate(sdk):
    """images.generate returns a decodable image."""
    result = sdk.images.generate(model="image-gpt", prompt="a kite", extra_body={"image_size": "1024x1536"})
    assert Image.open(io.BytesIO(base64.b64decode(result.data[0].b64_json))).size == (1024, 1536)


def test_images_edit_with_several_images(sdk):
    """images.edit with two images returns an image."""
    parts = []
    for colour in ("red", "blue"):
        buffer = io.BytesIO()
        Image.new("RGB", (32, 32), colour).save(buffer, "PNG")
        parts.append((f"{colour}.png", buffer.getvalue(), "image/png"))
    result = sdk.images.edit(model="image-tiers", prompt="merge", image=parts)
    assert result.data[0].b64_json


@pytest.mark.filterwarnings("ignore:The Sora API:DeprecationWarning")
def test_videos_create_retrieve_download(sdk):
    """videos.create, retrieve and download_content give an MP4."""
    video = sdk.videos.create(model="video-range", prompt="clouds", extra_body={"duration": 2})
    for _ in range(200):
        video = sdk.videos.retrieve(video.id)
        if video.status in ("completed", "failed"):
            break
        time.sleep(0.05)
    assert video.status == "completed"
    content = sdk.videos.download_content(video.id)
    assert content.read()[4:8] == b"ftyp"


def test_images_generate_streamed_events_are_typed(sdk):
    """A streamed generation's completed event reads as openai's typed event: ``type`` and ``b64_json`` set."""
    stream = sdk.images.generate(model="image-pixels", prompt="a red square", stream=True)
    completed = list(stream)[-1]
    assert completed.type == "image_generation.completed"
    assert Image.open(io.BytesIO(base64.b64decode(completed.b64_json))).size[0] > 0
