"""client.images against the offline gateway: generate, edit, streams, PIL images and files."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from PIL import Image

import gatewaykit as gk

from .conftest import RecordingLedger


def png(colour: tuple[int, int, int] = (10, 120, 200), size: int = 16) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (size, size), colour).save(buffer, format="PNG")
    return buffer.getvalue()


def test_generate_gives_pil_images_with_cost(client: gk.Client, sink: RecordingLedger) -> None:
    """generate returns an ImageResult whose images are PIL images of the reported size; recorded once."""
    result = client.images.generate(model="image-pixels", prompt="a red fox", width=256, height=256)
    assert result.images[0].size == (256, 256) and result.size == "256x256"
    assert [(r.kind, r.status, r.images) for r in sink.records] == [("image.generate", "ok", 1)]
    assert sink.records[0].usage["cost"]["total_cost"] > 0


def test_save_uses_the_real_format_extension(client: gk.Client, tmp_path: Path) -> None:
    """save(dir) writes one file per image with the extension of its actual format."""
    result = client.images.generate(model="image-preset", prompt="a lake", image_size="square", n=2, output_format="jpeg")
    paths = result.save(tmp_path)
    assert [p.suffix for p in paths] == [".jpg", ".jpg"] and all(p.stat().st_size > 0 for p in paths)


def test_url_response_format_decodes_too(client: gk.Client) -> None:
    """response_format='url' (an inline data: URI) decodes to images as well."""
    result = client.images.generate(model="image-aspect", prompt="a boat", response_format="url", output_format="png")
    assert result.data[0].url.startswith("data:image/png") and result.images[0].format == "PNG"


def test_streamed_generation_gives_one_result(client: gk.Client, sink: RecordingLedger) -> None:
    """stream=True skips keepalives and turns the completed event into an ImageResult."""
    result = client.images.generate(model="image-tiers", prompt="a castle", resolution="1K", stream=True)
    assert isinstance(result, gk.ImageResult) and len(result.images) == 1
    assert [(r.status, r.images) for r in sink.records] == [("ok", 1)]


def test_edit_accepts_paths_bytes_files_and_pil(client: gk.Client, tmp_path: Path) -> None:
    """edit takes a list mixing a path, bytes, a binary file object and a PIL image."""
    path = tmp_path / "one.png"
    path.write_bytes(png())
    with open(path, "rb") as handle:
        result = client.images.edit(
            model="image-tiers", prompt="make it night", image=[path, png((0, 0, 0)), handle, Image.new("RGB", (8, 8))]
        )
    assert len(result.images) == 1


def test_streamed_edit(client: gk.Client) -> None:
    """Edits stream like generations."""
    result = client.images.edit(model="image-gpt", prompt="add a hat", image=png(), stream=True, quality="low")
    assert len(result.data) == 1


def test_edit_sends_image_parts_with_names_and_types(sink: RecordingLedger, tmp_path: Path) -> None:
    """Each image goes as its own image[] part with a filename and sniffed content type."""
    seen: list[bytes] = []

    def answer(request: httpx.Request) -> httpx.Response:
        seen.append(request.read())
        return httpx.Response(200, json={"created": 1, "data": [], "usage": {"cost": {"total_cost": 0.0}}})

    path = tmp_path / "photo.jpg"
    Image.new("RGB", (4, 4)).save(path, format="JPEG")
    with gk.Client(api_key="sk-bf-x", base_url="http://gw.test", ledger=sink, http_transport=httpx.MockTransport(answer)) as client:
        client.images.edit(model="m", prompt="p", image=[path, png()], validate=False)
    body = seen[0]
    assert b'name="image[]"; filename="photo.jpg"\r\nContent-Type: image/jpeg' in body
    assert b'name="image[]"; filename="image-1.png"\r\nContent-Type: image/png' in body
    assert b'name="prompt"\r\n\r\np\r\n' in body


def test_stream_without_completed_event_is_interrupted(sink: RecordingLedger) -> None:
    """An image stream that ends with only keepalives raises StreamInterruptedError, recorded as such."""

    def answer(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, content=b": keepalive\n\n: keepalive\n\n", headers={"content-type": "text/event-stream"})

    with gk.Client(api_key="sk-bf-x", base_url="http://gw.test", ledger=sink, http_transport=httpx.MockTransport(answer)) as client:
        with pytest.raises(gk.StreamInterruptedError):
            client.images.generate(model="m", prompt="p", stream=True, validate=False)
    assert [r.status for r in sink.records] == ["interrupted"]


def test_image_result_from_event_accepts_a_single_image_payload() -> None:
    """A completed event carrying one image's fields (not a whole response) still gives an ImageResult."""
    from gatewaykit.client.resources.images import image_result_from_event

    result = image_result_from_event(json.dumps({"type": "image_generation.completed", "b64_json": "aGk=", "usage": {"cost": {"total_cost": 0.1}}}))
    assert (result.data[0].content, result.usage.total_cost) == (b"hi", 0.1)


