"""Image generation and edits: real sizes and formats, limits, streaming."""

from __future__ import annotations

import base64
import io
import json

import pytest
from PIL import Image


def generate(http, **fields):
    return http.post("/v1/images/generations", json={"prompt": "a lighthouse at dawn", **fields})


def decoded(item: dict) -> Image.Image:
    data = item.get("b64_json") or item["url"].split(",", 1)[1]
    return Image.open(io.BytesIO(base64.b64decode(data)))


@pytest.mark.parametrize("fields,size", [
    ({"model": "image-pixels", "width": 640, "height": 384}, (640, 384)),
    ({"model": "image-tiers", "aspect_ratio": "16:9", "resolution": "2K"}, (2048, 1152)),
    ({"model": "image-aspect", "aspect_ratio": "9:16"}, (576, 1024)),
    ({"model": "image-preset", "image_size": "landscape_4_3"}, (1024, 768)),
    ({"model": "image-gpt", "image_size": "1536x1024"}, (1536, 1024)),
])
def test_each_sizing_mode_gives_real_dimensions(http, fields, size):
    """Every sizing mode produces pictures of the reported size."""
    body = generate(http, **fields).json()
    assert body["size"] == f"{size[0]}x{size[1]}"
    assert decoded(body["data"][0]).size == size


@pytest.mark.parametrize("fmt,pil", [("png", "PNG"), ("jpeg", "JPEG"), ("webp", "WEBP")])
def test_output_format_is_honoured(http, fmt, pil):
    """output_format gives that real format."""
    assert decoded(generate(http, model="image-preset", output_format=fmt).json()["data"][0]).format == pil


def test_format_the_model_lacks_is_400_listing_allowed_values(http):
    """image-aspect has no webp: 400 on output_format naming png and jpeg."""
    error = generate(http, model="image-aspect", output_format="webp").json()["error"]
    assert error["param"] == "output_format" and "png, jpeg" in error["message"]


def test_n_gives_distinct_indexed_images(http):
    """n=3 gives three different images indexed from 0."""
    data = generate(http, model="image-preset", n=3).json()["data"]
    assert [d["index"] for d in data] == [0, 1, 2] and len({d["b64_json"] for d in data}) == 3


def test_single_image_model_refuses_n_above_1(http):
    """image-aspect supports only n=1."""
    assert generate(http, model="image-aspect", n=2).json()["error"]["param"] == "n"


def test_url_response_format_is_a_data_uri(http):
    """response_format url returns an inline data: URI."""
    item = generate(http, model="image-preset", response_format="url", output_format="jpeg").json()["data"][0]
    assert item["url"].startswith("data:image/jpeg;base64,") and "b64_json" not in item


def test_prompt_over_the_model_limit_is_prompt_too_long(http):
    """A prompt longer than prompt_max_length gives 400 PROMPT_TOO_LONG."""
    error = generate(http, model="image-aspect", prompt="x" * 8001).json()["error"]
    assert (error["code"], error["param"]) == ("PROMPT_TOO_LONG", "prompt")


def test_same_seed_same_picture_and_different_prompts_differ(http):
    """A seed makes pictures reproducible; another prompt draws another picture."""
    one = generate(http, model="image-preset", seed=5).json()["data"][0]["b64_json"]
    assert generate(http, model="image-preset", seed=5).json()["data"][0]["b64_json"] == one
    assert generate(http, model="image-preset", seed=5, prompt="a red car").json()["data"][0]["b64_json"] != one


@pytest.mark.parametrize("fields", [{"model": "image-pixels", "width": 100}, {"model": "image-pixels", "width": 1000},
                                    {"model": "image-tiers", "resolution": "8K"},
                                    {"model": "image-gpt", "quality": "ultra"}, {"model": "image-preset", "n": 5}])
def test_values_the_model_does_not_offer_are_400(http, fields):
    """Out-of-range or unknown sizing values give 400 naming the field."""
    answer = generate(http, **fields)
    assert answer.status_code == 400 and answer.json()["error"]["param"] in fields


def test_streamed_generation_sends_keepalives_then_the_result(http):
    """stream true: keepalive comments, then image_generation.completed with the image response."""
    with http.stream("POST", "/v1/images/generations", json={"model": "image-gpt", "prompt": "p", "stream": True}) as s:
        raw = s.read().decode()
    assert raw.startswith(": keepalive\n\n")
    event = raw.rstrip("\n").split("\n\n")[-1]
    name, data = event.split("\n", 1)
    assert name == "event: image_generation.completed"
    body = json.loads(data[len("data: "):])
    assert body["size"] == "1024x1024" and body["usage"]["cost"]["total_cost"] > 0


def _png(colour: str, size=(64, 64)) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", size, colour).save(buffer, "PNG")
    return buffer.getvalue()


def test_edit_with_several_images(http):
    """An edit with three image[] parts answers an image of the requested size."""
    files = [("image[]", (f"{c}.png", _png(c), "image/png")) for c in ("red", "green", "blue")]
    answer = http.post("/v1/images/edits", data={"model": "image-tiers", "prompt": "combine", "aspect_ratio": "4:3"},
                       files=files)
    assert answer.status_code == 200 and decoded(answer.json()["data"][0]).size == (1024, 768)


def test_edit_accepts_the_image_field_name(http):
    """The 'image' field name works like 'image[]'."""
    answer = http.post("/v1/images/edits", data={"model": "image-aspect", "prompt": "x"},
                       files=[("image", ("a.png", _png("red"), "image/png"))])
    assert answer.status_code == 200


def test_edit_with_too_many_references_is_400(http):
    """More images than max_reference_images gives 400 on image."""
    files = [("image[]", ("a.png", _png("red"), "image/png"))] * 2
    answer = http.post("/v1/images/edits", data={"model": "image-aspect", "prompt": "x"}, files=files)
    assert answer.status_code == 400 and answer.json()["error"]["param"] == "image"


def test_edit_with_a_non_image_part_is_400(http):
    """A part that is not an image gives 400 on image."""
    files = [("image[]", ("a.png", _png("red"), "image/png")), ("image[]", ("b.txt", b"hello", "text/plain"))]
    answer = http.post("/v1/images/edits", data={"model": "image-gpt", "prompt": "x"}, files=files)
    assert answer.status_code == 400 and "Image 2" in answer.json()["error"]["message"]


def test_edit_without_images_is_400(http):
    """An edit needs at least one image."""
    answer = http.post("/v1/images/edits", data={"model": "image-gpt", "prompt": "x"},
                       files=[("mask", ("m.png", b"", "image/png"))])
    assert answer.status_code == 400 and answer.json()["error"]["param"] == "image"
