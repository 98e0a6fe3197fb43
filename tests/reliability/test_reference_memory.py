"""Edit references cannot amplify the gateway's memory: pixels are capped per request and decoded one at a time."""

from __future__ import annotations

import io
from typing import Any, Iterator

import httpx
import pytest
from reliability_gateways import GatewayProcess

KEY = "sk-bf-reference-memory-000000000001"
HEADERS = {"Authorization": f"Bearer {KEY}"}


def _bitmap_png(seed: int, width: int = 8000, height: int = 5000) -> bytes:
    """A 1-bit PNG of 40 megapixels: about 15 KB of file, 40 MB (or 120 MB as RGB) once decoded."""
    from PIL import Image, ImageDraw

    image = Image.new("1", (width, height), 0)
    ImageDraw.Draw(image).rectangle((seed * 200, seed * 100, width // 2, height // 2), fill=1)
    buffer = io.BytesIO()
    image.save(buffer, "PNG", optimize=True)
    return buffer.getvalue()


@pytest.fixture
def gateway() -> Iterator[Any]:
    """A gateway process of its own per test: its peak memory is this test's alone."""
    with GatewayProcess("memory", KEY) as running:
        yield running


def _edit(gateway: Any, images: list[bytes]) -> httpx.Response:
    files = [("image[]", (f"in{i}.png", data, "image/png")) for i, data in enumerate(images)]
    return httpx.post(f"{gateway.base_url}/v1/images/edits", headers=HEADERS, timeout=600, files=files,
                      data={"model": "image-gpt", "prompt": "a collage"})


def test_more_reference_pixels_than_a_request_may_send_is_400_naming_the_limit(gateway):
    """Eight 40-megapixel references (320 MP) are a 400 on image naming the 160,000,000-pixel limit."""
    answer = _edit(gateway, [_bitmap_png(seed) for seed in range(8)])
    error = answer.json()["error"]
    assert answer.status_code == 400 and error["param"] == "image"
    assert "160,000,000" in error["message"] and "320,000,000" in error["message"]


def test_references_at_the_limit_are_decoded_one_at_a_time_at_the_size_drawn(gateway):
    """Four 40-megapixel references (the most allowed) raise the gateway's peak memory by well under 1 GB."""
    references = [_bitmap_png(seed) for seed in range(4)]
    before = gateway.peak_memory_mb()
    answer = _edit(gateway, references)
    assert answer.status_code == 200, answer.text
    grown = gateway.peak_memory_mb() - before
    assert grown < 400, f"the gateway's peak memory grew by {grown} MB for 160 MP of references"
