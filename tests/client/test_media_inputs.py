"""Image inputs: paths, bytes, file objects, PIL images -> upload parts and data: URIs."""

from __future__ import annotations

import base64
import io
from pathlib import Path

import pytest
from PIL import Image

import gatewaykit as gk
from gatewaykit.client.resources.media_inputs import load_image, normalise_messages, to_image_url


def jpeg() -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (4, 4)).save(buffer, format="JPEG")
    return buffer.getvalue()


def test_path_keeps_its_name_and_sniffs_type(tmp_path: Path) -> None:
    """A path uploads under its file name with the type of its content."""
    path = tmp_path / "cat.jpg"
    path.write_bytes(jpeg())
    name, data, content_type = load_image(path)
    assert (name, content_type, data[:3]) == ("cat.jpg", "image/jpeg", b"\xff\xd8\xff")


def test_bytes_get_a_name_from_their_type() -> None:
    """Raw bytes are named image-<index>.<ext> from the sniffed type."""
    assert load_image(jpeg(), index=2)[0] == "image-2.jpg"


def test_text_mode_file_is_refused(tmp_path: Path) -> None:
    """A file opened in text mode is a TypeError saying to use 'rb'."""
    path = tmp_path / "x.txt"
    path.write_text("hello")
    with open(path) as handle, pytest.raises(TypeError, match="'rb'"):
        load_image(handle)


def test_pil_image_becomes_png() -> None:
    """A PIL image without a format uploads as PNG."""
    name, data, content_type = load_image(Image.new("RGB", (3, 3)))
    assert (content_type, data[:4]) == ("image/png", b"\x89PNG") and name.endswith(".png")


def test_urls_pass_through_and_bytes_become_data_uris() -> None:
    """http(s) and data: strings are kept; bytes become a base64 data: URI."""
    assert to_image_url("https://example.com/a.png") == "https://example.com/a.png"
    uri = to_image_url(jpeg())
    assert uri.startswith("data:image/jpeg;base64,") and base64.b64decode(uri.split(",")[1])[:3] == b"\xff\xd8\xff"


def test_missing_path_is_file_not_found() -> None:
    """A Path to no file raises FileNotFoundError."""
    with pytest.raises(FileNotFoundError):
        to_image_url(Path("no/such/file.png"))


def test_image_part_helper() -> None:
    """gk.image_part builds a vision content part with detail."""
    part = gk.image_part(jpeg(), detail="low")
    assert part["type"] == "image_url" and part["image_url"]["detail"] == "low"


def test_messages_normalise_bare_items_and_models() -> None:
    """Message models are dumped; bare strings and images in content lists become parts; plain text is untouched."""
    plain = {"role": "user", "content": "hi"}
    result = normalise_messages([gk.Message(role="system", content="sys"), plain, {"role": "user", "content": ["look", jpeg()]}])
    assert result[0] == {"role": "system", "content": "sys"} and result[1] is plain
    assert [p["type"] for p in result[2]["content"]] == ["text", "image_url"]
