"""Images given as input: paths, bytes, file objects or PIL images, to upload parts or ``data:`` URIs.

Used for image edits (multipart ``image[]`` parts), vision ``image_url``
content parts and video ``input_reference``. PIL is not imported to recognise
a PIL image (its ``save``/``mode``/``size`` attributes do); it is imported
lazily to check that bytes read from a file or a file object decode as an
image before they are uploaded (raw ``bytes`` are sent as given).

A *string* in a wire-format field (an ``image_url`` part, ``input_reference``)
is always a URL (``http``, ``https`` or ``data``, in any case), never a file
name: ``"/etc/passwd"`` there is an error, not an upload. Local files come
from ``pathlib.Path`` objects, from :func:`image_part` (which takes a path
string) and from ``images.edit(image=...)``, whose documented inputs include
path strings.
"""

from __future__ import annotations

import base64
import io
import mimetypes
import os
from pathlib import Path
from typing import Any, Optional, Union

from gatewaykit.types.images import API_IMAGE_FORMATS

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
        _check_decodes(data, repr(str(path)))  # a local file goes out only if it is an image
    elif is_pil_image(value):
        data, content_type = _pil_bytes(value)
        return f"image-{index}.{_EXTENSIONS[content_type]}", data, content_type
    elif hasattr(value, "read"):
        data = value.read()
        if isinstance(data, str):
            raise TypeError("Image file objects must be opened in binary mode ('rb')")
        raw_name = getattr(value, "name", None)
        name = os.path.basename(raw_name) if isinstance(raw_name, str) else None
        _check_decodes(data, repr(name) if name else f"file object {index + 1}")
    else:
        raise TypeError(
            f"Cannot use {type(value).__name__} as an image: pass a path, bytes, a binary file object or a PIL image"
        )
    sniffed = sniff_content_type(data) or (mimetypes.guess_type(name)[0] if name else None)
    content_type = sniffed or "application/octet-stream"
    if not name:
        name = f"image-{index}.{_EXTENSIONS.get(content_type, 'bin')}"
    return name, data, content_type


def _check_decodes(data: bytes, origin: str) -> None:
    """Raise ValueError unless ``data`` decodes as an image (PIL's verify; magic bytes without PIL)."""
    try:
        from PIL import Image
    except ImportError:  # the core alone: the known signatures are the check
        if sniff_content_type(data) is None:
            raise ValueError(f"{origin} is not an image (not PNG, JPEG, WebP or GIF): nothing was sent") from None
        return
    try:
        with Image.open(io.BytesIO(data), formats=API_IMAGE_FORMATS) as image:
            image.verify()
    except Exception as exc:  # noqa: BLE001 - UnidentifiedImageError, SyntaxError, OSError... all mean 'not an image'
        raise ValueError(
            f"{origin} is not an image PIL can decode as PNG, JPEG, WebP or GIF ({type(exc).__name__}): pass a "
            "PNG, JPEG, WebP or GIF; nothing was sent"
        ) from None


def is_url(value: str) -> bool:
    """``http://``, ``https://`` or ``data:``, in any case."""
    return value[:8].lower().startswith(("http://", "https://", "data:"))


def to_upload(images: Any) -> list[tuple[str, bytes, str]]:
    """One or many image inputs as upload parts, in order."""
    if isinstance(images, (list, tuple)):
        return [load_image(item, index=i) for i, item in enumerate(images)]
    return [load_image(images)]


def to_data_uri(value: ImageInput) -> str:
    _, data, content_type = load_image(value)
    return f"data:{content_type};base64,{base64.b64encode(data).decode('ascii')}"


def to_image_url(value: ImageInput, *, field: str = "image_url") -> str:
    """A wire-format image: a URL string kept as-is; a ``Path``, bytes, file object or PIL image as a ``data:`` URI.

    A ``str`` must be an ``http(s)://`` or ``data:`` URL (any case): a string is
    never read as a file here (pass ``pathlib.Path(...)`` or ``gk.image_part(path)``).
    """
    if isinstance(value, str):
        if is_url(value):
            return value
        raise ValueError(
            f"{field} strings are URLs (http://, https:// or data:), not {value[:60]!r}: for a local file "
            "pass pathlib.Path(...) or gk.image_part(path); nothing was read or sent"
        )
    return to_data_uri(value)


def image_part(image: ImageInput, detail: Optional[str] = None) -> dict[str, Any]:
    """A vision content part ``{"type": "image_url", "image_url": {"url": ...}}`` for any image input.

    Here a string that is not a URL is a path to an image file (it must decode as an image).
    """
    if isinstance(image, str) and not is_url(image):
        image = Path(image)
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
        if type(message) is dict and type(message.get("content")) is not list:
            result.append(message)  # the usual message, text content: nothing to change (and no hasattr miss)
            continue
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
