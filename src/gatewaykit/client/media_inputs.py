"""Images given as input: paths, bytes, file objects or PIL images, to upload parts or ``data:`` URIs.

Used for image edits (multipart ``image[]`` parts), vision ``image_url``
content parts and video ``input_reference``. PIL is never imported: a PIL
image is recognised by its ``save``/``mode``/``size`` attributes.
"""

from __future__ import annotations

import base64
import io
import mimetypes
import os
from pathlib import Path
from typing import Any, Optional, Union

__all__ = ["ImageInput", "image_part", "load_image", "to_data_uri", "to_image_url", "to_upload"]

ImageInput = Union[str, "os.PathLike[str]", bytes, bytearray, memoryview, Any]

_EXTENSIONS = {"image/png": "png", "image/jpeg": "jpg", "image/webp": "webp", "image/gif": "gif"}


def sniff_content_type(data: bytes) -> Optional[str]:
    """The image type from its first bytes (PNG, JPEG, WebP, GIF), or None."""
    if data[:8] == b"\x89PNG\r\n\x1a\n":
        return "image/png"
    if data[:3] == b"\xff\xd8\xff":
        return "image/jpeg"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    if data[:6] in (b"GIF87a", b"GIF89a"):
        return "image/gif"
    return None


def is_pil_image(value: Any) -> bool:
    return hasattr(value, "save") and hasattr(value, "mode") and hasattr(value, "size") and not isinstance(value, (str, bytes))


def _pil_bytes(image: Any) -> tuple[bytes, str]:
    fmt = (getattr(image, "format", None) or "PNG").upper()
    if fmt not in ("PNG", "JPEG", "WEBP"):
        fmt = "PNG"
    buffer = io.BytesIO()
    image.save(buffer, format=fmt)
    return buffer.getvalue(), {"PNG": "image/png", "JPEG": "image/jpeg", "WEBP": "image/webp"}[fmt]


def load_image(value: ImageInput, *, index: int = 0) -> tuple[str, bytes, str]:
    """``(filename, bytes, content_type)`` for any accepted image input."""
    if isinstance(value, (bytes, bytearray, memoryview)):
        data = bytes(value)
        name = None
    elif isinstance(value, (str, os.PathLike)):
        path = Path(value)
        if not path.is_file():
            raise FileNotFoundError(f"No image file at {str(path)!r}")
        data = path.read_bytes()
        name = path.name
    elif is_pil_image(value):
        data, content_type = _pil_bytes(value)
        return f"image-{index}.{_EXTENSIONS[content_type]}", data, content_type
    elif hasattr(value, "read"):
        data = value.read()
        if isinstance(data, str):
            raise TypeError("Image file objects must be opened in binary mode ('rb')")
        raw_name = getattr(value, "name", None)
        name = os.path.basename(raw_name) if isinstance(raw_name, str) else None
    else:
        raise TypeError(
            f"Cannot use {type(value).__name__} as an image: pass a path, bytes, a binary file object or a PIL image"
        )
    sniffed = sniff_content_type(data) or (mimetypes.guess_type(name)[0] if name else None)
    content_type = sniffed or "application/octet-stream"
    if not name:
        name = f"image-{index}.{_EXTENSIONS.get(content_type, 'bin')}"
    return name, data, content_type


def to_upload(images: Any) -> list[tuple[str, bytes, str]]:
    """One or many image inputs as upload parts, in order."""
    if isinstance(images, (list, tuple)):
        return [load_image(item, index=i) for i, item in enumerate(images)]
    return [load_image(images)]


def to_data_uri(value: ImageInput) -> str:
    _, data, content_type = load_image(value)
    return f"data:{content_type};base64,{base64.b64encode(data).decode('ascii')}"


def to_image_url(value: ImageInput) -> str:
    """An URL or ``data:`` URI string kept as-is; anything else (a path, bytes, PIL image) as a ``data:`` URI.

    A ``str`` that is neither ``http(s)://`` nor ``data:`` is taken as a file path.
    """
    if isinstance(value, str) and value.startswith(("http://", "https://", "data:")):
        return value
    return to_data_uri(value)


def image_part(image: ImageInput, detail: Optional[str] = None) -> dict[str, Any]:
    """A vision content part ``{"type": "image_url", "image_url": {"url": ...}}`` for any image input."""
    url: dict[str, Any] = {"url": to_image_url(image)}
    if detail is not None:
        url["detail"] = detail
    return {"type": "image_url", "image_url": url}


def normalise_messages(messages: Any) -> list[Any]:
    """Messages as JSON-ready dicts: Message models dumped, image inputs in content parts made URIs.

    A content list may also hold bare items: a ``str`` is a text part, a path,
    bytes or PIL image is an image part.
    """
    if messages is None or isinstance(messages, (str, bytes, dict)) or not hasattr(messages, "__iter__"):
        raise TypeError(
            "messages must be a list of messages such as [{'role': 'user', 'content': 'Hello'}], "
            f"not {type(messages).__name__}"
        )
    result = []
    for message in messages:
        if hasattr(message, "model_dump"):
            message = message.model_dump(mode="json", exclude_none=True)
        content = message.get("content") if isinstance(message, dict) else None
        if isinstance(content, list):
            message = dict(message)
            message["content"] = [_content_part(part) for part in content]
        result.append(message)
    return result


def _content_part(part: Any) -> Any:
    if isinstance(part, str):
        return {"type": "text", "text": part}
    if hasattr(part, "model_dump"):
        part = part.model_dump(mode="json", exclude_none=True)
    if isinstance(part, dict):
        if part.get("type") == "image_url":
            image_url = part.get("image_url")
            if isinstance(image_url, dict) and not isinstance(image_url.get("url"), str):
                return {**part, "image_url": {**image_url, "url": to_image_url(image_url["url"])}}
            if image_url is not None and not isinstance(image_url, dict):
                return {**part, "image_url": {"url": to_image_url(image_url)}}
        return part
    return image_part(part)
