"""What the vision model can truthfully say about ``image_url`` parts.

``data:`` URIs are decoded and inspected (size, format, dominant colours).
``http(s)`` URLs cannot be fetched offline: the answer says so politely instead
of failing, so notebooks written for the real gateway still run.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import math
import re
from dataclasses import dataclass
from typing import Any

from gatewaykit.serving.errors import bad_request

#: Most image parts one chat request may carry.
MAX_IMAGE_PARTS = 16
#: Fewest prompt tokens an image part costs (``detail: low``): the funds check before any image is decoded.
MIN_IMAGE_TOKENS = 85

_DATA_URI = re.compile(r"data:(?P<mime>[\w/+.\-]*)(?P<params>(;[\w\-]+=[^;,]*)*)(?P<b64>;base64)?,(?P<data>.*)",
                       re.S)


@dataclass(frozen=True)
class ImageNote:
    """One image part: its description sentence and how many prompt tokens it costs."""

    text: str
    tokens: int


def decode_data_uri(url: str, param: str) -> bytes:
    match = _DATA_URI.fullmatch(url.strip())
    if not match or not match.group("b64"):
        raise bad_request(f"{param} must be a base64 data: URI (data:image/png;base64,...) or an http(s) URL.",
                          param=param)
    try:
        return base64.b64decode(match.group("data"), validate=False)
    except (binascii.Error, ValueError):
        raise bad_request(f"{param} is not valid base64.", param=param) from None


def image_parts(messages: list[dict[str, Any]]) -> list[tuple[str, dict[str, Any]]]:
    found = []
    for i, message in enumerate(messages):
        content = message.get("content")
        if isinstance(content, list):
            for j, part in enumerate(content):
                if part.get("type") == "image_url":
                    found.append((f"messages[{i}].content[{j}].image_url.url", part["image_url"]))
    return found


def image_tokens(width: int, height: int, detail: str | None) -> int:
    """OpenAI-style image token estimate: 85 base + 170 per 512-pixel tile."""
    if detail == "low":
        return 85
    scale = min(1.0, 2048 / max(width, height))
    fitted_width, fitted_height = width * scale, height * scale
    scale = min(1.0, 768 / min(fitted_width, fitted_height))
    tiles = math.ceil(fitted_width * scale / 512) * math.ceil(fitted_height * scale / 512)
    return 85 + 170 * tiles


def check_image_count(messages: list[dict[str, Any]]) -> int:
    """The number of image parts; 400 on messages when over MAX_IMAGE_PARTS (nothing decoded)."""
    count = len(image_parts(messages))
    if count > MAX_IMAGE_PARTS:
        raise bad_request(f"This chat has {count} image parts; one request may carry at most {MAX_IMAGE_PARTS}.",
                          param="messages")
    return count


def _check_pixels(messages: list[dict[str, Any]]) -> None:
    """400 naming the limit when the data: images declare more pixels in all than one request may (headers only)."""
    from gatewaykit.emulator.media import MediaError
    from gatewaykit.emulator.media.decoding import MAX_INPUT_PIXELS, MAX_REQUEST_PIXELS, declared_pixels

    total = 0
    for param, image in image_parts(messages):
        if not re.match(r"https?://", image["url"], re.I):
            try:
                total += declared_pixels(decode_data_uri(image["url"], param))
            except MediaError as exc:
                raise bad_request(f"{param} is not a readable image: {exc}", param=param) from None
    if total > MAX_REQUEST_PIXELS:
        raise bad_request(f"The images have {total:,} pixels in all; one request may send at most "
                          f"{MAX_REQUEST_PIXELS:,} (each image at most {MAX_INPUT_PIXELS:,}). Send fewer or "
                          "smaller images.", param="messages")


def describe_images(messages: list[dict[str, Any]], cache: dict[str, ImageNote]) -> list[ImageNote]:
    """Describe every image part (CPU work: call it off the event loop), after checking the pixel total."""
    from gatewaykit.emulator.media import MediaError, inspect_image

    _check_pixels(messages)
    notes = []
    for number, (param, image) in enumerate(image_parts(messages), 1):
        url = image["url"]
        if re.match(r"https?://", url, re.I):
            notes.append(ImageNote(
                f"I can't open image {number} ({url[:80]}): the offline gateway does not fetch URLs. "
                "Send it as a base64 data: URI and I'll describe it.", 85))
            continue
        data = decode_data_uri(url, param)
        key = hashlib.sha256(data).hexdigest() + str(image.get("detail"))
        if key not in cache:
            try:
                facts = inspect_image(data)
            except MediaError as exc:
                raise bad_request(f"{param} is not a readable image: {exc}", param=param) from None
            colours = ", ".join(f"{name} ({hexa}, about {round(share * 100)} %)"
                                for name, hexa, share in facts.dominant_colours)
            text = (f"is a {facts.width}×{facts.height} pixel {facts.format.upper()} image whose dominant colours "
                    f"are {colours or 'hard to tell'}.")
            if len(cache) > 256:
                cache.clear()
            cache[key] = ImageNote(text, image_tokens(facts.width, facts.height, image.get("detail")))
        notes.append(ImageNote(f"Image {number} {cache[key].text}", cache[key].tokens))
    return notes
