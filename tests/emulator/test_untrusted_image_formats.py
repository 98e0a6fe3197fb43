"""Untrusted image bytes are opened only as PNG, JPEG, WebP or GIF, wherever the gateway takes an image."""

from __future__ import annotations

import base64
import io

import pytest
from PIL import Image

#: A complete little EPS file: Pillow recognises it and, to draw it, runs Ghostscript on it.
EPS = (b"%!PS-Adobe-3.0 EPSF-3.0\n%%BoundingBox: 0 0 16 16\n%%EndComments\n"
       b"0 0 moveto 16 16 lineto stroke\nshowpage\n%%EOF\n")


def _bmp() -> bytes:
    """A BMP: a format Pillow decodes by itself, but not one the API speaks."""
    buffer = io.BytesIO()
    Image.new("RGB", (16, 16), "red").save(buffer, "BMP")
    return buffer.getvalue()


def _data_uri(data: bytes) -> str:
    return "data:image/png;base64," + base64.b64encode(data).decode()


def _vision(http, data: bytes):  # noqa: ANN001, ANN202
    content = [{"type": "image_url", "image_url": {"url": _data_uri(data)}}]
    return http.post("/v1/chat/completions", json={"model": "chat-vision", "messages": [
        {"role": "user", "content": content}]})


def _edit(http, data: bytes):  # noqa: ANN001, ANN202
    return http.post("/v1/images/edits", data={"model": "image-gpt", "prompt": "x"},
                     files=[("image[]", ("a.png", data, "image/png"))])


def _video(http, data: bytes):  # noqa: ANN001, ANN202
    return http.post("/v1/videos", json={"model": "video-tiers", "prompt": "x", "input_reference": _data_uri(data)})


ENTRY_POINTS = [pytest.param(_vision, id="vision"), pytest.param(_edit, id="edit"),
                pytest.param(_video, id="video")]


@pytest.mark.parametrize("send", ENTRY_POINTS)
def test_an_image_in_another_format_is_400_naming_the_accepted_ones(http, send):
    """A BMP (decodable by Pillow, not an API format) is a 400 that names PNG, JPEG, WebP and GIF."""
    answer = send(http, _bmp())
    assert answer.status_code == 400, answer.text
    assert "PNG, JPEG, WebP or GIF" in answer.json()["error"]["message"]


@pytest.mark.parametrize("send", ENTRY_POINTS)
def test_an_eps_file_is_never_handed_to_ghostscript(http, send):
    """An EPS file is a 400 before any PostScript tool sees it: no tool name, command line or path in it."""
    answer = send(http, EPS)
    message = answer.json()["error"]["message"]
    assert answer.status_code == 400 and "PNG, JPEG, WebP or GIF" in message
    assert not any(word in message.lower() for word in ("ghostscript", "gs ", "/tmp", "eps"))
