"""The client opens image bytes from a gateway or a cassette only as PNG, JPEG, WebP or GIF."""

from __future__ import annotations

import base64
import io

import pytest
from PIL import Image

from gatewaykit.client.resources.media_inputs import to_data_uri
from gatewaykit.types.images import ImageResult

EPS = (b"%!PS-Adobe-3.0 EPSF-3.0\n%%BoundingBox: 0 0 16 16\n%%EndComments\n"
       b"0 0 moveto 16 16 lineto stroke\nshowpage\n%%EOF\n")


def _encoded(fmt: str) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (16, 16), "red").save(buffer, fmt)
    return buffer.getvalue()


def _result(data: bytes) -> ImageResult:
    return ImageResult(data=[{"index": 0, "b64_json": base64.b64encode(data).decode()}])


@pytest.mark.parametrize("data", [pytest.param(_encoded("BMP"), id="bmp"), pytest.param(EPS, id="eps")])
def test_images_refuses_bytes_in_another_format(data):
    """``ImageResult.images`` on BMP or EPS bytes is a ValueError naming the accepted formats (no Ghostscript)."""
    with pytest.raises(ValueError, match="not a PNG, JPEG, WebP or GIF") as raised:
        _ = _result(data).images
    assert "ghostscript" not in str(raised.value).lower()


@pytest.mark.parametrize("fmt", ["PNG", "JPEG", "WEBP", "GIF"])
def test_images_decodes_every_api_format(fmt):
    """PNG, JPEG, WebP and GIF bytes still decode to PIL images."""
    assert _result(_encoded(fmt)).image.size == (16, 16)


def test_an_input_image_file_in_another_format_is_refused_before_sending(tmp_path):
    """A BMP file given as an input image is a ValueError naming the accepted formats; nothing is sent."""
    path = tmp_path / "picture.png"
    path.write_bytes(_encoded("BMP"))
    with pytest.raises(ValueError, match="PNG, JPEG, WebP or GIF"):
        to_data_uri(path)
