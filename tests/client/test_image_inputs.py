"""Wire-format image strings are URLs; local files only as Path or through the helpers, and only images (issue 14, defect 9)."""

from __future__ import annotations

import base64
import io
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

import gatewaykit as gk
from gatewaykit.client.resources.media_inputs import load_image, to_image_url

from .conftest import RecordingLedger


def png_file(folder: Path) -> Path:
    path = folder / "dot.png"
    Image.new("RGB", (8, 8), (200, 30, 30)).save(path, format="PNG")
    return path


def secret_file(folder: Path) -> Path:
    path = folder / "passwd"
    path.write_text("root:x:0:0:root:/root:/bin/bash\n")
    return path


def test_string_image_url_that_is_a_path_is_refused(client: gk.Client, sink: RecordingLedger, tmp_path: Path) -> None:
    """A chat part image_url="<path>" raises ValueError and sends nothing (the file is never read)."""
    parts = [{"type": "text", "text": "what is this?"}, {"type": "image_url", "image_url": str(secret_file(tmp_path))}]
    with pytest.raises(ValueError, match="URL"):
        client.chat.completions.create(model="chat-vision", messages=[{"role": "user", "content": parts}])
    assert sink.records == []


def test_etc_passwd_as_image_url_dict_is_refused(client: gk.Client, sink: RecordingLedger) -> None:
    """{"image_url": {"url": Path("/etc/passwd")}} is a local file that is not an image: ValueError, nothing sent."""
    parts = [{"type": "image_url", "image_url": {"url": Path("/etc/passwd")}}]
    with pytest.raises(ValueError, match="not an image"):
        client.chat.completions.create(model="chat-vision", messages=[{"role": "user", "content": parts}])
    assert sink.records == []


@pytest.mark.parametrize("url", ["HTTPS://example.com/a.png", "Http://example.com/b.png", "DATA:image/png;base64,AAAA"])
def test_url_schemes_in_any_case_are_kept(url: str) -> None:
    """http, https and data URLs are kept as they are, whatever the case of the scheme."""
    assert to_image_url(url) == url


def test_existing_relative_path_string_is_still_not_a_url(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A wire-format string naming an existing image file is refused, pointing to Path and gk.image_part."""
    monkeypatch.chdir(tmp_path)
    png_file(tmp_path)
    with pytest.raises(ValueError, match="Path"):
        to_image_url("dot.png")


def test_image_part_reads_a_real_image_path(tmp_path: Path) -> None:
    """gk.image_part("<path to a PNG>") is the documented helper: the file becomes a data: URI."""
    url = gk.image_part(str(png_file(tmp_path)))["image_url"]["url"]
    assert url.startswith("data:image/png;base64,") and base64.b64decode(url.split(",", 1)[1])[:4] == b"\x89PNG"


def test_image_part_refuses_a_file_that_is_not_an_image(tmp_path: Path) -> None:
    """gk.image_part of a text file raises ValueError naming the file."""
    with pytest.raises(ValueError, match="passwd.*not an image"):
        gk.image_part(str(secret_file(tmp_path)))


def test_edit_with_a_str_path_to_a_non_image_is_refused(client: gk.Client, sink: RecordingLedger) -> None:
    """images.edit(image="/etc/passwd") raises ValueError before anything is sent."""
    with pytest.raises(ValueError, match="not an image"):
        client.images.edit(model="image-pixels", prompt="x", image="/etc/passwd")
    assert sink.records == []


def test_edit_with_a_str_path_to_an_image_still_works(client: gk.Client, tmp_path: Path) -> None:
    """images.edit(image="<path to a PNG>") stays a documented input and is sent."""
    result = client.images.edit(model="image-pixels", prompt="brighter", image=str(png_file(tmp_path)))
    assert len(result.data) == 1


def test_input_reference_string_must_be_a_url(client: gk.Client, sink: RecordingLedger, tmp_path: Path) -> None:
    """videos.create(input_reference="<path>") raises ValueError; nothing sent, nothing recorded."""
    with pytest.raises(ValueError, match="URL"):
        client.videos.create(model="video-tiers", prompt="move", input_reference=str(png_file(tmp_path)))
    assert sink.records == []


def test_file_object_that_is_not_an_image_is_refused(tmp_path: Path) -> None:
    """A binary file object whose content is not an image raises ValueError naming it."""
    with open(secret_file(tmp_path), "rb") as handle, pytest.raises(ValueError, match="passwd.*not an image"):
        load_image(handle)


def test_truncated_png_is_refused(tmp_path: Path) -> None:
    """A file with a PNG signature but a broken body is refused (decoded, not only sniffed)."""
    buffer = io.BytesIO()
    Image.new("RGB", (8, 8)).save(buffer, format="PNG")
    broken = tmp_path / "broken.png"
    broken.write_bytes(buffer.getvalue()[:20])
    with pytest.raises(ValueError, match="not an image"):
        load_image(broken)


def test_text_part_strings_stay_text(client: gk.Client) -> None:
    """A bare string in a content list is still a text part (even one that looks like a path)."""
    answer: Any = client.chat.completions.create(
        model="chat-mini", messages=[{"role": "user", "content": ["/etc/passwd"]}]
    )
    assert answer.choices[0].message.content
